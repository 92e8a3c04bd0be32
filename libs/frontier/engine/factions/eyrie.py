"""Eyrie Dynasties (base Root §10) with the variant's setup (R12) and Imperial Isolation (R24).

Setup on the home map: a roost and 6 warriors in the corner diagonally opposite the team's
keep (base rules choose the corner when there is no keep), then a leader, whose two Loyal
Viziers are tucked into the Decree.  A turn: Birdsong emergency orders, 1 or 2 cards added to
the Decree (at most one bird) and a new roost when none is on the map; Daylight crafting with
roosts, then the Decree resolved column by column (recruit, move, battle, build), each card's
suit naming where; a card that cannot be resolved throws the Eyrie into Turmoil.  A Move
card may instead collect a dropped item in a matching clearing (R18), a Battle card seize one
(R19).  Evening
scores the roost track and draws 1 (+1 at 3 roosts, +1 more at 6).

The Loyal Viziers are not deck cards: they are two permanent bird entries of the Decree
(``loyal_vizier.1`` / ``.2``).  Which decree cards are done this Daylight is a per-turn counter
per column and suit (``decree:<column>:<suit>``), since cards of one suit in one column are
interchangeable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..battle import battle_commands
from ..battle import start as start_battle
from ..board import HOME_MAP, board
from ..card_effects import daylight_commands
from ..cards import card, one_per_type
from ..contraband import collect_commands, do_collect, do_seize, seize_commands
from ..ctx import Ctx
from ..errors import CorruptEvent
from ..model import Command, CommandKind, Event, EventKind, Faction, Seat, Suit, Team, other_team
from ..movement import do_move, move_commands
from ..pieces import (
    KEEP,
    ROOST,
    WARRIOR,
    blocked_by_keep,
    count,
    open_slots,
    rulers,
    warriors,
)
from ..state import Battle, Decision, SeatSpec, State
from ..turn import goto
from .base import FactionRules

# ----- constants (base Root §10, root_data.json factions.eyrie) ---------------------------

BUILDER = "builder"
CHARISMATIC = "charismatic"
COMMANDER = "commander"
DESPOT = "despot"
LEADERS: tuple[str, ...] = (BUILDER, CHARISMATIC, COMMANDER, DESPOT)

RECRUIT = "recruit"
MOVE = "move"
BATTLE = "battle"
BUILD = "build"
COLUMNS: tuple[str, ...] = (RECRUIT, MOVE, BATTLE, BUILD)

VIZIERS: tuple[str, str] = ("loyal_vizier.1", "loyal_vizier.2")
VIZIER_COLUMNS: dict[str, tuple[str, str]] = {
    BUILDER: (RECRUIT, MOVE),
    CHARISMATIC: (RECRUIT, BATTLE),
    COMMANDER: (MOVE, BATTLE),
    DESPOT: (MOVE, BUILD),
}

WARRIORS = 20
ROOSTS = 7
SETUP_WARRIORS = 6
NEW_ROOST_WARRIORS = 3
ROOST_VP = (0, 0, 1, 2, 3, 4, 4, 5)  # Evening VP by roosts on the map
DRAW_BONUS_AT = (3, 6)  # roosts on the map that uncover an Evening draw bonus
MAX_ADDED = 2  # cards added to the Decree per Birdsong
ISOLATION_ROUNDS = 2  # R24: Imperial Isolation in rounds 1 and 2

# per-turn counters (state.used)
ADDED = "decree_added"
ADDED_BIRD = "decree_added_bird"
LEADER_DECISION = "eyrie_leader"
DESPOT_EFFECT = "despot"

# the Decree command kind of each column
COLUMN_KIND: dict[str, CommandKind] = {
    RECRUIT: CommandKind.DECREE_RECRUIT,
    MOVE: CommandKind.DECREE_MOVE,
    BATTLE: CommandKind.DECREE_BATTLE,
    BUILD: CommandKind.DECREE_BUILD,
}


# ----- faction state -----------------------------------------------------------------------


@dataclass(slots=True)
class EyrieState:
    """The leader, the face-up candidates, the deposed leaders and the Decree (all public)."""

    leader: str = ""
    candidates: list[str] = field(default_factory=lambda: list(LEADERS))  # face up
    deposed: list[str] = field(default_factory=list)  # face down
    decree: dict[str, list[str]] = field(default_factory=lambda: {c: [] for c in COLUMNS})

    def clone(self) -> EyrieState:
        return EyrieState(
            self.leader,
            list(self.candidates),
            list(self.deposed),
            {c: list(entries) for c, entries in self.decree.items()},
        )

    def public_view(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "candidates": list(self.candidates),
            "deposed": list(self.deposed),
            "decree": {c: list(self.decree[c]) for c in COLUMNS},
        }

    def private_view(self) -> dict[str, Any]:
        return {}  # nothing of the Eyrie's own data is secret (the hand is not part of it)


def new_state(spec: SeatSpec) -> EyrieState:
    return EyrieState()


def eyrie(state: State, seat: Seat) -> EyrieState:
    extra = state.seats[seat].extra
    if not isinstance(extra, EyrieState):
        raise CorruptEvent(f"{seat.value} is not an Eyrie seat")
    return extra


def is_vizier(entry: str) -> bool:
    return entry in VIZIERS


def entry_suit(entry: str) -> Suit:
    return Suit.BIRD if is_vizier(entry) else card(entry).suit


def leader_of(state: State, seat: Seat) -> str:
    """The seat's Eyrie leader, or '' for any other faction (or between leaders)."""
    extra = state.seats[seat].extra
    return extra.leader if isinstance(extra, EyrieState) else ""


