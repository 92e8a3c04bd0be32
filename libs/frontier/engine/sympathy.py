"""The Woodland Alliance's reach into every other rule: supporters, sympathy, Outrage.

This module holds what the rest of the engine must call into when an Alliance is at the
table (base Root §11 with R25), so movement, battle and removal stay faction-agnostic:

* :class:`AllianceState`, the faction's own data (the supporters stack and the officers);
* gaining and losing supporters, with the stack's limit of 5 while no base is on the map;
* **Outrage Without Borders (R25)**: a seat of the *rival* team that moves warriors into a
  clearing with an Alliance's sympathy, or removes a sympathy token, gives that Alliance a
  matching card from hand onto the supporters (a decision when it has more than one kind of
  matching card), or shows its hand and the Alliance draws the top card of the deck onto the
  supporters.  Teammates of the Alliance never trigger it, on either map;
* the consequences of a removed base (discard the base's suit from the supporters, lose
  half the officers rounded up, shrink the stack to 5 when no base is left).

"Sympathetic" is per Alliance: with two Alliances at the table each copy has its own tokens
(R2), so a clearing holding only the rival Alliance's token is unsympathetic to this one.
The faction's turn (Revolt, Spread Sympathy, Mobilize, Train, Military Operations) lives in
:mod:`frontier.engine.factions.alliance`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import card, matches, one_per_type, payable
from .ctx import Ctx
from .errors import CorruptEvent
from .model import Command, CommandKind, Event, EventKind, Faction, Seat, Suit, suit_named
from .pieces import BASES, SYMPATHY, WARRIOR
from .state import Decision, State

SUPPORTERS_LIMIT = 5  # while the Alliance has no base on the map (§11)

OUTRAGE = "outrage"  # decision: the mover picks the card it gives
SUPPORTERS_LIMIT_DECISION = "supporters_limit"  # decision: the Alliance discards down to 5


@dataclass(slots=True)
class AllianceState:
    """The Alliance's faction board: supporters (face down) and the Officers box.

    Bases and sympathy tokens not on the map are ordinary supply pieces
    (``SeatState.supply``), so they are counted once, where the core moves them.
    """

    supporters: list[str] = field(default_factory=list)
    officers: int = 0

    def clone(self) -> AllianceState:
        return AllianceState(list(self.supporters), self.officers)

    def public_view(self) -> dict[str, Any]:
        return {"supporters": len(self.supporters), "officers": self.officers}

    def private_view(self) -> dict[str, Any]:
        return {"supporters": sorted(self.supporters)}


def new_alliance_state(spec: object) -> AllianceState:
    return AllianceState()


def alliance_state(state: State, seat: Seat) -> AllianceState:
    extra = state.seats[seat].extra
    if not isinstance(extra, AllianceState):
        raise TypeError(f"seat {seat.value} is not a Woodland Alliance")
    return extra


def is_alliance(state: State, seat: Seat) -> bool:
    return state.lineup[seat].faction is Faction.ALLIANCE


# ----- pieces --------------------------------------------------------------------------------


def base_piece(suit: Suit | str) -> str:
    # ``Suit(suit).value`` through the table (an enum call and ``.value`` are Python-level).
    return "base_" + str(suit_named(suit))


def base_suit(piece: str) -> Suit:
    return Suit(piece.removeprefix("base_"))


def bases_on_map(state: State, seat: Seat) -> list[str]:
    """The Alliance's bases on the map (a base not in the supply is on the map)."""
    supply = state.seats[seat].supply
    return [b for b in BASES if supply.get(b, 0) == 0]


def sympathetic(state: State, clearing: str, seat: Seat) -> bool:
    return state.pieces[clearing].get(seat, {}).get(SYMPATHY, 0) > 0


def supporters_limit(state: State, seat: Seat) -> int | None:
    """5 while no base is on the map; None (unlimited) with a base."""
    return None if bases_on_map(state, seat) else SUPPORTERS_LIMIT


def supporter_payments(supporters: list[str], suit: Suit, n: int) -> list[tuple[str, ...]]:
    """Ways to spend ``n`` supporters for ``suit`` (birds wild), one per number of birds.

    Supporters may only be spent for their suit, so two payments with the same number of
    birds are equivalent; the canonical one uses the lowest card ids.
    """
    if n <= 0:
        return [()]
    own = sorted(c for c in supporters if card(c).suit is suit)
    birds = sorted(c for c in supporters if card(c).suit is Suit.BIRD)
    out: list[tuple[str, ...]] = []
    for b in range(n + 1):
        if b <= len(birds) and n - b <= len(own):
            out.append(tuple(sorted(own[: n - b] + birds[:b])))
    return out


