"""Vagabond (base Root §12): Thief, Tinker and Ranger, one per team (R1, R2), with the
variant's rulings R12, R15, R16, R20, R27, R28, R29 and R34.

Setup: the pawn in a forest of the home map (R12); relationship markers on Indifferent with the
three rival seats and at the top (Allied) with the two teammates (R27).  The quest deck is one
deck of 15, shared by both Vagabonds: it is shuffled with the match generator in
``setup.initial_state`` and 3 quests lie face up in ``State.quests`` for whichever Vagabond
completes them first (one physical deck and one quest row, as on a base table with two
Vagabonds).

A turn.  Birdsong: refresh 3 + 2 per face-up tea (the Vagabond picks which when it cannot
refresh everything), then one free slip to an adjacent clearing or forest.  Daylight: any
number of actions, each paid by exhausting items: move, battle (with Looting, R28), explore,
aid, quest, strike, repair, craft (on the rival map the item is contraband and, with no
warrior to carry it, dropped: R16), the character's special action and the torch pick-up of a
dropped item (R20: its team's contraband is validated when the pawn crosses a bridge home).
Evening: rest in a forest, draw 1 + coins, discard to 5, then the item limit.

This module holds the setup, Birdsong, Evening and the wiring (``RULES``); the rest is split
by concern: the pawn's moves (``vagabond_moves``), the other Daylight actions
(``vagabond_actions``), its part in battles and removals, called by the shared rules through
the registry (``vagabond_battle``), its decisions (``vagabond_decisions``) and how its events
change the state (``vagabond_events``).  Its data and the queries the core asks of it are in
:mod:`frontier.engine.vagabond_state`.
"""

from __future__ import annotations

from ..board import HOME_MAP, board
from ..ctx import Ctx
from ..model import Command, CommandKind, EventKind, Faction, Item, Seat
from ..state import SeatSpec, State
from ..vagabond_state import (
    DAMAGE_DECISION,
    INTERVENTION,
    LOOT_DECISION,
    REROLL_DECISION,
    VagabondState,
    is_clearing,
    item_limit,
    item_load,
    keys,
    on_track,
    refresh_allowance,
    starting_items,
    track_count,
    vstate,
)
from .base import FactionRules
from .vagabond_actions import (
    ACTIONS,
    AID_TAKE,
    HIDEOUT,
    LEGENDARY,
    action_commands,
    battle_commands,
)
from .vagabond_battle import battle_started, full_removal, loot, removed_by, take_hits
from .vagabond_decisions import answer, decision_commands
from .vagabond_events import EVOLVE
from .vagabond_moves import move_commands, slip_commands

EVENING_DRAW = 1


# ----- setup (R12, R27) -------------------------------------------------------------------


def new_state(spec: SeatSpec) -> VagabondState:
    assert spec.character is not None
    return VagabondState(spec.character, starting_items(spec.character))


def setup_commands(state: State, seat: Seat) -> list[Command]:
    home = HOME_MAP[seat.team]
    return [
        Command(CommandKind.PLACE_PAWN, seat, clearing=f)
        for f in board().forests
        if board().map_of(f) == home
    ]


def setup_done(state: State, seat: Seat, step: str) -> bool:
    return bool(vstate(state, seat).location)


# ----- Birdsong ---------------------------------------------------------------------------


def enter_refresh(ctx: Ctx, seat: Seat) -> None:
    """Refresh everything when the allowance covers it; otherwise the Vagabond picks."""
    vs = vstate(ctx.state, seat)
    allowance = refresh_allowance(vs)
    exhausted = [it for it in vs.items if it.exhausted]
    if len(exhausted) > allowance:
        ctx.emit(EventKind.ACTIONS_CHANGED, seat=seat.value, amount=allowance, count=0)
        return
    for it in exhausted:
        ctx.emit(EventKind.ITEM_REFRESHED, seat=seat.value, piece=it.key)


def refresh_commands(state: State, seat: Seat) -> list[Command]:
    if state.actions <= 0:
        return []
    exhausted = [it for it in vstate(state, seat).items if it.exhausted]
    return [Command(CommandKind.REFRESH, seat, piece=k) for k in keys(exhausted)]