def roosts_on_map(state: State, seat: Seat) -> int:
    return ROOSTS - state.seats[seat].supply.get(ROOST, 0)


# ----- hooks of the shared rules (crafting, contraband, battle) ---------------------------------


def crafted_item_vp(state: State, seat: Seat, printed_vp: int) -> int:
    """Disdain for Trade: an item scores 1 VP, unless the leader is the Builder."""
    if leader_of(state, seat) == BUILDER:
        return printed_vp
    return min(printed_vp, 1)


def attacker_extra_hits(state: State, attacker: Seat) -> int:
    """The Commander deals 1 extra hit as attacker."""
    return 1 if leader_of(state, attacker) == COMMANDER else 0


def despot_bonus(ctx: Ctx, b: Battle, remover: Seat) -> None:
    """The Despot scores 1 extra VP, once per battle, when it removes an enemy building or
    token (called by the battle after each such removal)."""
    if leader_of(ctx.state, remover) != DESPOT:
        return
    if f"{remover.value}:{DESPOT_EFFECT}" in b.effects_used:
        return
    ctx.emit(EventKind.EFFECT_USED, seat=remover.value, piece=DESPOT_EFFECT)
    ctx.score(remover, 1, "despot")


# ----- setup (R12) ----------------------------------------------------------------------------


def setup_corner_options(state: State, seat: Seat) -> list[str]:
    """Home corners that are no other seat's starting corner, preferring those diagonally
    opposite one (base §10 setup); with the team's keep placed that is exactly R12's corner."""
    b = board()
    corners = b.corners(HOME_MAP[seat.team])
    taken = {
        c
        for c in corners
        if any(
            s is not seat and (kinds.get(KEEP, 0) or kinds.get(ROOST, 0))
            for s, kinds in state.pieces[c].items()
        )
    }
    free = [
        c
        for c in corners
        if c not in taken and open_slots(state, c) > 0 and not blocked_by_keep(state, c, seat)
    ]
    opposite = [c for c in free if b.clearings[c].opposite_corner in taken]
    return opposite or free


def setup_commands(state: State, seat: Seat, step: str) -> list[Command]:
    if step == "setup.roost":
        if roosts_on_map(state, seat) > 0:
            return []
        return [
            Command(CommandKind.PLACE_ROOST, seat, clearing=c)
            for c in setup_corner_options(state, seat)
        ]
    if step == "setup.leader":
        return leader_commands(state, seat)
    return []


def setup_done(state: State, seat: Seat, step: str) -> bool:
    return not setup_commands(state, seat, step)


def leader_commands(state: State, seat: Seat) -> list[Command]:
    ey = eyrie(state, seat)
    if ey.leader:
        return []
    return [
        Command(CommandKind.CHOOSE_LEADER, seat, piece=leader)
        for leader in LEADERS
        if leader in ey.candidates
    ]