# ----- gaining and losing supporters ------------------------------------------------------


def gain_supporters(
    ctx: Ctx, alliance: Seat, cards: tuple[str, ...], giver: Seat | None, reason: str
) -> None:
    """Put cards from ``giver``'s hand (None: from the top of the deck) on the supporters.

    While no base is on the map the stack holds 5; a card gained beyond that is discarded.
    """
    if not cards:
        return
    ctx.emit(
        EventKind.SUPPORTERS_ADDED,
        seat=alliance.value,
        target=giver.value if giver is not None else "",
        cards=cards,
        text=reason,
    )
    limit = supporters_limit(ctx.state, alliance)
    supporters = alliance_state(ctx.state, alliance).supporters
    if limit is not None and len(supporters) > limit:
        excess = min(len(cards), len(supporters) - limit)
        ctx.emit(
            EventKind.SUPPORTERS_DISCARDED,
            seat=alliance.value,
            cards=cards[len(cards) - excess :],
            text="supporters full",
        )


def draw_supporters(ctx: Ctx, alliance: Seat, n: int, reason: str) -> None:
    """Draw ``n`` cards from the top of the deck onto the supporters (reshuffling as needed)."""
    state = ctx.state
    drawn: list[str] = []
    for _ in range(n):
        if len(drawn) == len(state.deck):  # every card left is already drawn
            if drawn:
                gain_supporters(ctx, alliance, tuple(drawn), None, reason)
                drawn = []
            if not state.discard:
                return
            ctx.emit(EventKind.DECK_SHUFFLED, count=len(state.discard))
        drawn.append(state.deck[-1 - len(drawn)])
    gain_supporters(ctx, alliance, tuple(drawn), None, reason)


def spend_supporters(ctx: Ctx, alliance: Seat, cards: tuple[str, ...], reason: str) -> None:
    if cards:
        ctx.emit(EventKind.SUPPORTERS_DISCARDED, seat=alliance.value, cards=cards, text=reason)


# ----- Outrage Without Borders (R25) ------------------------------------------------------


def triggers_outrage(state: State, mover: Seat, alliance: Seat) -> bool:
    """R25: only a seat of the Alliance's rival team triggers Outrage."""
    return is_alliance(state, alliance) and mover.team is not alliance.team


def outrage_cards(state: State, mover: Seat, clearing: str) -> list[str]:
    """One card per printed card in ``mover``'s hand that matches the clearing (birds count)."""
    return payable(state.seats[mover].hand, Suit(state.suits[clearing]))


def outrage(ctx: Ctx, mover: Seat, alliance: Seat, clearing: str) -> None:
    """``mover`` owes ``alliance`` a card matching ``clearing`` (or shows its hand)."""
    options = outrage_cards(ctx.state, mover, clearing)
    if len(options) > 1:
        ctx.ask(mover, OUTRAGE, clearing=clearing, target=alliance.value)
    elif options:
        gain_supporters(ctx, alliance, (options[0],), mover, "outrage")
    else:
        _reveal_and_draw(ctx, mover, alliance)


def _reveal_and_draw(ctx: Ctx, mover: Seat, alliance: Seat) -> None:
    hand = tuple(sorted(ctx.state.seats[mover].hand))
    ctx.emit(EventKind.HAND_REVEALED, seat=mover.value, target=alliance.value, cards=hand)
    draw_supporters(ctx, alliance, 1, "outrage")


def after_warriors_moved(ctx: Ctx, mover: Seat, dest: str) -> None:
    """Call after ``mover`` moved warriors into ``dest`` (any move: march, decree, Cobbler...).

    Whoever performs the move is the mover: a Vagabond moving allied warriors passes itself.
    """
    for owner, kinds in list(ctx.state.pieces[dest].items()):
        if kinds.get(SYMPATHY, 0) and triggers_outrage(ctx.state, mover, owner):
            outrage(ctx, mover, owner, dest)


