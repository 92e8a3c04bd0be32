"""Marquise de Cat (base Root §9, with the variant's setup R12).

Setup on the home map: the keep in a corner, one warrior in each other home clearing, then a
sawmill, a workshop and a recruiter in or next to the keep clearing.  A turn: Birdsong wood
at every sawmill; Daylight crafting with workshops then up to 3 actions (battle, march,
recruit, build, overwork) plus one per bird card spent; Evening draw 1 + recruiter bonuses.
"""

from __future__ import annotations

from collections import deque

from ..battle import battle_commands
from ..battle import start as start_battle
from ..board import HOME_MAP, board
from ..cards import card, one_per_type, payable
from ..ctx import Ctx
from ..errors import IllegalCommand
from ..model import Command, CommandKind, EventKind, Faction, Seat, Suit
from ..movement import do_move, move_commands, suit_of
from ..pieces import (
    KEEP,
    MARQUISE_BUILDINGS,
    RECRUITER,
    SAWMILL,
    WARRIOR,
    WOOD,
    WORKSHOP,
    blocked_by_keep,
    clearings_with,
    count,
    keep_clearing,
    open_slots,
    rulers,
    rules,
)
from ..state import SeatSpec, State
from .base import FactionRules

TRACK_SIZE = 6
BUILD_COST = (0, 1, 2, 3, 3, 4)  # wood for the n-th building of a type (index = placed)
BUILD_VP: dict[str, tuple[int, ...]] = {
    "sawmill": (0, 1, 2, 3, 4, 5),
    "workshop": (0, 2, 2, 3, 4, 5),
    "recruiter": (0, 1, 2, 3, 3, 4),
}
ACTIONS_PER_TURN = 3
DRAW_BONUS_AT = (3, 5)  # recruiters on the map that uncover a draw bonus


def placed(state: State, seat: Seat, building: str) -> int:
    return TRACK_SIZE - state.seats[seat].supply.get(building, 0)


# ----- setup (R12) ------------------------------------------------------------------------


def setup_keep_commands(state: State, seat: Seat) -> list[Command]:
    return [
        Command(CommandKind.PLACE_KEEP, seat, clearing=c)
        for c in board().corners(HOME_MAP[seat.team])
        if not blocked_by_keep(state, c, seat)
    ]


def place_keep(ctx: Ctx, cmd: Command) -> None:
    seat = cmd.seat
    ctx.emit(EventKind.KEEP_PLACED, seat=seat.value, clearing=cmd.clearing, piece=KEEP, count=1)
    for c in board().on_map(HOME_MAP[seat.team]):
        if c != cmd.clearing:
            ctx.place(seat, c, WARRIOR, 1, reason="setup")


def setup_building_commands(state: State, seat: Seat) -> list[Command]:
    keep = keep_clearing(state, seat)
    if keep is None:
        return []
    home = HOME_MAP[seat.team]
    spots = [keep] + [c for c in board().adjacent[keep] if board().map_of(c) == home]
    missing = [b for b in MARQUISE_BUILDINGS if placed(state, seat, b) == 0]
    return [
        Command(CommandKind.PLACE_BUILDING, seat, clearing=c, piece=b)
        for b in missing
        for c in spots
        if open_slots(state, c) > 0 and not blocked_by_keep(state, c, seat)
    ]


def setup_step_done(state: State, seat: Seat, step: str) -> bool:
    if step == "setup.keep":
        return state.seats[seat].supply.get(KEEP, 0) == 0
    return all(placed(state, seat, b) > 0 for b in MARQUISE_BUILDINGS) or not (
        setup_building_commands(state, seat)
    )


def place_building(ctx: Ctx, cmd: Command) -> None:
    ctx.place(cmd.seat, cmd.clearing, cmd.piece, 1, reason="setup")


# ----- Birdsong ---------------------------------------------------------------------------


def sawmill_slots(state: State, seat: Seat) -> list[str]:
    """One entry per sawmill still owed wood this Birdsong."""
    out: list[str] = []
    for c in clearings_with(state, seat, SAWMILL):
        owed = count(state, c, seat, SAWMILL) - state.used.get(f"wood:{c}", 0)
        out.extend([c] * max(owed, 0))
    return out


def birdsong_wood(ctx: Ctx, seat: Seat) -> None:
    """Place wood at every sawmill; when wood runs short the Marquise chooses (decisions)."""
    state = ctx.state
    owed = sawmill_slots(state, seat)
    if len(owed) <= state.seats[seat].supply.get(WOOD, 0):
        for c in sorted(set(owed)):
            n = owed.count(c)
            ctx.place(seat, c, WOOD, n, reason="birdsong")
            ctx.use(seat, f"wood:{c}", n)