def _place_roost(ctx: Ctx, seat: Seat, clearing: str, warriors_wanted: int, reason: str) -> None:
    ctx.place(seat, clearing, ROOST, 1, reason=reason)
    n = min(warriors_wanted, ctx.state.seats[seat].supply.get(WARRIOR, 0))
    ctx.place(seat, clearing, WARRIOR, n, reason=reason)


# ----- Birdsong -----------------------------------------------------------------------------


def emergency_orders(ctx: Ctx, seat: Seat) -> None:
    """Birdsong 1: with an empty hand, draw a card."""
    if not ctx.state.seats[seat].hand:
        ctx.draw(seat, 1)


def add_commands(state: State, seat: Seat) -> list[Command]:
    """Birdsong 2: add 1 or 2 cards (at most one bird), each to any column."""
    added = state.used.get(ADDED, 0)
    if added >= MAX_ADDED:
        return []
    out: list[Command] = []
    for cid in one_per_type(state.seats[seat].hand):
        if card(cid).suit is Suit.BIRD and state.used.get(ADDED_BIRD):
            continue
        out.extend(Command(CommandKind.ADD_TO_DECREE, seat, cards=(cid,), piece=c) for c in COLUMNS)
    if added and out:
        out.append(Command(CommandKind.END_PHASE, seat))
    return out


def add_to_decree(ctx: Ctx, cmd: Command) -> None:
    cid = cmd.cards[0]
    ctx.emit(EventKind.DECREE_ADDED, seat=cmd.seat.value, cards=(cid,), piece=cmd.piece)
    ctx.use(cmd.seat, ADDED)
    if card(cid).suit is Suit.BIRD:
        ctx.use(cmd.seat, ADDED_BIRD)


def new_roost_options(state: State, seat: Seat) -> list[str]:
    """Birdsong 3 (A New Roost): the clearings with the fewest warriors (of anyone) among
    those where the roost can be placed (an open slot, not another's keep clearing)."""
    spots = [
        c for c in board().order if open_slots(state, c) > 0 and not blocked_by_keep(state, c, seat)
    ]
    if not spots:
        return []
    total = {c: sum(k.get(WARRIOR, 0) for k in state.pieces[c].values()) for c in spots}
    fewest = min(total.values())
    return [c for c in spots if total[c] == fewest]


def new_roost_commands(state: State, seat: Seat) -> list[Command]:
    if roosts_on_map(state, seat) > 0 or not state.seats[seat].supply.get(ROOST, 0):
        return []
    return [
        Command(CommandKind.PLACE_ROOST, seat, clearing=c) for c in new_roost_options(state, seat)
    ]


# ----- Daylight: the Decree -----------------------------------------------------------------


def resolved_key(column: str, suit: Suit) -> str:
    return f"decree:{column}:{suit.value}"


def pending(state: State, seat: Seat, column: str) -> dict[Suit, int]:
    """Cards of ``column`` not yet resolved (or skipped) this Daylight, by suit."""
    counts: dict[Suit, int] = {}
    for entry in eyrie(state, seat).decree[column]:
        suit = entry_suit(entry)
        counts[suit] = counts.get(suit, 0) + 1
    out: dict[Suit, int] = {}
    for suit, n in counts.items():
        left = n - state.used.get(resolved_key(column, suit), 0)
        if left > 0:
            out[suit] = left
    return out


def current_column(state: State, seat: Seat) -> str | None:
    """The leftmost column that still has cards to resolve (None: the Decree is done)."""
    for column in COLUMNS:
        if pending(state, seat, column):
            return column
    return None


def _matches(state: State, clearing: str, suit: Suit) -> bool:
    return suit is Suit.BIRD or state.suits[clearing] == suit.value


def recruit_count(state: State, seat: Seat) -> int:
    return 2 if leader_of(state, seat) == CHARISMATIC else 1


