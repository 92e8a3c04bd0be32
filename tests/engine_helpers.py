"""Shared helpers for engine tests: quick setup, hand-built positions and a seeded test bot.

Positions are built by mutating a :class:`State` directly, but always *conservatively*:
pieces move between a seat's supply and the board, and cards move between the deck, the
discard pile, hands and play areas, so the invariants the property tests check (every card
exactly once, every piece either placed or in supply) also hold in hand-built positions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from frontier.engine import (
    Command,
    CommandKind,
    EngineError,
    Event,
    MatchConfig,
    Seat,
    State,
    decide,
    execute,
    fold,
    initial_state,
    legal_commands,
    make_config,
    rng,
    to_act,
)
from frontier.engine.board import board
from frontier.engine.cards import deck_ids
from frontier.engine.hashing import state_hash
from frontier.engine.setup import RUIN_ITEMS, map_stock
from frontier.engine.sympathy import AllianceState
from frontier.engine.vagabond_state import VagabondState, starting_items

LINEUP = "A=marquise;B=marquise"
A = Seat.A1
B = Seat.B1
DECK_SIZE = 47
Pieces = Mapping[str, Mapping[Seat, Mapping[str, int]]]  # clearing -> seat -> kind -> count

# Marquise supply at the start of a match (base Root §9).
MARQUISE_SUPPLY: dict[str, int] = {
    "warrior": 25,
    "sawmill": 6,
    "workshop": 6,
    "recruiter": 6,
    "wood": 8,
    "keep": 1,
}

# Woodland Alliance supply at the start of a match (base Root §11).
ALLIANCE_SUPPLY: dict[str, int] = {
    "warrior": 10,
    "sympathy": 10,
    "base_fox": 1,
    "base_rabbit": 1,
    "base_mouse": 1,
}


def new_state(seed: int = 0, lineup: str = LINEUP, **options: Any) -> State:
    """A fresh match (before any setup command), by default with the two-Marquise lineup."""
    return initial_state(make_config(seed=seed, lineup=lineup, **options))


def play(state: State, *commands: Command) -> list[Event]:
    """Execute commands in order on ``state``; return all their events."""
    events: list[Event] = []
    for cmd in commands:
        events.extend(execute(state, cmd))
    return events


def first_legal(state: State, kind: CommandKind, **match: Any) -> Command:
    """The first legal command of ``kind`` for the seat to act whose fields equal ``match``."""
    seat = to_act(state)
    assert seat is not None, "the match is over"
    for cmd in legal_commands(state, seat):
        if cmd.kind is kind and all(getattr(cmd, k) == v for k, v in match.items()):
            return cmd
    raise AssertionError(f"no legal {kind.value} {match} for {seat.value}")


def legal_of(state: State, kind: CommandKind, seat: Seat | None = None) -> list[Command]:
    actor = seat if seat is not None else to_act(state)
    assert actor is not None
    return [c for c in legal_commands(state, actor) if c.kind is kind]


def setup_seat(state: State, keep: str) -> list[Event]:
    """Place the keep of the seat to act, then its first legal buildings (R12)."""
    events = play(state, first_legal(state, CommandKind.PLACE_KEEP, clearing=keep))
    while state.step == "setup.buildings":
        events += play(state, first_legal(state, CommandKind.PLACE_BUILDING))
    return events


def after_setup(
    seed: int = 0, keep_a: str = "autumn.hill", keep_b: str = "winter.hedge", **options: Any
) -> State:
    """A match whose setup is done: round 1, A1's turn, waiting in Birdsong or Daylight."""
    state = new_state(seed, **options)
    setup_seat(state, keep_a)
    setup_seat(state, keep_b)
    assert state.round == 1
    return state


# ----- hand-built positions -------------------------------------------------------------------


def clear_pieces(state: State) -> None:
    """Every piece back to its owner's supply (a keep only to the Marquise that had one)."""
    for per_seat in state.pieces.values():
        for seat, kinds in per_seat.items():
            supply = state.seats[seat].supply
            for kind, n in kinds.items():
                supply[kind] = supply.get(kind, 0) + n
        per_seat.clear()