def wood_commands(state: State, seat: Seat) -> list[Command]:
    if state.seats[seat].supply.get(WOOD, 0) == 0:
        return []
    return [
        Command(CommandKind.PLACE_WOOD, seat, clearing=c)
        for c in sorted(set(sawmill_slots(state, seat)))
    ]


def place_wood(ctx: Ctx, cmd: Command) -> None:
    ctx.place(cmd.seat, cmd.clearing, WOOD, 1, reason="birdsong")
    ctx.use(cmd.seat, f"wood:{cmd.clearing}")


# ----- Daylight actions -------------------------------------------------------------------


def reachable_wood(state: State, seat: Seat, clearing: str) -> list[str]:
    """Clearings whose wood can pay for a building here: connected through ruled clearings.

    Wood never crosses a Border Bridge here (R26's bridge transport is not offered yet).
    Returned nearest first, so the wood nearest the building is spent first.
    """
    b = board()
    seen = {clearing}
    queue = deque([clearing])
    out: list[str] = []
    while queue:
        c = queue.popleft()
        n = count(state, c, seat, WOOD)
        out.extend([c] * n)
        for nxt in b.adjacent[c]:
            if nxt in seen or b.is_bridge(c, nxt) or not rules(state, nxt, seat):
                continue
            seen.add(nxt)
            queue.append(nxt)
    return out


def wood_by_clearing(state: State, seat: Seat) -> dict[str, int]:
    """For each ruled clearing, the wood in its connected group of ruled clearings.

    One pass over the board per enumeration (rather than a search from every candidate
    clearing): the wood a building can use is exactly its group's wood.
    """
    b = board()
    rule_map = rulers(state)
    team = seat.team
    total: dict[str, int] = {}
    for start in b.order:
        if start in total or rule_map[start] is not team:
            continue
        group = [start]
        seen = {start}
        for c in group:  # grows while iterating: a breadth-first walk
            for nxt in b.adjacent[c]:
                if nxt not in seen and rule_map[nxt] is team and not b.is_bridge(c, nxt):
                    seen.add(nxt)
                    group.append(nxt)
        wood = sum(count(state, c, seat, WOOD) for c in group)
        for c in group:
            total[c] = wood
    return total


def build_commands(state: State, seat: Seat) -> list[Command]:
    out: list[Command] = []
    wood = wood_by_clearing(state, seat)
    costs = [
        (building, BUILD_COST[n])
        for building in MARQUISE_BUILDINGS
        if (n := placed(state, seat, building)) < TRACK_SIZE
    ]
    for c in board().order:
        if c not in wood or open_slots(state, c) <= 0 or blocked_by_keep(state, c, seat):
            continue
        out.extend(
            Command(CommandKind.BUILD, seat, clearing=c, piece=building)
            for building, cost in costs
            if wood[c] >= cost
        )
    return out


def action_commands(state: State, seat: Seat) -> list[Command]:
    out: list[Command] = []
    if state.march_left > 0:
        out.extend(move_commands(state, seat, CommandKind.MARCH))
    if state.actions > 0:
        out.extend(battle_commands(state, seat))
        if state.march_left == 0:
            out.extend(move_commands(state, seat, CommandKind.MARCH))
        if (
            not state.used.get(RECRUITER)
            and clearings_with(state, seat, RECRUITER)
            and state.seats[seat].supply.get(WARRIOR, 0) > 0
        ):
            out.append(Command(CommandKind.RECRUIT, seat))
        out.extend(build_commands(state, seat))
        if state.seats[seat].supply.get(WOOD, 0) > 0:
            hand = state.seats[seat].hand
            for c in clearings_with(state, seat, SAWMILL):
                for cid in payable(hand, suit_of(state, c)):
                    out.append(Command(CommandKind.OVERWORK, seat, clearing=c, cards=(cid,)))
    birds = one_per_type(c for c in state.seats[seat].hand if card(c).suit is Suit.BIRD)
    out.extend(Command(CommandKind.EXTRA_ACTION, seat, cards=(cid,)) for cid in birds)
    return out


def spend_action(ctx: Ctx, seat: Seat, march_moves_left: int = 0) -> None:
    ctx.emit(EventKind.ACTIONS_CHANGED, seat=seat.value, amount=-1, count=march_moves_left)


