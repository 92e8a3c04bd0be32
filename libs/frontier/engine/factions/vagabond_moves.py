"""The Vagabond's pawn on the move (base Root §12.2): the Birdsong slip and the Daylight
move with boots, across Border Bridges (a fee card, R7; Forest Ghost, R29; the team Eyrie's
wings, R23), with Vanguard Leader's allied warrior (R29) or the warriors of a rival faction
it is Allied with (R34).

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
    ALLIED,
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


def companions(state: State, seat: Seat, here: str) -> list[tuple[str, int, tuple[str, ...]]]:
    """Who may move along with the pawn from ``here``, as (seat, ``Command.count``,
    ``Command.clearings``): ``("", 0, ())`` alone; with Vanguard Leader (R29) 1 warrior of an
    ally (count 0); any number ``k`` of the warriors of a rival faction the Vagabond is Allied
    with (R34, Law 9.2.9; count ``k``).  Each carries its contraband here along or not (R17)."""
    out: list[tuple[str, int, tuple[str, ...]]] = [("", 0, ())]
    if not is_clearing(here):
        return out
    vs = vstate(state, seat)
    vanguard = vs.legendary == VANGUARD_LEADER
    for other in state.order:
        if other is seat:
            continue
        n = warriors(state, here, other)
        if n == 0:
            continue
        if other.team is seat.team:
            if vanguard:
                out.extend(
                    (other.value, 0, carry) for carry in carry_options(state, other, here, 1)
                )
        elif vs.relations.get(other.value) == ALLIED:
            for k in range(1, n + 1):
                out.extend((other.value, k, c) for c in carry_options(state, other, here, k))
    return out


def move_commands(state: State, seat: Seat) -> list[Command]:
    vs = vstate(state, seat)
    boots = ready(vs, Item.BOOTS)
    if boots == 0:
        return []
    b = board()
    here = vs.location
    dests = b.adjacent[here] if is_clearing(here) else b.forests[here]
    company = companions(state, seat, here)
    out: list[Command] = []
    for dest in dests:
        if boots_cost(state, seat, dest) > boots:
            continue
        for cards, piece in crossings(state, seat, here, dest):
            for other, k, carry in company:
                out.append(
                    Command(
                        CommandKind.VAGABOND_MOVE,
                        seat,
                        to=dest,
                        count=k,
                        cards=cards,
                        piece=piece,
                        target=other,
                        clearings=carry,
                    )
                )
    return out


def move(ctx: Ctx, cmd: Command) -> None:
    """Nimble: rule never matters.  Vanguard Leader (R29) takes 1 allied warrior along
    (``count`` 0); an Allied rival's ``count`` warriors may go along too (R34)."""
    state = ctx.state
    seat = cmd.seat
    here = vstate(state, seat).location
    exhaust(ctx, seat, Item.BOOTS, boots_cost(state, seat, cmd.to))
    cross(ctx, seat, here, cmd.to, cmd)
    ctx.emit(EventKind.PAWN_MOVED, seat=seat.value, clearing=here, to=cmd.to, text="move")
    vagabond_crossed(ctx, seat, here, cmd.to)  # R20: contraband home
    if cmd.target:
        other = Seat(cmd.target)
        ctx.move(other, here, cmd.to, cmd.count or 1, WARRIOR)
        move_with(ctx, other, here, cmd.to, carry=bool(cmd.clearings))  # R17
        after_warriors_moved(ctx, seat, cmd.to)  # the Vagabond is the mover (R25)
