"""Marquise de Cat (base Root §9, with the variant's setup R12).

Setup on the home map: the keep in a corner, one warrior in each other home clearing, then a
sawmill, a workshop and a recruiter in or next to the keep clearing.  A turn: Birdsong wood
at every sawmill; Daylight crafting with workshops then up to 3 actions (battle, march,
recruit, build, overwork) plus one per bird card spent; Evening draw 1 + recruiter bonuses.

Variant: wood reaches a building through connected ruled clearings, and across a Border
Bridge whose two ends the team rules, for one fee card per building action (R26).  A move of
a march may collect a dropped item instead (R18); a battle action may seize one (R19).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ..battle import battle_commands
from ..battle import start as start_battle
from ..board import HOME_MAP, board
from ..cards import card, matches, one_per_type, payable
from ..contraband import collect_commands, do_collect, do_seize, seize_commands
from ..ctx import Ctx
from ..errors import IllegalCommand
from ..facts import Preview, cost_of
from ..model import Command, CommandKind, EventKind, Faction, Seat, Suit, Team
from ..movement import do_move, move_commands, pay_bridge_fee, suit_of
from ..pieces import (
    BUILDINGS,
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
from .marquise_recruit import RECRUIT_DECISION, recruit
from .marquise_recruit import answer as answer_recruit
from .marquise_recruit import decision_commands as recruit_commands

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
    """One entry per wood token that can pay for a building here without crossing a Border
    Bridge: connected through ruled clearings on this side, nearest first (spent first)."""
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


@dataclass(frozen=True, slots=True)
class WoodRoute:
    """R26: wood from across a Border Bridge enters a building's group of ruled clearings at
    ``entry`` (the fee card matches it, R7) from ``partner``; ``sources`` are the ruled
    clearings reachable that way (further bridges included, the group itself excluded),
    nearest first."""

    entry: str
    partner: str
    sources: tuple[str, ...]

    def wood(self, state: State, seat: Seat) -> list[str]:
        """One entry per wood token this route can bring, nearest first."""
        return [c for c in self.sources for _ in range(count(state, c, seat, WOOD))]


def _ruled_group(rule_map: dict[str, Team | None], team: Team, start: str) -> list[str]:
    """``start``'s connected ruled clearings, bridges excluded (breadth-first order)."""
    paths = board().paths
    group = [start]
    seen = {start}
    for c in group:  # grows while iterating: a breadth-first walk
        for nxt, bridge in paths[c]:
            if not bridge and nxt not in seen and rule_map[nxt] is team:
                seen.add(nxt)
                group.append(nxt)
    return group


def _wood_routes(rule_map: dict[str, Team | None], team: Team, group: list[str]) -> list[WoodRoute]:
    """R26: the ruled bridges out of ``group`` and what lies beyond each (in board order)."""
    b = board()
    paths = b.paths
    inside = set(group)
    routes: list[WoodRoute] = []
    for entry in sorted(group, key=b.position.__getitem__):
        for partner, bridge in paths[entry]:
            if not bridge or rule_map[partner] is not team:
                continue
            sources = [partner]
            seen = inside | {partner}
            for c in sources:  # a ruled route may cross the other bridge too
                for nxt in b.adjacent[c]:
                    if nxt not in seen and rule_map[nxt] is team:
                        seen.add(nxt)
                        sources.append(nxt)
            routes.append(WoodRoute(entry, partner, tuple(sources)))
    return routes


def wood_supply(
    state: State, seat: Seat, rule_map: dict[str, Team | None] | None = None
) -> dict[str, tuple[int, list[WoodRoute]]]:
    """For each ruled clearing: the wood of its group of ruled clearings on this side of the
    bridges, and the routes across ruled bridges (R26).

    One pass over the board per enumeration (rather than a search from every candidate
    clearing): the wood a building can use is exactly its group's wood, plus one route's.
    """
    b = board()
    if rule_map is None:
        rule_map = rulers(state)
    team = seat.team
    pieces = state.pieces
    out: dict[str, tuple[int, list[WoodRoute]]] = {}
    for start in b.order:
        if start in out or rule_map[start] is not team:
            continue
        group = _ruled_group(rule_map, team, start)
        wood = 0
        for c in group:
            kinds = pieces[c].get(seat)
            if kinds:
                wood += kinds.get(WOOD, 0)
        routes = _wood_routes(rule_map, team, group)
        for c in group:
            out[c] = (wood, routes)
    return out


def fee_cards_for_wood(
    state: State, seat: Seat, near: int, routes: list[WoodRoute], cost: int
) -> list[str]:
    """R26: the cards that can pay the one fee of a building whose ``cost`` needs wood from
    across: one per printed card matching the entry of a route that brings enough wood."""
    hand = state.seats[seat].hand
    cards: set[str] = set()
    for route in routes:
        if near + len(route.wood(state, seat)) >= cost:
            cards.update(payable(hand, suit_of(state, route.entry)))
    return one_per_type(cards)


def _may_build_in(state: State, clearing: str, seat: Seat) -> bool:
    """``open_slots(...) > 0 and not blocked_by_keep(...)`` in one pass over the pieces there
    (build enumeration asks it of every ruled clearing)."""
    free = board().clearings[clearing].slots
    if state.ruins.get(clearing):
        free -= 1
    for owner, kinds in state.pieces[clearing].items():
        for kind, n in kinds.items():
            if kind in BUILDINGS:
                free -= n
            elif kind == KEEP and n and owner is not seat:
                return False
    return free > 0


