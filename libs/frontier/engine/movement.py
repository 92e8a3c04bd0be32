"""Movement: rule requirements, Border Bridge fees (R6, R7, R8).

A move takes warriors from one clearing to an adjacent one; the mover's team must rule the
origin or the destination (R13).  Crossing a bridge costs one card matching the destination
(birds wild); when the rival team rules the destination with 5+ warriors, the fee card goes
to the rival seat with the most warriors there (ties: earliest in turn order) (R8).
"""

from __future__ import annotations

from .board import board
from .cards import payable
from .ctx import Ctx
from .errors import IllegalCommand
from .model import TURN_ORDER, Command, CommandKind, EventKind, Seat, Suit, other_team
from .pieces import WARRIOR, ruler, rules, warriors
from .state import State

FEE_GUARD_WARRIORS = 5  # R8


def suit_of(state: State, clearing: str) -> Suit:
    return Suit(state.suits[clearing])


def fee_options(state: State, seat: Seat, dest: str) -> list[str]:
    """One representative card per distinct printed card that can pay the fee (R7)."""
    return payable(state.seats[seat].hand, suit_of(state, dest))


def may_move(state: State, seat: Seat, origin: str, dest: str) -> bool:
    return rules(state, origin, seat) or rules(state, dest, seat)


def move_commands(
    state: State, seat: Seat, kind: CommandKind, origins: list[str] | None = None
) -> list[Command]:
    """Every legal single move for ``seat``: origin, destination, count and fee card."""
    b = board()
    out: list[Command] = []
    for origin in origins if origins is not None else b.order:
        n = warriors(state, origin, seat)
        if n == 0:
            continue
        for dest in b.adjacent[origin]:
            if not may_move(state, seat, origin, dest):
                continue
            fees: list[str] | None = None
            if b.is_bridge(origin, dest):
                fees = fee_options(state, seat, dest)
                if not fees:
                    continue
            for k in range(1, n + 1):
                if fees is None:
                    out.append(Command(kind, seat, clearing=origin, to=dest, count=k))
                else:
                    for fee in fees:
                        out.append(
                            Command(kind, seat, clearing=origin, to=dest, count=k, cards=(fee,))
                        )
    return out


def fee_recipient(state: State, seat: Seat, dest: str) -> Seat | None:
    """R8: the rival seat that receives the fee card, or None when it is discarded."""
    rival = other_team(seat.team)
    if ruler(state, dest) is not rival:
        return None
    per_seat = [(s, warriors(state, dest, s)) for s in TURN_ORDER if s.team is rival]
    if sum(n for _, n in per_seat) < FEE_GUARD_WARRIORS:
        return None
    best = max(n for _, n in per_seat)
    return next(s for s, n in per_seat if n == best)


def do_move(ctx: Ctx, cmd: Command) -> None:
    """Carry out a validated move (fee first, since R8 looks at the board before the move)."""
    state = ctx.state
    seat, origin, dest = cmd.seat, cmd.clearing, cmd.to
    if board().is_bridge(origin, dest):
        if not cmd.cards:
            raise IllegalCommand("crossing a Border Bridge needs a fee card (R7)")
        fee = cmd.cards[0]
        recipient = fee_recipient(state, seat, dest)
        ctx.emit(
            EventKind.BRIDGE_CROSSED,
            seat=seat.value,
            clearing=origin,
            to=dest,
            target=recipient.value if recipient else "",
        )
        if recipient is None:
            ctx.discard(seat, (fee,), "bridge fee")
        else:
            ctx.give(seat, recipient, (fee,), "bridge fee (R8)")
    ctx.move(seat, origin, dest, cmd.count, WARRIOR)