def clear_board(state: State) -> None:
    """Return every piece on the map to its owner's supply (the keep too)."""
    clear_pieces(state)
    for st in state.seats.values():
        st.supply["keep"] = 1


def put(state: State, clearing: str, seat: Seat, kind: str, n: int = 1) -> None:
    """Move ``n`` pieces of ``kind`` from ``seat``'s supply to ``clearing``."""
    supply = state.seats[seat].supply
    assert supply.get(kind, 0) >= n, f"{seat} has only {supply.get(kind, 0)} {kind} in supply"
    supply[kind] -= n
    kinds = state.pieces[clearing].setdefault(seat, {})
    kinds[kind] = kinds.get(kind, 0) + n


def take_card(state: State, card_id: str) -> None:
    """Remove one card from wherever it is (deck, discard, a hand or a play area)."""
    for pile in (state.deck, state.discard):
        if card_id in pile:
            pile.remove(card_id)
            return
    for st in state.seats.values():
        for pile in (st.hand, st.play_area):
            if card_id in pile:
                pile.remove(card_id)
                return
    raise AssertionError(f"card {card_id} is nowhere")


def set_hand(state: State, seat: Seat, cards: Iterable[str]) -> None:
    """Give ``seat`` exactly ``cards``; its old hand goes to the bottom of the deck."""
    old = state.seats[seat].hand
    state.seats[seat].hand = []
    state.deck[:0] = old
    for cid in cards:
        take_card(state, cid)
        state.seats[seat].hand.append(cid)


def put_in_play(state: State, seat: Seat, *cards: str) -> None:
    for cid in cards:
        take_card(state, cid)
        state.seats[seat].play_area.append(cid)


def stack_deck(state: State, *top: str) -> None:
    """Put ``top`` on top of the deck, the first named card drawn first."""
    for cid in top:
        take_card(state, cid)
    state.deck.extend(reversed(top))


def dice_seed(high: int, low: int) -> int:
    """A generator state whose next battle roll is (high, low)."""
    for candidate in range(100_000):
        dice, _ = rng.roll_dice(candidate)
        if dice == (high, low):
            return candidate
    raise AssertionError(f"no generator state rolls {(high, low)}")


def position(
    *,
    seed: int = 0,
    turn: Seat = A,
    step: str = "daylight.actions",
    actions: int = 3,
    pieces: Pieces | None = None,
    hands: Mapping[Seat, Iterable[str]] | None = None,
    in_play: Mapping[Seat, Iterable[str]] | None = None,
    **options: Any,
) -> State:
    """A round-1 position after setup with the board replaced by ``pieces``.

    ``pieces`` maps clearing -> seat -> kind -> count; every piece comes from the supply.
    ``hands`` replaces the named seats' hands (other hands are emptied into the deck).
    """
    state = after_setup(seed, **options)
    clear_board(state)
    lay_out(state, pieces, hands, in_play)
    start_turn(state, turn, step, actions)
    return state


def lay_out(
    state: State,
    pieces: Pieces | None = None,
    hands: Mapping[Seat, Iterable[str]] | None = None,
    in_play: Mapping[Seat, Iterable[str]] | None = None,
) -> None:
    """Put ``pieces`` (clearing -> seat -> kind -> count) on the board from the supply, give
    the named seats ``hands`` (other hands emptied into the deck), then put ``in_play`` in play."""
    for clearing, per_seat in (pieces or {}).items():
        for seat, kinds in per_seat.items():
            for kind, n in kinds.items():
                put(state, clearing, seat, kind, n)
    for seat in state.order:
        set_hand(state, seat, (hands or {}).get(seat, ()))
    for seat, cards in (in_play or {}).items():
        put_in_play(state, seat, *cards)


def start_turn(state: State, turn: Seat, step: str, actions: int) -> None:
    """Make it ``turn``'s turn at ``step`` with ``actions`` left: no march, no card used, no
    decision pending, no battle."""
    state.turn_seat = turn
    state.step = step
    state.actions = actions
    state.march_left = 0
    state.used = {}
    state.decisions = []
    state.battle = None


