"""Movement: rule requirements, Border Bridge fees (R6, R7, R8).

A move takes warriors from one clearing to an adjacent one; the mover's team must rule the
origin or the destination (R13).  The contraband the mover carries in the origin goes along
when the move says so (``Command.clearings = (origin,)``), and must when no warrior stays
(R17, :mod:`frontier.engine.contraband`).  Crossing a bridge costs one card matching the destination
(birds wild); when the rival team rules the destination with 5+ warriors, the fee card goes
to the rival seat with the most warriors there (ties: earliest in turn order) (R8).

Wings of the Alliance (R23): a move by a teammate of an Eyrie from or into a clearing with
that Eyrie's roost may fly (``piece="wings"``): no bridge fee, and leaving the roost clearing
needs no rule.  A flight is only offered when it waives something; it leaves the mover owing
its Eyrie one card (any), asked as a decision at the end of the mover's turn.
"""

from __future__ import annotations

from .board import board
from .cards import one_per_type, payable
from .contraband import carry_loads, move_with, plain_loads
from .ctx import Ctx
from .errors import IllegalCommand
from .model import (
    EMPTY,
    TEAM_OF,
    TURN_ORDER,
    Command,
    CommandKind,
    EventKind,
    Faction,
    Seat,
    Suit,
    Team,
    other_team,
    suit_named,
)
from .pieces import ROOST, WARRIOR, ruler, rulers, rules, warriors
from .state import Decision, State
from .sympathy import after_warriors_moved

FEE_GUARD_WARRIORS = 5  # R8
WINGS = "wings"  # Command.piece of a move flown on the team Eyrie's wings (R23)
WINGS_USED = "wings_r23"  # per-turn counter: the mover flew at least once this turn
WINGS_PAID = "wings_r23_paid"  # per-turn counter: the card owed for it was given
FEED_EYRIE = "feed_eyrie"  # the decision asking for that card


def suit_of(state: State, clearing: str) -> Suit:
    return suit_named(state.suits[clearing])


def fee_options(state: State, seat: Seat, dest: str) -> list[str]:
    """One representative card per distinct printed card that can pay the fee (R7)."""
    return payable(state.seats[seat].hand, suit_of(state, dest))


def may_move(
    state: State, seat: Seat, origin: str, dest: str, rule_map: dict[str, Team | None] | None = None
) -> bool:
    if rule_map is None:
        return rules(state, origin, seat) or rules(state, dest, seat)
    return rule_map[origin] is seat.team or rule_map[dest] is seat.team


def move_commands(
    state: State,
    seat: Seat,
    kind: CommandKind,
    origins: list[str] | None = None,
    rule_map: dict[str, Team | None] | None = None,
    piece: str = "",
) -> list[Command]:
    """Every legal single move for ``seat``: origin, destination, count and fee card.

    ``rule_map`` is :func:`rulers` of ``state`` when the caller already has it; ``piece``,
    when given, is the ``piece`` of every move (the Eyrie's Decree suit) instead of "" or
    :data:`WINGS`.  This is the largest enumeration of a Daylight (dozens of moves per
    call), so the loop reads the board tables and piece counts directly and builds each
    command positionally (kind, seat, clearing, to, count, target, piece, cards, clearings).
    """
    b = board()
    paths = b.paths
    eyrie = team_eyrie(state, seat)
    if rule_map is None:
        rule_map = rulers(state)
    team = TEAM_OF[seat]
    pieces, carried = state.pieces, state.carried
    wings = piece or WINGS
    out: list[Command] = []
    append = out.append
    for origin in origins if origins is not None else b.order:
        here = pieces[origin]
        mine = here.get(seat)
        n = mine.get(WARRIOR, 0) if mine else 0
        if n == 0:
            continue
        # (warriors moved, ``clearings``): the contraband carried here goes along or not (R17)
        loads = carry_loads(state, seat, origin, n) if carried.get(origin) else plain_loads(n)
        roost_here = eyrie is not None and _has_roost(here, eyrie)
        origin_ruled = rule_map[origin] is team
        for dest, bridge in paths[origin]:
            ruled = origin_ruled or rule_map[dest] is team
            if ruled:
                if bridge:
                    fees = fee_options(state, seat, dest)
                    for k, carry in loads:
                        for fee in fees:
                            append(Command(kind, seat, origin, dest, k, "", piece, (fee,), carry))
                else:
                    for k, carry in loads:
                        append(Command(kind, seat, origin, dest, k, "", piece, EMPTY, carry))
            # R23: fly when it waives the fee (from or into a roost clearing) or the rule
            # requirement (only when leaving the roost clearing).
            if eyrie is None:
                continue
            if (
                bridge and (ruled or roost_here) and (roost_here or _has_roost(pieces[dest], eyrie))
            ) or (not ruled and roost_here):
                for k, carry in loads:
                    append(Command(kind, seat, origin, dest, k, "", wings, EMPTY, carry))
    return out


