"""The Vagabond's decisions: which item a hit damages, what a Hideout repairs, the Legendary
Ability (R29), the item taken by Looting (R28) or an aid, R15 intervention and the War
Veteran's reroll (R29).
"""

from __future__ import annotations

from .. import rng
from ..battle import set_hits
from ..ctx import Ctx
from ..model import Command, CommandKind, EventKind, Seat
from ..state import Decision, State
from ..vagabond_state import (
    DAMAGE_DECISION,
    INTERVENTION,
    LEGENDARY_ABILITIES,
    LOOT_DECISION,
    REROLL_DECISION,
    intervention_options,
    keys,
    vstate,
)
from .vagabond_actions import AID_TAKE, HIDEOUT, LEGENDARY, hideout_repairs
from .vagabond_battle import take_hits

DIE_FACES = 4  # a Root die shows 0-3


def decision_commands(state: State, d: Decision) -> list[Command]:
    seat = d.seat
    vs = vstate(state, seat)
    if d.kind == DAMAGE_DECISION:
        undamaged = [i for i in vs.items if not i.damaged]
        return [Command(CommandKind.DAMAGE_ITEM, seat, piece=k) for k in keys(undamaged)]
    if d.kind == HIDEOUT:
        damaged = [i for i in vs.items if i.damaged]
        return [Command(CommandKind.REPAIR, seat, piece=k) for k in keys(damaged)]
    if d.kind == LEGENDARY:
        return [Command(CommandKind.CHOOSE_LEGENDARY, seat, piece=a) for a in LEGENDARY_ABILITIES]
    if d.kind in (LOOT_DECISION, AID_TAKE):
        items = sorted({i.value for i in state.seats[Seat(d.target)].crafted_items})
        out = [Command(CommandKind.TAKE_ITEM, seat, piece=i, target=d.target) for i in items]
        return out if d.kind == LOOT_DECISION else [*out, Command(CommandKind.DECLINE, seat)]
    decline = Command(CommandKind.DECLINE, seat)
    if d.kind == INTERVENTION:
        b = state.battle
        assert b is not None
        offer = intervention_options(state, b)
        pieces = offer[1] if offer is not None else []
        return [*(Command(CommandKind.INTERVENE, seat, piece=p) for p in pieces), decline]
    if d.kind == REROLL_DECISION:
        return [Command(CommandKind.REROLL, seat), decline]
    return []


def answer(ctx: Ctx, cmd: Command, d: Decision) -> None:
    state = ctx.state
    seat = cmd.seat
    ctx.close_decision()
    if cmd.kind is CommandKind.DECLINE:
        ctx.emit(EventKind.DECISION_DECLINED, seat=seat.value, text=d.kind)
    if d.kind == DAMAGE_DECISION:
        ctx.emit(EventKind.ITEM_DAMAGED, seat=seat.value, piece=cmd.piece)
        take_hits(ctx, seat, d.count - 1, Seat(d.target) if d.target else None)
    elif d.kind == HIDEOUT:
        ctx.emit(EventKind.ITEM_REPAIRED, seat=seat.value, piece=cmd.piece)
        hideout_repairs(ctx, seat, d.count - 1)
    elif d.kind == LEGENDARY:
        ctx.emit(EventKind.LEGENDARY_GAINED, seat=seat.value, piece=cmd.piece)
    elif d.kind in (LOOT_DECISION, AID_TAKE):
        if cmd.kind is CommandKind.TAKE_ITEM:
            ctx.emit(
                EventKind.ITEM_GAINED,
                seat=seat.value,
                piece=cmd.piece,
                target=d.target,
                clearing=d.clearing,
                text="loot" if d.kind == LOOT_DECISION else "aid",
            )
    elif d.kind == INTERVENTION:
        if cmd.kind is CommandKind.INTERVENE:
            ctx.emit(EventKind.INTERVENED, seat=seat.value, piece=cmd.piece)
        ctx.emit(EventKind.BATTLE_STAGE, text="deal_defender")
    elif d.kind == REROLL_DECISION:
        b = state.battle
        assert b is not None
        if cmd.kind is CommandKind.REROLL:
            die, _ = rng.below(state.rng, DIE_FACES)
            ctx.emit(EventKind.DIE_REROLLED, seat=seat.value, values=(die,))
            set_hits(ctx, b)
        ctx.emit(EventKind.BATTLE_STAGE, text="effects_attacker")