# ----- Evening ----------------------------------------------------------------------------


def rest(ctx: Ctx, seat: Seat) -> None:
    """In a forest: repair every damaged item and turn it face up (base Root §12.2)."""
    vs = vstate(ctx.state, seat)
    if is_clearing(vs.location):
        return
    for it in [i for i in vs.items if i.damaged]:
        ctx.emit(EventKind.ITEM_REPAIRED, seat=seat.value, piece=it.key)
        if it.exhausted:
            ctx.emit(EventKind.ITEM_REFRESHED, seat=seat.value, piece=it.key)


def evening_draw(ctx: Ctx, seat: Seat) -> None:
    ctx.draw(seat, EVENING_DRAW + track_count(vstate(ctx.state, seat), Item.COINS))


def item_limit_commands(state: State, seat: Seat) -> list[Command]:
    """Over the limit, remove Satchel or damaged items (track items do not count)."""
    vs = vstate(state, seat)
    if item_load(vs) <= item_limit(vs):
        return []
    off_track = [it for it, on in zip(vs.items, on_track(vs), strict=True) if not on]
    return [Command(CommandKind.REMOVE_ITEM, seat, piece=k) for k in keys(off_track)]


# ----- turn plumbing ----------------------------------------------------------------------


def step_commands(state: State, seat: Seat, step: str) -> list[Command]:
    if step == "setup.pawn":
        return setup_commands(state, seat)
    if step == "birdsong.refresh":
        return refresh_commands(state, seat)
    if step == "birdsong.slip":
        return slip_commands(state, seat)
    if step == "daylight.actions":
        return action_commands(state, seat)
    if step == "evening.items":
        return item_limit_commands(state, seat)
    return []


def execute(ctx: Ctx, cmd: Command) -> None:
    seat = cmd.seat
    kind = cmd.kind
    if kind is CommandKind.PLACE_PAWN:
        ctx.emit(EventKind.PAWN_PLACED, seat=seat.value, to=cmd.clearing)
    elif kind is CommandKind.REFRESH:
        ctx.emit(EventKind.ITEM_REFRESHED, seat=seat.value, piece=cmd.piece)
        ctx.emit(EventKind.ACTIONS_CHANGED, seat=seat.value, amount=-1, count=0)
    elif kind is CommandKind.REMOVE_ITEM:
        ctx.emit(EventKind.ITEM_REMOVED, seat=seat.value, piece=cmd.piece, text="item limit")
    else:
        ACTIONS[kind](ctx, cmd)


_DECISION = (decision_commands, answer)

RULES = FactionRules(
    faction=Faction.VAGABOND,
    supply=lambda spec: {},  # a pawn and items, no pieces in supply
    setup_steps=("setup.pawn",),
    turn_steps=(
        "birdsong.start",
        "birdsong.refresh",
        "birdsong.slip",
        "birdsong.cards",
        "daylight.start",
        "daylight.actions",
        "evening.start",
        "evening.rest",
        "evening.draw",
        "evening.discard",
        "evening.items",
    ),
    enter={"birdsong.refresh": enter_refresh, "evening.rest": rest, "evening.draw": evening_draw},
    step_commands=step_commands,
    setup_done=setup_done,
    kinds=frozenset(
        {
            CommandKind.PLACE_PAWN,
            CommandKind.REFRESH,
            CommandKind.REMOVE_ITEM,
            CommandKind.CRAFT,  # with hammers, as a Daylight action (not decide's shared craft)
            *ACTIONS,
        }
    ),
    execute=execute,
    daylight_main_step="daylight.actions",
    decisions={
        kind: _DECISION
        for kind in (
            DAMAGE_DECISION,
            INTERVENTION,
            LOOT_DECISION,
            AID_TAKE,
            REROLL_DECISION,
            LEGENDARY,
            HIDEOUT,
        )
    },
    new_state=new_state,
    evolve=dict(EVOLVE),
    full_removal=full_removal,
    take_hits=take_hits,
    battle_started=battle_started,
    loot=loot,
    removed_by=removed_by,
    card_move_commands=move_commands,  # Cobbler: a boots move (R33)
    card_battle_commands=battle_commands,  # Command Warren: a sword battle (R33)
)
