"""Field Hospitals (base Marquise) and Shared Field Hospitals (R22).

Base: whenever Marquise warriors are removed from one clearing, for any reason, while its
keep is on the map, the Marquise may spend a card matching that clearing to put them in the
keep clearing.  R22 extends it to teammates' warriors removed *in battle* on the team's home
map.  The answer is a decision of the Marquise's seat, which may not be the active seat.
"""

from __future__ import annotations

from .board import HOME_MAP, board
from .cards import payable
from .ctx import Ctx
from .model import Command, CommandKind, EventKind, Faction, Seat
from .movement import suit_of
from .pieces import WARRIOR, keep_clearing
from .state import Decision, State


def hospital_seat(state: State, owner: Seat, clearing: str, in_battle: bool) -> Seat | None:
    if state.lineup[owner].faction is Faction.MARQUISE:
        return owner
    if not in_battle or board().map_of(clearing) != HOME_MAP[owner.team]:
        return None
    for seat in state.order:
        if seat.team is owner.team and state.lineup[seat].faction is Faction.MARQUISE:
            return seat
    return None


def _paying_cards(state: State, marquise: Seat, clearing: str) -> list[str]:
    return payable(state.seats[marquise].hand, suit_of(state, clearing))


def offer_field_hospitals(
    ctx: Ctx, owner: Seat, clearing: str, count: int, *, in_battle: bool
) -> None:
    state = ctx.state
    marquise = hospital_seat(state, owner, clearing, in_battle)
    if marquise is None or count <= 0 or keep_clearing(state, marquise) is None:
        return
    if not state.seats[marquise].hand:  # R4: any card opens it (DECLINE only without a match)
        return
    ctx.ask(marquise, "field_hospitals", clearing=clearing, count=count, target=owner.value)


def decision_commands(state: State, d: Decision) -> list[Command]:
    out = [
        Command(CommandKind.FIELD_HOSPITALS, d.seat, clearing=d.clearing, cards=(cid,))
        for cid in _paying_cards(state, d.seat, d.clearing)
    ]
    out.append(Command(CommandKind.DECLINE, d.seat))
    return out


def answer(ctx: Ctx, cmd: Command, d: Decision) -> None:
    ctx.close_decision()
    if cmd.kind is CommandKind.DECLINE:
        ctx.emit(EventKind.DECISION_DECLINED, seat=cmd.seat.value, text="field_hospitals")
        return
    keep = keep_clearing(ctx.state, cmd.seat)
    assert keep is not None
    owner = Seat(d.target)
    ctx.discard(cmd.seat, cmd.cards, "field hospitals")
    available = ctx.state.seats[owner].supply.get(WARRIOR, 0)
    ctx.place(owner, keep, WARRIOR, min(d.count, available), reason="field hospitals")
