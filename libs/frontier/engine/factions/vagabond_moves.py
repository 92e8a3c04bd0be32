"""The Vagabond's pawn on the move (base Root §12.2): the Birdsong slip and the Daylight
move with boots, across Border Bridges (a fee card, R7; Forest Ghost, R29; the team Eyrie's
wings, R23), with Vanguard Leader's allied warrior (R29).

Items are exhausted through :func:`exhaust`, which the Vagabond's other actions share.
"""

from __future__ import annotations

from ..board import board
from ..contraband import carry_options, move_with, vagabond_crossed
from ..ctx import Ctx
from ..model import Command, CommandKind, EventKind, Item, Seat
from ..movement import (
    WINGS,
    WINGS_USED,
    fee_options,
    pay_bridge_fee,
    team_eyrie,
)
from ..pieces import (
    ROOST,
    WARRIOR,
    count,
    warriors,
)
from ..state import State
from ..sympathy import after_warriors_moved
from ..vagabond_state import (
    FOREST_GHOST,
    HOSTILE,
    VANGUARD_LEADER,
    is_clearing,
    ready,
    vstate,
)

SLIP = "slip"  # per-turn counter: the Birdsong slip is used


def exhaust(ctx: Ctx, seat: Seat, item: Item, n: int = 1) -> None:
    ctx.emit(EventKind.ITEMS_EXHAUSTED, seat=seat.value, piece=item.value, count=n)


def hostile_warriors(state: State, seat: Seat, clearing: str) -> bool:
    vs = vstate(state, seat)
    if HOSTILE not in vs.relations.values():  # the usual case, answered without a scan
        return False
    return any(
        warriors(state, clearing, other) > 0
        for other in state.order
        if vs.relations.get(other.value) == HOSTILE
    )


def crossings(
    state: State, seat: Seat, origin: str, dest: str
) -> list[tuple[tuple[str, ...], str]]:
    """How the pawn may go from ``origin`` to ``dest``: (fee cards, piece) per option.

    Off a bridge: one free option.  Across one: a fee card (R7), none with Forest Ghost
    (R29), or none on the team Eyrie's wings when a roost stands at either end (R23).
    """
    b = board()
    if not is_clearing(origin) or not b.is_bridge(origin, dest):
        return [((), "")]
    if vstate(state, seat).legendary == FOREST_GHOST:
        return [((), FOREST_GHOST)]
    out: list[tuple[tuple[str, ...], str]] = [
        ((fee,), "") for fee in fee_options(state, seat, dest)
    ]
    eyrie = team_eyrie(state, seat)
    if eyrie is not None and (
        count(state, origin, eyrie, ROOST) or count(state, dest, eyrie, ROOST)
    ):
        out.append(((), WINGS))
    return out


def cross(ctx: Ctx, seat: Seat, origin: str, dest: str, cmd: Command) -> None:
    if not is_clearing(origin) or not board().is_bridge(origin, dest):
        return
    if cmd.piece in (WINGS, FOREST_GHOST):
        ctx.emit(
            EventKind.BRIDGE_CROSSED, seat=seat.value, clearing=origin, to=dest, text=cmd.piece
        )
        if cmd.piece == WINGS:
            ctx.use(seat, WINGS_USED)
    else:
        pay_bridge_fee(ctx, seat, origin, dest, cmd.cards)


def slip_commands(state: State, seat: Seat) -> list[Command]:
    """A free move to an adjacent clearing or forest (across a bridge it pays the fee)."""
    if state.used.get(SLIP):
        return []
    b = board()
    here = vstate(state, seat).location
    if is_clearing(here):
        places = [*b.adjacent[here], *b.clearing_forests[here]]
    else:
        places = [*b.forests[here], *b.forest_adjacent[here]]
    out = [
        Command(CommandKind.SLIP, seat, to=dest, cards=cards, piece=piece)
        for dest in places
        for cards, piece in crossings(state, seat, here, dest)
    ]
    return [*out, Command(CommandKind.END_PHASE, seat)]


def slip(ctx: Ctx, cmd: Command) -> None:
    seat = cmd.seat
    here = vstate(ctx.state, seat).location
    ctx.use(seat, SLIP)
    cross(ctx, seat, here, cmd.to, cmd)
    ctx.emit(EventKind.PAWN_MOVED, seat=seat.value, clearing=here, to=cmd.to, text="slip")
    vagabond_crossed(ctx, seat, here, cmd.to)  # R20: contraband home


# ----- Daylight: move ---------------------------------------------------------------------


def boots_cost(state: State, seat: Seat, dest: str) -> int:
    """1 boots, +1 into a clearing with warriors of a Hostile faction."""
    return 1 + (1 if hostile_warriors(state, seat, dest) else 0)


def move_commands(state: State, seat: Seat) -> list[Command]:
    vs = vstate(state, seat)
    boots = ready(vs, Item.BOOTS)
    if boots == 0:
        return []
    b = board()
    here = vs.location
    here_clearing = is_clearing(here)
    dests = b.adjacent[here] if here_clearing else b.forests[here]
    allies: list[Seat] = []
    if vs.legendary == VANGUARD_LEADER and here_clearing:
        allies = [
            s
            for s in state.order
            if s.team is seat.team and s is not seat and warriors(state, here, s) > 0
        ]
    # (ally, clearings): the ally's contraband here goes along with its warrior or not (R17)
    company: list[tuple[str, tuple[str, ...]]] = [("", ())]
    for ally in allies:
        company.extend((ally.value, carry) for carry in carry_options(state, ally, here, 1))
    out: list[Command] = []
    for dest in dests:
        if boots_cost(state, seat, dest) > boots:
            continue
        for cards, piece in crossings(state, seat, here, dest):
            for ally_value, carry in company:
                out.append(
                    Command(
                        CommandKind.VAGABOND_MOVE,
                        seat,
                        to=dest,
                        cards=cards,
                        piece=piece,
                        target=ally_value,
                        clearings=carry,
                    )
                )
    return out


def move(ctx: Ctx, cmd: Command) -> None:
    """Nimble: rule never matters.  Vanguard Leader (R29) takes 1 allied warrior along."""
    state = ctx.state
    seat = cmd.seat
    here = vstate(state, seat).location
    exhaust(ctx, seat, Item.BOOTS, boots_cost(state, seat, cmd.to))
    cross(ctx, seat, here, cmd.to, cmd)
    ctx.emit(EventKind.PAWN_MOVED, seat=seat.value, clearing=here, to=cmd.to, text="move")
    vagabond_crossed(ctx, seat, here, cmd.to)  # R20: contraband home
    if cmd.target:
        ally = Seat(cmd.target)
        ctx.move(ally, here, cmd.to, 1, WARRIOR)
        move_with(ctx, ally, here, cmd.to, carry=bool(cmd.clearings))  # R17
        after_warriors_moved(ctx, seat, cmd.to)  # the Vagabond is the mover (R25)