def assert_refused(
    state: State, cmd: Command, error: type[EngineError], match: str | None = None
) -> str:
    """``cmd`` raises ``error`` (message matching ``match``) and leaves the state unchanged."""
    before = state_hash(state)
    with pytest.raises(error, match=match) as info:
        execute(state, cmd)
    assert state_hash(state) == before, "a refused command changed the state"
    message = str(info.value)
    assert message, "the error has no message"
    return message


def execute_as_decided(state: State, cmd: Command) -> list[Event]:
    """Execute ``cmd``, checking that ``decide`` predicted exactly the events it applies."""
    predicted = decide(state, cmd)
    got = execute(state, cmd)
    assert got == predicted, "decide and execute disagree"
    return got


def assert_events_rebuild(config: MatchConfig, state: State, events: list[Event]) -> None:
    """Folding ``events`` onto the initial state of ``config`` gives ``state``."""
    rebuilt = fold(initial_state(config), events)
    assert state_hash(rebuilt) == state_hash(state), "the events do not rebuild the state"


def kinds_of(events: Iterable[Event]) -> list[str]:
    return [e.kind.value for e in events]


# ----- card and piece bookkeeping -------------------------------------------------------------


def all_cards(state: State) -> list[str]:
    """Every card of the match wherever it is (each id should appear exactly once)."""
    cards = [*state.deck, *state.discard]
    for st in state.seats.values():
        cards += st.hand + st.play_area
        if isinstance(st.extra, AllianceState):  # face-down supporters, not the hand (§11)
            cards += st.extra.supporters
    return cards


def assert_conserved(state: State) -> None:
    """Cards: each of the 47 ids exactly once.  Pieces: board + supply = the box (R11, §9)."""
    cards = all_cards(state)
    assert len(cards) == DECK_SIZE
    assert sorted(cards) == sorted(deck_ids())
    for seat, st in state.seats.items():
        on_board: dict[str, int] = {}
        for per_seat in state.pieces.values():
            for kind, n in per_seat.get(seat, {}).items():
                assert n >= 0, f"negative {kind} count for {seat}"
                on_board[kind] = on_board.get(kind, 0) + n
        box = MARQUISE_SUPPLY
        if isinstance(st.extra, AllianceState):  # officers are warriors off the board (§11)
            box = ALLIANCE_SUPPLY
            on_board["warrior"] = on_board.get("warrior", 0) + st.extra.officers
        for kind, total in box.items():
            here = on_board.get(kind, 0) + st.supply.get(kind, 0)
            if kind == "keep":  # the keep is removed permanently (base Root §9)
                assert here <= total
            else:
                assert here == total, f"{seat} {kind}: {here} != {total}"


def item_locations(state: State) -> dict[str, int]:
    """How many items are where: both map stocks (R10), Crafted Items boxes, ruins (R9),
    Vagabonds' items, contraband dropped and carried (R16-R18) and the crate (R19)."""
    vagabonds = [st.extra for st in state.seats.values() if isinstance(st.extra, VagabondState)]
    return {
        "stock": sum(sum(stock.values()) for stock in state.stock.values()),
        "crafted": sum(len(st.crafted_items) for st in state.seats.values()),
        "ruins": sum(len(items) for items in state.ruins.values()),
        "vagabonds": sum(len(vs.items) for vs in vagabonds),
        "dropped": sum(len(items) for items in state.dropped.values()),
        "carried": sum(len(i) for per in state.carried.values() for i in per.values()),
        "crate": len(state.crate),
    }


def items_in_the_box(state: State) -> int:
    """Every item of a match: two stocks of 12, 8 ruin items, the Vagabonds' starting items."""
    stocks = 2 * sum(map_stock().values())
    starting = sum(
        len(starting_items(st.character))
        for st in state.seats.values()
        if isinstance(st.extra, VagabondState) and st.character is not None
    )
    return stocks + len(RUIN_ITEMS) + starting