def resolutions(
    state: State,
    seat: Seat,
    column: str,
    suit: Suit,
    rule_map: dict[str, Team | None] | None = None,
) -> list[Command]:
    """Every legal way to resolve one ``suit`` card of ``column`` now (``rule_map``: the
    :func:`rulers` of ``state``, shared by the suits of one enumeration)."""
    order = board().order
    if rule_map is None and column in (MOVE, BUILD):
        rule_map = rulers(state)
    piece = suit.value
    if column == RECRUIT:
        if state.seats[seat].supply.get(WARRIOR, 0) < recruit_count(state, seat):
            return []  # a recruit that cannot place all its warriors is not taken in full
        return [
            Command(CommandKind.DECREE_RECRUIT, seat, clearing=c, piece=piece)
            for c in order
            if count(state, c, seat, ROOST)
            and _matches(state, c, suit)
            and not blocked_by_keep(state, c, seat)
        ]
    if column == MOVE:  # a move, or collecting a dropped item instead (R18)
        origins = [c for c in order if warriors(state, c, seat) and _matches(state, c, suit)]
        return [
            *move_commands(state, seat, CommandKind.DECREE_MOVE, origins, rule_map, piece),
            *collect_commands(state, seat, suit),
        ]
    if column == BATTLE:  # a battle, or seizing a dropped item instead (R19)
        return [
            *(
                c
                for c in battle_commands(state, seat, CommandKind.DECREE_BATTLE, piece)
                if _matches(state, c.clearing, suit)
            ),
            *seize_commands(state, seat, suit),
        ]
    if not state.seats[seat].supply.get(ROOST, 0):
        return []
    assert rule_map is not None  # set above for the build column
    return [
        Command(CommandKind.DECREE_BUILD, seat, clearing=c, piece=piece)
        for c in order
        if _matches(state, c, suit)
        and rule_map[c] is seat.team
        and not count(state, c, seat, ROOST)
        and open_slots(state, c) > 0
        and not blocked_by_keep(state, c, seat)
    ]


def isolation(state: State) -> bool:
    """R24: Imperial Isolation protects the Eyrie in rounds 1 and 2 only."""
    return 1 <= state.round <= ISOLATION_ROUNDS


def on_rival_map(state: State, seat: Seat, cmd: Command) -> bool:
    """Does this resolution involve the rival map (its location, origin or destination)?"""
    rival = HOME_MAP[other_team(seat.team)]
    b = board()
    return any(b.map_of(c) == rival for c in (cmd.clearing, cmd.to) if c)


def decree_commands(state: State, seat: Seat) -> list[Command]:
    """The Decree step: resolve any pending card of the current column; in rounds 1-2 skip
    one whose every legal resolution involves the rival map (R24)."""
    column = current_column(state, seat)
    if column is None:
        return []
    out: list[Command] = []
    rule_map = rulers(state) if column in (MOVE, BUILD) else None
    for suit in sorted(pending(state, seat, column)):
        options = resolutions(state, seat, column, suit, rule_map)
        out.extend(options)
        if options and isolation(state) and all(on_rival_map(state, seat, o) for o in options):
            out.append(Command(CommandKind.SKIP_DECREE_CARD, seat, piece=suit.value))
    cards = daylight_commands(state, seat)
    if out:
        # A collect or seizure (R18, R19) in a clearing of suit s is listed under s and under
        # bird; it is one command (``resolve`` spends the clearing's own suit first).
        return list(dict.fromkeys(out)) + cards
    # Stuck: a Daylight card action may still be used, and ending the step means Turmoil.
    # With no card action, the lone END_PHASE is passed by itself: Turmoil follows at once.
    return [*cards, Command(CommandKind.END_PHASE, seat)]


def decree_suit(state: State, seat: Seat, column: str, clearing: str) -> Suit:
    """The pending ``column`` card a collect or seizure in ``clearing`` resolves: one of the
    clearing's suit when pending, else a bird (keeping the wild card is never worse)."""
    own = Suit(state.suits[clearing])
    return own if own in pending(state, seat, column) else Suit.BIRD