def _has_roost(per_seat: dict[Seat, dict[str, int]], eyrie: Seat) -> bool:
    kinds = per_seat.get(eyrie)
    return bool(kinds and kinds.get(ROOST, 0) > 0)


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


def pay_bridge_fee(
    ctx: Ctx, seat: Seat, origin: str, dest: str, cards: tuple[str, ...], text: str = ""
) -> None:
    """R7/R8: the fee card of a bridge crossing, discarded or given to the guarding rival
    (``text`` names what crossed when it is not the mover's pieces: ``wood``, R26)."""
    if not cards:
        raise IllegalCommand("crossing a Border Bridge needs a fee card (R7)")
    recipient = fee_recipient(ctx.state, seat, dest)
    ctx.emit(
        EventKind.BRIDGE_CROSSED,
        seat=seat.value,
        clearing=origin,
        to=dest,
        target=recipient.value if recipient else "",
        text=text,
    )
    if recipient is None:
        ctx.discard(seat, cards[:1], "bridge fee")
    else:
        ctx.give(seat, recipient, cards[:1], "bridge fee (R8)")


def do_move(ctx: Ctx, cmd: Command) -> None:
    """Carry out a validated move (fee first, since R8 looks at the board before the move)."""
    seat, origin, dest = cmd.seat, cmd.clearing, cmd.to
    if cmd.piece == WINGS:  # R23: no fee, no rule needed; a card is owed at end of turn
        if board().is_bridge(origin, dest):
            ctx.emit(
                EventKind.BRIDGE_CROSSED, seat=seat.value, clearing=origin, to=dest, text=WINGS
            )
        ctx.use(seat, WINGS_USED)
    elif board().is_bridge(origin, dest):
        pay_bridge_fee(ctx, seat, origin, dest, cmd.cards)
    ctx.move(seat, origin, dest, cmd.count, WARRIOR)
    move_with(ctx, seat, origin, dest, carry=bool(cmd.clearings))  # contraband (R17)
    after_warriors_moved(ctx, seat, dest)  # Outrage Without Borders (R25)


# ----- Wings of the Alliance (R23) ------------------------------------------------------------


def team_eyrie(state: State, seat: Seat) -> Seat | None:
    """The Eyrie seat of ``seat``'s team, if it is not ``seat`` itself."""
    for other in state.order:
        if (
            other is not seat
            and other.team is seat.team
            and state.lineup[other].faction is Faction.EYRIE
        ):
            return other
    return None


def ask_wings_card(ctx: Ctx, seat: Seat) -> bool:
    """End of ``seat``'s turn: if it flew on its Eyrie's wings, ask for the card it owes
    (nothing is owed with an empty hand).  True when the decision was asked."""
    state = ctx.state
    if not state.used.get(WINGS_USED) or state.used.get(WINGS_PAID):
        return False
    eyrie = team_eyrie(state, seat)
    if eyrie is None or not state.seats[seat].hand:
        return False
    ctx.ask(seat, FEED_EYRIE, target=eyrie.value)
    return True


def wings_decision_commands(state: State, d: Decision) -> list[Command]:
    return [
        Command(CommandKind.FEED_EYRIE, d.seat, cards=(cid,))
        for cid in one_per_type(state.seats[d.seat].hand)
    ]


def answer_wings(ctx: Ctx, cmd: Command, d: Decision) -> None:
    ctx.close_decision()
    ctx.give(cmd.seat, Seat(d.target), cmd.cards, "wings of the alliance (R23)")
    ctx.use(cmd.seat, WINGS_PAID)
