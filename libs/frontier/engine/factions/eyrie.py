"""Eyrie Dynasties (base Root §10) with the variant's setup (R12) and Imperial Isolation (R24).

Setup on the home map: a roost and 6 warriors in the corner diagonally opposite the team's
keep (base rules choose the corner when there is no keep), then a leader, whose two Loyal
Viziers are tucked into the Decree.  A turn: Birdsong emergency orders, 1 or 2 cards added to
the Decree (at most one bird) and a new roost when none is on the map; Daylight crafting with
roosts, then the Decree resolved column by column (recruit, move, battle, build), each card's
suit naming where; a card that cannot be resolved throws the Eyrie into Turmoil.  A Move
card may instead collect a dropped item in a matching clearing (R18), a Battle card seize one
(R19).  Evening scores the roost track and draws 1 (+1 at 3 roosts, +1 more at 6).

This module holds the setup, Birdsong, Evening, the hooks the shared rules call (Disdain for
Trade, the Commander, the Despot) and the wiring (``RULES``).  The faction board, its state
and events are in ``eyrie_board``; the Daylight Decree, Turmoil and the leader's choice in
``eyrie_decree``.
"""

from __future__ import annotations

from ..board import HOME_MAP, board
from ..cards import card, one_per_type
from ..ctx import Ctx
from ..errors import CorruptEvent
from ..model import Command, CommandKind, EventKind, Faction, Seat, Suit
from ..pieces import (
    KEEP,
    ROOST,
    WARRIOR,
    blocked_by_keep,
    open_slots,
)
from ..state import Battle, SeatSpec, State
from .base import FactionRules
from .eyrie_board import (
    ADDED,
    ADDED_BIRD,
    BUILDER,
    COLUMNS,
    COMMANDER,
    DESPOT,
    DESPOT_EFFECT,
    DRAW_BONUS_AT,
    EVOLVE,
    LEADER_DECISION,
    MAX_ADDED,
    NEW_ROOST_WARRIORS,
    ROOST_VP,
    ROOSTS,
    SETUP_WARRIORS,
    WARRIORS,
    leader_of,
    new_state,
    roosts_on_map,
)
from .eyrie_decree import (
    DECREE_KINDS,
    after_decree,
    answer_leader,
    choose_leader,
    decree_commands,
    leader_commands,
    leader_decision_commands,
    resolve,
)

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
    elif kind in DECREE_KINDS:
        resolve(ctx, cmd)
    else:  # pragma: no cover - decide only routes legal commands here
        raise CorruptEvent(f"the Eyrie cannot execute {kind.value}")


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
            *DECREE_KINDS,
        }
    ),
    execute=execute,
    daylight_main_step="daylight.actions",
    crafting_piece=ROOST,
    decisions={LEADER_DECISION: (leader_decision_commands, answer_leader)},
    new_state=new_state,
    evolve=dict(EVOLVE),
    item_vp=crafted_item_vp,
    attacker_extra_hits=attacker_extra_hits,
    building_removed=despot_bonus,
)