def resolve(ctx: Ctx, cmd: Command) -> None:
    state = ctx.state
    seat = cmd.seat
    column = current_column(state, seat)
    if column is None:  # pragma: no cover - decide only accepts legal commands
        raise CorruptEvent("the Decree is already resolved")
    if cmd.kind in (CommandKind.COLLECT, CommandKind.SEIZE):  # piece = the item (R18, R19)
        suit = decree_suit(state, seat, column, cmd.clearing)
    else:
        suit = Suit(cmd.piece)
    ctx.use(seat, resolved_key(column, suit))
    if cmd.kind is CommandKind.COLLECT:
        do_collect(ctx, cmd)
    elif cmd.kind is CommandKind.SEIZE:
        do_seize(ctx, cmd)
    elif cmd.kind is CommandKind.SKIP_DECREE_CARD:
        ctx.emit(EventKind.DECREE_CARD_SKIPPED, seat=seat.value, piece=suit.value, text=column)
    elif cmd.kind is CommandKind.DECREE_RECRUIT:
        ctx.place(seat, cmd.clearing, WARRIOR, recruit_count(state, seat), reason="recruit")
    elif cmd.kind is CommandKind.DECREE_MOVE:
        do_move(ctx, cmd)
    elif cmd.kind is CommandKind.DECREE_BATTLE:
        start_battle(ctx, seat, cmd.clearing, Seat(cmd.target))
    elif cmd.kind is CommandKind.DECREE_BUILD:
        ctx.place(seat, cmd.clearing, ROOST, 1, reason="build")


def after_decree(ctx: Ctx, seat: Seat) -> None:
    """Entering the rest of Daylight: a Decree left unresolved means Turmoil."""
    if current_column(ctx.state, seat) is not None:
        turmoil(ctx, seat)


def turmoil(ctx: Ctx, seat: Seat) -> None:
    """Humiliate, purge, depose (the new leader is a decision), then rest: Evening at once."""
    ey = eyrie(ctx.state, seat)
    entries = [e for column in COLUMNS for e in ey.decree[column]]
    birds = sum(1 for e in entries if entry_suit(e) is Suit.BIRD)
    ctx.emit(EventKind.TURMOIL, seat=seat.value, count=birds)
    ctx.score(seat, -birds, "turmoil: humiliate")
    purged = tuple(e for e in entries if not is_vizier(e))
    if purged:
        ctx.emit(EventKind.DECREE_PURGED, seat=seat.value, cards=purged)
    ctx.emit(EventKind.LEADER_DEPOSED, seat=seat.value, piece=ey.leader)
    ctx.ask(seat, LEADER_DECISION)
    goto(ctx, seat, "evening.start")


def leader_decision_commands(state: State, d: Decision) -> list[Command]:
    return leader_commands(state, d.seat)


def answer_leader(ctx: Ctx, cmd: Command, d: Decision) -> None:
    ctx.close_decision()
    choose_leader(ctx, cmd)


def choose_leader(ctx: Ctx, cmd: Command) -> None:
    ctx.emit(EventKind.LEADER_CHOSEN, seat=cmd.seat.value, piece=cmd.piece)


# ----- Evening --------------------------------------------------------------------------------


def score_roosts(ctx: Ctx, seat: Seat) -> None:
    ctx.score(seat, ROOST_VP[roosts_on_map(ctx.state, seat)], "roosts")


def evening_draw_count(state: State, seat: Seat) -> int:
    n = roosts_on_map(state, seat)
    return 1 + sum(1 for at in DRAW_BONUS_AT if n >= at)


def evening_draw(ctx: Ctx, seat: Seat) -> None:
    ctx.draw(seat, evening_draw_count(ctx.state, seat))


# ----- wiring ---------------------------------------------------------------------------------


def starting_supply(spec: SeatSpec) -> dict[str, int]:
    return {WARRIOR: WARRIORS, ROOST: ROOSTS}


def step_commands(state: State, seat: Seat, step: str) -> list[Command]:
    if step.startswith("setup."):
        return setup_commands(state, seat, step)
    if step == "birdsong.decree":
        return add_commands(state, seat)
    if step == "birdsong.roost":
        return new_roost_commands(state, seat)
    if step == "daylight.decree":
        return decree_commands(state, seat)
    return []


_DECREE_KINDS = frozenset(
    {
        CommandKind.DECREE_RECRUIT,
        CommandKind.DECREE_MOVE,
        CommandKind.DECREE_BATTLE,
        CommandKind.DECREE_BUILD,
        CommandKind.SKIP_DECREE_CARD,
        CommandKind.COLLECT,  # a Move card resolved by collecting a dropped item (R18)
        CommandKind.SEIZE,  # a Battle card resolved by seizing a dropped item (R19)
    }
)