def assert_items_conserved(state: State, removed_from_game: int = 0) -> None:
    """Each item is in exactly one place; ``removed_from_game`` counts the items a Vagabond
    removed at its item limit (they leave the game without going to the crate)."""
    where = item_locations(state)
    assert sum(where.values()) + removed_from_game == items_in_the_box(state), where
    for clearing, per_seat in state.carried.items():  # carried contraband has a carrier (R18)
        for carrier, items in per_seat.items():
            assert items, f"an empty carried list for {carrier} in {clearing}"
            warriors = state.pieces[clearing].get(carrier, {}).get("warrior", 0)
            assert warriors > 0, f"{carrier} carries {items} in {clearing} without a warrior"


# ----- a seeded test bot (frontier.engine.rng, never random) ----------------------------------


class KindFirstBot:
    """Picks a command kind uniformly, then a command of that kind uniformly.

    Choosing the kind first keeps rare kinds (battle, build, craft, card effects) from being
    drowned out by the dozens of march commands, so playouts reach more rules.
    """

    def __init__(self, seed: int, patience: int = 1) -> None:
        self.rng = rng.seed_state(seed)
        self.patience = patience  # > 1: END_PHASE / DECLINE only 1 time in ``patience``

    def choose(self, legal: list[Command]) -> Command:
        kinds = sorted({c.kind.value for c in legal})
        passive = {CommandKind.END_PHASE.value, CommandKind.DECLINE.value}
        if self.patience > 1 and len(kinds) > 1 and set(kinds) & passive:
            roll, self.rng = rng.below(self.rng, self.patience)
            if roll:  # keep playing: drop the passive kinds this time
                kinds = [k for k in kinds if k not in passive] or kinds
        k, self.rng = rng.below(self.rng, len(kinds))
        options = [c for c in legal if c.kind.value == kinds[k]]
        i, self.rng = rng.below(self.rng, len(options))
        return options[i]


def playout(
    seed: int, bot_seed: int, *, patience: int = 1, max_commands: int = 5_000, **options: Any
) -> tuple[State, list[tuple[Command, list[Event]]]]:
    """Play a whole match with :class:`KindFirstBot`; return the final state and the log."""
    state = new_state(seed, **options)
    bot = KindFirstBot(bot_seed, patience)
    log: list[tuple[Command, list[Event]]] = []
    while not state.over:
        assert len(log) < max_commands, "the match does not end"
        seat = to_act(state)
        assert seat is not None
        cmd = bot.choose(legal_commands(state, seat))
        log.append((cmd, execute(state, cmd)))
    return state, log


def event_dict(event: Event) -> dict[str, Any]:
    """An event as a JSON-ready dict holding only its non-default fields."""
    out: dict[str, Any] = {"kind": event.kind.value}
    for f in dataclasses.fields(event)[1:]:
        value = getattr(event, f.name)
        if value in ("", 0, ()):
            continue
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def clearings_of(map_name: str) -> tuple[str, ...]:
    return board().on_map(map_name)


# One plain (non-bird, non-ambush) card of each suit, and a bird card, for fees and costs.
CARD_OF: dict[str, str] = {
    "fox": "anvil",
    "rabbit": "bake_sale",
    "mouse": "investments",
    "bird": "crossbow_bird",
}
OTHER_CARD_OF: dict[str, str] = {
    "fox": "foxfolk_steel",
    "rabbit": "a_visit_to_friends",
    "mouse": "mouse_in_a_sack",
    "bird": "birdy_bindle",
}


def card_not_matching(suit: str) -> str:
    return next(CARD_OF[s] for s in ("fox", "rabbit", "mouse") if s != suit)


ITEM_FIELDS = frozenset(
    {"crafted_items", "items", "satchel", "dropped", "carried", "crate", "stock"}
)


def string_values(obj: Any, skip: frozenset[str] = ITEM_FIELDS) -> set[str]:
    """Every string *value* (never a dict key) in a JSON-like object, outside item fields.

    Card ids are compared against this set; item names (one card id, ``sword``, is also an
    item) only appear under the item fields, which are skipped.
    """
    out: set[str] = set()
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if key not in skip:
                out |= string_values(value, skip)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            out |= string_values(value, skip)
    return out