def lost_pieces(
    ctx: Ctx, owner: Seat, clearing: str, piece: str, n: int, remover: Seat | None, reason: str
) -> None:
    """The Alliance's removal hook (:func:`frontier.engine.removal.remove`): a base or a
    sympathy token of ``owner`` was removed, whoever removed it."""
    if (piece != SYMPATHY and piece not in BASES) or not is_alliance(ctx.state, owner):
        return
    if piece in BASES:
        base_removed(ctx, owner, piece)
    elif piece == SYMPATHY and remover is not None and triggers_outrage(ctx.state, remover, owner):
        outrage(ctx, remover, owner, clearing)


def outrage_commands(state: State, d: Decision) -> list[Command]:
    cards = outrage_cards(state, d.seat, d.clearing)
    if not cards:  # nothing matches any more: the only answer is to show the hand
        return [Command(CommandKind.OUTRAGE, d.seat, clearing=d.clearing, target=d.target)]
    return [
        Command(CommandKind.OUTRAGE, d.seat, clearing=d.clearing, target=d.target, cards=(c,))
        for c in cards
    ]


def answer_outrage(ctx: Ctx, cmd: Command, d: Decision) -> None:
    ctx.close_decision()
    alliance = Seat(d.target)
    if cmd.cards:
        gain_supporters(ctx, alliance, cmd.cards, cmd.seat, "outrage")
    else:
        _reveal_and_draw(ctx, cmd.seat, alliance)


# ----- a base removed ---------------------------------------------------------------------


def base_removed(ctx: Ctx, alliance: Seat, piece: str) -> None:
    """§11: discard the base's suit from the supporters (birds too), lose half the officers
    (rounded up), and with no base left keep at most 5 supporters (the Alliance chooses)."""
    st = alliance_state(ctx.state, alliance)
    suit = base_suit(piece)
    lost = tuple(c for c in st.supporters if matches(c, suit))
    spend_supporters(ctx, alliance, lost, "base removed")
    half = (st.officers + 1) // 2
    if half:
        ctx.emit(EventKind.OFFICERS_CHANGED, seat=alliance.value, amount=-half, text="base removed")
    _ask_supporters_limit(ctx, alliance)


def _ask_supporters_limit(ctx: Ctx, alliance: Seat) -> None:
    limit = supporters_limit(ctx.state, alliance)
    n = len(alliance_state(ctx.state, alliance).supporters)
    if limit is not None and n > limit:
        ctx.ask(alliance, SUPPORTERS_LIMIT_DECISION, count=n - limit)


def supporters_limit_commands(state: State, d: Decision) -> list[Command]:
    return [
        Command(CommandKind.DISCARD, d.seat, piece="supporters", cards=(c,))
        for c in one_per_type(alliance_state(state, d.seat).supporters)
    ]


def answer_supporters_limit(ctx: Ctx, cmd: Command, d: Decision) -> None:
    ctx.close_decision()
    spend_supporters(ctx, cmd.seat, cmd.cards, "supporters limit")
    _ask_supporters_limit(ctx, cmd.seat)


# ----- evolve -------------------------------------------------------------------------------


def _supporters_added(state: State, e: Event) -> None:
    st = alliance_state(state, Seat(e.seat))
    if e.target:
        hand = state.seats[Seat(e.target)].hand
        for cid in e.cards:
            if cid not in hand:
                raise CorruptEvent(f"{e.target} does not hold {cid}")
            hand.remove(cid)
    else:
        for cid in e.cards:
            top = state.deck.pop()
            if top != cid:
                raise CorruptEvent(f"expected {cid} on top of the deck, found {top}")
    st.supporters.extend(e.cards)


def _supporters_discarded(state: State, e: Event) -> None:
    st = alliance_state(state, Seat(e.seat))
    for cid in e.cards:
        if cid not in st.supporters:
            raise CorruptEvent(f"{e.seat} has no supporter {cid}")
        st.supporters.remove(cid)
        state.discard.append(cid)


def _officers_changed(state: State, e: Event) -> None:
    seat = Seat(e.seat)
    st = alliance_state(state, seat)
    supply = state.seats[seat].supply
    if supply.get(WARRIOR, 0) < e.amount or st.officers + e.amount < 0:
        raise CorruptEvent(f"{seat} cannot change its officers by {e.amount}")
    supply[WARRIOR] = supply.get(WARRIOR, 0) - e.amount
    st.officers += e.amount


EVOLVE = {
    EventKind.SUPPORTERS_ADDED: _supporters_added,
    EventKind.SUPPORTERS_DISCARDED: _supporters_discarded,
    EventKind.OFFICERS_CHANGED: _officers_changed,
}