def build_commands(
    state: State, seat: Seat, rule_map: dict[str, Team | None] | None = None
) -> list[Command]:
    """A building where the team rules, paid with connected wood.  When the wood on this side
    of the bridges is short, wood from across a ruled bridge may pay, with one fee card (R26):
    a build is then offered once per card that can pay it (never when no fee is needed)."""
    out: list[Command] = []
    supply = wood_supply(state, seat, rule_map)
    costs = [
        (building, BUILD_COST[n])
        for building in MARQUISE_BUILDINGS
        if (n := placed(state, seat, building)) < TRACK_SIZE
    ]
    build = CommandKind.BUILD
    for c in board().order:
        entry = supply.get(c)
        if entry is None or not _may_build_in(state, c, seat):
            continue
        near, routes = entry
        for building, cost in costs:
            if near >= cost:
                out.append(Command(build, seat, c, piece=building))
            elif routes:
                out.extend(
                    Command(build, seat, c, piece=building, cards=(fee,))
                    for fee in fee_cards_for_wood(state, seat, near, routes, cost)
                )
    return out


def _build_wood(
    state: State, seat: Seat, cmd: Command, cost: int
) -> tuple[list[str], WoodRoute | None]:
    """The wood a BUILD spends (nearest first) and the bridge route it crosses, if any (R26):
    the first route, in board order, whose entry the fee card pays and that brings enough."""
    near = reachable_wood(state, seat, cmd.clearing)
    if len(near) >= cost:
        return near[:cost], None
    rule_map = rulers(state)
    group = _ruled_group(rule_map, seat.team, cmd.clearing)
    for route in _wood_routes(rule_map, seat.team, group):
        far = route.wood(state, seat)
        if (
            cmd.cards
            and len(near) + len(far) >= cost
            and matches(cmd.cards[0], suit_of(state, route.entry))
        ):
            return near + far[: cost - len(near)], route
    raise IllegalCommand("not enough connected wood")


def build_facts(state: State, cmd: Command) -> Preview | None:
    """A BUILD's facts as ``execute_action`` plays it: the wood it spends, the fee card of
    a route across a bridge (R26), the VP of the track's next space (None: not a BUILD)."""
    if cmd.kind is not CommandKind.BUILD:
        return None
    n = placed(state, cmd.seat, cmd.piece)
    wood, route = _build_wood(state, cmd.seat, cmd, BUILD_COST[n])
    cards = cmd.cards[:1] if route is not None else ()
    return Preview(cost_of(cards, len(wood)), BUILD_VP[cmd.piece][n])


def action_commands(state: State, seat: Seat) -> list[Command]:
    out: list[Command] = []
    rule_map = rulers(state)  # one count of the board for every "who rules?" below
    if state.march_left > 0:  # the second move of a march: a move, or a collect (R18)
        out.extend(move_commands(state, seat, CommandKind.MARCH, rule_map=rule_map))
        out.extend(collect_commands(state, seat))
    if state.actions > 0:
        out.extend(battle_commands(state, seat))
        out.extend(seize_commands(state, seat))  # a battle action against an item (R19)
        if state.march_left == 0:
            out.extend(move_commands(state, seat, CommandKind.MARCH, rule_map=rule_map))
            out.extend(collect_commands(state, seat))
        if (
            not state.used.get(RECRUITER)
            and clearings_with(state, seat, RECRUITER)
            and state.seats[seat].supply.get(WARRIOR, 0) > 0
        ):
            out.append(Command(CommandKind.RECRUIT, seat))
        out.extend(build_commands(state, seat, rule_map))
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
    if kind in (CommandKind.MARCH, CommandKind.COLLECT):  # one move of a march (R18)
        if state.march_left > 0:
            ctx.emit(EventKind.ACTIONS_CHANGED, seat=seat.value, amount=0, count=0)
        else:
            spend_action(ctx, seat, march_moves_left=1)
        if kind is CommandKind.MARCH:
            do_move(ctx, cmd)
        else:
            do_collect(ctx, cmd)
    elif kind is CommandKind.BATTLE:
        spend_action(ctx, seat)
        start_battle(ctx, seat, cmd.clearing, Seat(cmd.target))
    elif kind is CommandKind.SEIZE:  # a battle action against a dropped item (R19)
        spend_action(ctx, seat)
        do_seize(ctx, cmd)
    elif kind is CommandKind.RECRUIT:
        spend_action(ctx, seat)
        ctx.use(seat, RECRUITER)
        recruit(ctx, seat)  # with a short supply the Marquise chooses where (Law 1.5.4)
    elif kind is CommandKind.BUILD:
        n = placed(state, seat, cmd.piece)
        wood, route = _build_wood(state, seat, cmd, BUILD_COST[n])
        spend_action(ctx, seat)
        if route is not None:  # R26: one fee for the wood from across, whatever it crosses
            pay_bridge_fee(ctx, seat, route.partner, route.entry, cmd.cards, text="wood")
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
    known_facts=build_facts,
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
            CommandKind.COLLECT,
            CommandKind.SEIZE,
        }
    ),
    execute=execute,
    daylight_main_step="daylight.actions",
    crafting_piece=WORKSHOP,
    step_actions={"daylight.actions": ACTIONS_PER_TURN},
    decisions={RECRUIT_DECISION: (recruit_commands, answer_recruit)},
)