def execute(ctx: Ctx, cmd: Command) -> None:
    kind = cmd.kind
    if kind is CommandKind.PLACE_ROOST:
        if ctx.state.step == "setup.roost":
            _place_roost(ctx, cmd.seat, cmd.clearing, SETUP_WARRIORS, "setup")
        else:
            _place_roost(ctx, cmd.seat, cmd.clearing, NEW_ROOST_WARRIORS, "new roost")
    elif kind is CommandKind.CHOOSE_LEADER:
        choose_leader(ctx, cmd)
    elif kind is CommandKind.ADD_TO_DECREE:
        add_to_decree(ctx, cmd)
    elif kind in _DECREE_KINDS:
        resolve(ctx, cmd)
    else:  # pragma: no cover - decide only routes legal commands here
        raise CorruptEvent(f"the Eyrie cannot execute {kind.value}")


# ----- evolve -----------------------------------------------------------------------------------


def _leader_chosen(state: State, e: Event) -> None:
    ey = eyrie(state, Seat(e.seat))
    if e.piece not in ey.candidates:
        raise CorruptEvent(f"leader {e.piece} is not face up")
    ey.candidates.remove(e.piece)
    ey.leader = e.piece
    for column in COLUMNS:  # (re)tuck the viziers as the new leader requires
        ey.decree[column] = [x for x in ey.decree[column] if not is_vizier(x)]
    for vizier, column in zip(VIZIERS, VIZIER_COLUMNS[e.piece], strict=True):
        ey.decree[column].append(vizier)


def _leader_deposed(state: State, e: Event) -> None:
    ey = eyrie(state, Seat(e.seat))
    if ey.leader != e.piece:
        raise CorruptEvent(f"{e.piece} is not the leader")
    ey.deposed.append(ey.leader)
    ey.leader = ""
    if not ey.candidates:  # a new clutch: all four face up again
        ey.candidates = list(LEADERS)
        ey.deposed = []


def _decree_added(state: State, e: Event) -> None:
    seat = Seat(e.seat)
    cid = e.cards[0]
    hand = state.seats[seat].hand
    if cid not in hand:
        raise CorruptEvent(f"{seat.value} does not hold {cid}")
    hand.remove(cid)
    eyrie(state, seat).decree[e.piece].append(cid)


def _decree_purged(state: State, e: Event) -> None:
    ey = eyrie(state, Seat(e.seat))
    for cid in e.cards:
        for column in COLUMNS:
            if cid in ey.decree[column]:
                ey.decree[column].remove(cid)
                break
        else:
            raise CorruptEvent(f"{cid} is not on the Decree")
        state.discard.append(cid)


def _noop(state: State, e: Event) -> None:
    return None


RULES = FactionRules(
    faction=Faction.EYRIE,
    supply=starting_supply,
    setup_steps=("setup.roost", "setup.leader"),
    turn_steps=(
        "birdsong.start",
        "birdsong.decree",
        "birdsong.roost",
        "birdsong.cards",
        "daylight.start",
        "daylight.craft",
        "daylight.decree",
        "daylight.actions",
        "evening.start",
        "evening.score",
        "evening.draw",
        "evening.discard",
    ),
    enter={
        "birdsong.decree": emergency_orders,
        "daylight.actions": after_decree,
        "evening.score": score_roosts,
        "evening.draw": evening_draw,
    },
    step_commands=step_commands,
    setup_done=setup_done,
    kinds=frozenset(
        {
            CommandKind.PLACE_ROOST,
            CommandKind.CHOOSE_LEADER,
            CommandKind.ADD_TO_DECREE,
            *_DECREE_KINDS,
        }
    ),
    execute=execute,
    daylight_main_step="daylight.actions",
    crafting_piece=ROOST,
    decisions={LEADER_DECISION: (leader_decision_commands, answer_leader)},
    new_state=new_state,
    evolve={
        EventKind.LEADER_CHOSEN: _leader_chosen,
        EventKind.LEADER_DEPOSED: _leader_deposed,
        EventKind.DECREE_ADDED: _decree_added,
        EventKind.DECREE_PURGED: _decree_purged,
        EventKind.DECREE_CARD_SKIPPED: _noop,
        EventKind.TURMOIL: _noop,
    },
    item_vp=crafted_item_vp,
    attacker_extra_hits=attacker_extra_hits,
    building_removed=despot_bonus,
)