def execute_action(ctx: Ctx, cmd: Command) -> None:
    state = ctx.state
    seat = cmd.seat
    kind = cmd.kind
    if kind is CommandKind.MARCH:
        if state.march_left > 0:
            ctx.emit(EventKind.ACTIONS_CHANGED, seat=seat.value, amount=0, count=0)
        else:
            spend_action(ctx, seat, march_moves_left=1)
        do_move(ctx, cmd)
    elif kind is CommandKind.BATTLE:
        spend_action(ctx, seat)
        start_battle(ctx, seat, cmd.clearing, Seat(cmd.target))
    elif kind is CommandKind.RECRUIT:
        spend_action(ctx, seat)
        ctx.use(seat, RECRUITER)
        supply = state.seats[seat].supply.get(WARRIOR, 0)
        for c in clearings_with(state, seat, RECRUITER):
            n = min(count(state, c, seat, RECRUITER), supply)
            ctx.place(seat, c, WARRIOR, n, reason="recruit")
            supply -= n
    elif kind is CommandKind.BUILD:
        n = placed(state, seat, cmd.piece)
        wood = reachable_wood(state, seat, cmd.clearing)[: BUILD_COST[n]]
        if len(wood) < BUILD_COST[n]:
            raise IllegalCommand("not enough connected wood")
        spend_action(ctx, seat)
        if wood:
            ctx.emit(EventKind.WOOD_SPENT, seat=seat.value, clearings=tuple(wood))
        ctx.place(seat, cmd.clearing, cmd.piece, 1, reason="build")
        ctx.score(seat, BUILD_VP[cmd.piece][n], f"built {cmd.piece}")
    elif kind is CommandKind.OVERWORK:
        spend_action(ctx, seat)
        ctx.discard(seat, cmd.cards, "overwork")
        ctx.place(seat, cmd.clearing, WOOD, 1, reason="overwork")
    elif kind is CommandKind.EXTRA_ACTION:
        ctx.discard(seat, cmd.cards, "extra action")
        ctx.emit(EventKind.ACTIONS_CHANGED, seat=seat.value, amount=1, count=state.march_left)


def evening_draw_count(state: State, seat: Seat) -> int:
    n = placed(state, seat, RECRUITER)
    return 1 + sum(1 for at in DRAW_BONUS_AT if n >= at)


def _evening_draw(ctx: Ctx, seat: Seat) -> None:
    ctx.draw(seat, evening_draw_count(ctx.state, seat))


def starting_supply(spec: SeatSpec) -> dict[str, int]:
    return {WARRIOR: 25, SAWMILL: 6, WORKSHOP: 6, RECRUITER: 6, WOOD: 8, KEEP: 1}


def step_commands(state: State, seat: Seat, step: str) -> list[Command]:
    if step == "setup.keep":
        return setup_keep_commands(state, seat)
    if step == "setup.buildings":
        return setup_building_commands(state, seat)
    if step == "birdsong.wood":
        return wood_commands(state, seat)
    if step == "daylight.actions":
        return action_commands(state, seat)
    return []


def execute(ctx: Ctx, cmd: Command) -> None:
    if cmd.kind is CommandKind.PLACE_KEEP:
        place_keep(ctx, cmd)
    elif cmd.kind is CommandKind.PLACE_BUILDING:
        place_building(ctx, cmd)
    elif cmd.kind is CommandKind.PLACE_WOOD:
        place_wood(ctx, cmd)
    else:
        execute_action(ctx, cmd)


RULES = FactionRules(
    faction=Faction.MARQUISE,
    supply=starting_supply,
    setup_steps=("setup.keep", "setup.buildings"),
    turn_steps=(
        "birdsong.start",
        "birdsong.wood",
        "birdsong.cards",
        "daylight.start",
        "daylight.craft",
        "daylight.actions",
        "evening.start",
        "evening.draw",
        "evening.discard",
    ),
    enter={"birdsong.wood": birdsong_wood, "evening.draw": _evening_draw},
    step_commands=step_commands,
    setup_done=setup_step_done,
    kinds=frozenset(
        {
            CommandKind.PLACE_KEEP,
            CommandKind.PLACE_BUILDING,
            CommandKind.PLACE_WOOD,
            CommandKind.MARCH,
            CommandKind.BATTLE,
            CommandKind.RECRUIT,
            CommandKind.BUILD,
            CommandKind.OVERWORK,
            CommandKind.EXTRA_ACTION,
        }
    ),
    execute=execute,
    daylight_main_step="daylight.actions",
    crafting_piece=WORKSHOP,
    step_actions={"daylight.actions": ACTIONS_PER_TURN},
)
