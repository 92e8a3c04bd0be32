"""The Eyrie's Daylight Decree (base Root §10) with Imperial Isolation (R24), Turmoil and the
choice of a new leader.

The Decree is resolved column by column (recruit, move, battle, build), each card's suit
naming where; a Move card may instead collect a dropped item in a matching clearing (R18), a
Battle card seize one (R19).  A card that cannot be resolved throws the Eyrie into Turmoil.
Which decree cards are done this Daylight is a per-turn counter per column and suit
(``decree:<column>:<suit>``), since cards of one suit in one column are interchangeable.
"""

from __future__ import annotations

from ..battle import battle_commands
from ..battle import start as start_battle
from ..board import HOME_MAP, board
from ..card_effects import daylight_commands
from ..contraband import collect_commands, do_collect, do_seize, seize_commands
from ..ctx import Ctx
from ..errors import CorruptEvent
from ..model import Command, CommandKind, EventKind, Seat, Suit, Team, other_team
from ..movement import do_move, move_commands
from ..pieces import (
    ROOST,
    WARRIOR,
    blocked_by_keep,
    count,
    open_slots,
    rulers,
    warriors,
)
from ..state import Decision, State
from ..turn import goto
from .eyrie_board import (
    BATTLE,
    BUILD,
    CHARISMATIC,
    COLUMNS,
    ISOLATION_ROUNDS,
    LEADER_DECISION,
    LEADERS,
    MOVE,
    RECRUIT,
    entry_suit,
    eyrie,
    is_vizier,
    leader_of,
)

# ----- resolving the Decree -----------------------------------------------------------------


def resolved_key(column: str, suit: Suit) -> str:
    # ``str(suit)`` is the value (a StrEnum), without the Python-level ``.value`` property.
    return f"decree:{column}:{suit!s}"


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
    # A StrEnum equals its value: no Python-level ``.value`` call per clearing.
    return suit is Suit.BIRD or state.suits[clearing] == suit


def recruit_count(state: State, seat: Seat) -> int:
    return 2 if leader_of(state, seat) == CHARISMATIC else 1


def short_recruit(state: State, seat: Seat, column: str) -> bool:
    """A Recruit card with fewer warriors in supply than it places (the Charismatic's 2):
    the Eyrie places what is left, then falls into Turmoil (Law 1.5.4: do as much as
    possible).  In rounds 1-2 it is a card the Eyrie cannot resolve, so it may skip it (R24)."""
    return column == RECRUIT and state.seats[seat].supply.get(WARRIOR, 0) < recruit_count(
        state, seat
    )


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
        if not state.seats[seat].supply.get(WARRIOR, 0):
            return []  # nothing to place: Turmoil (a short supply places what is left)
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
    one that cannot be resolved on the home map alone (R24, revised): every legal resolution
    involves the rival map, or there is none at all (the manual's example: the only Foxes
    with enemies are on the rival map, where the Eyrie has no warriors)."""
    column = current_column(state, seat)
    if column is None:
        return []
    out: list[Command] = []
    rule_map = rulers(state) if column in (MOVE, BUILD) else None
    for suit in sorted(pending(state, seat, column)):
        options = resolutions(state, seat, column, suit, rule_map)
        out.extend(options)
        if isolation(state) and (
            short_recruit(state, seat, column) or all(on_rival_map(state, seat, o) for o in options)
        ):
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
        short = short_recruit(state, seat, column)
        n = min(recruit_count(state, seat), state.seats[seat].supply.get(WARRIOR, 0))
        ctx.place(seat, cmd.clearing, WARRIOR, n, reason="recruit")
        if short:  # Charismatic with 1 warrior left: as much as possible, then Turmoil
            turmoil(ctx, seat)
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


def leader_commands(state: State, seat: Seat) -> list[Command]:
    ey = eyrie(state, seat)
    if ey.leader:
        return []
    return [
        Command(CommandKind.CHOOSE_LEADER, seat, piece=leader)
        for leader in LEADERS
        if leader in ey.candidates
    ]


DECREE_KINDS = frozenset(
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
