"""Which match the arena plays next: who takes part, under which lineup, in which seat.

Pure logic over plain data (no I/O, no clock): the arena passes the outside bots that have
a free seat, the standing built-in entrants and each entrant's history (how often it played
each faction and each team), and gets a :class:`MatchPlan` back.  The same inputs and seed
always give the same plan, so a schedule can be replayed and tested.

The rotation: mirror lineups take turns (each faction of the roster appears in them), and the
seats go to the entrants so that the sum of "times already played this faction" and "times
already played this team" over the match is the smallest possible; ties are broken by a
seeded shuffle.  Over matches every entrant so plays every faction and both teams.

An entrant plays at most one seat of a match (rating one entrant on both teams would make
no sense).  When fewer than six entrants are available, the remaining seats are *fillers*:
the server's built-in bot plays them and nobody's rating counts them.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from frontier.engine import Seat, rng
from frontier.engine.lineup import parse_lineup

SEATS_PER_MATCH = 6

# Lineups the arena rotates through: mirrors, each team playing the same factions (the
# Marquise, the Eyrie or the Alliance, and one Vagabond character), so that a result says
# which bots played better and not which side the lineup favoured.  In the unmirrored R2
# lineups the Eyrie's team wins nearly every match between competent bots whoever plays
# it (22 of 24 between search and greedy on four of them), so a board fed those results
# learns the lineup and can barely tell the bots apart (docs/arena.md).  Over the six every
# Vagabond character meets both the Eyrie and the Alliance.
LINEUPS: tuple[str, ...] = (
    "A=marquise,eyrie,thief;B=marquise,eyrie,thief",
    "A=marquise,alliance,tinker;B=marquise,alliance,tinker",
    "A=marquise,eyrie,ranger;B=marquise,eyrie,ranger",
    "A=marquise,alliance,thief;B=marquise,alliance,thief",
    "A=marquise,eyrie,tinker;B=marquise,eyrie,tinker",
    "A=marquise,alliance,ranger;B=marquise,alliance,ranger",
)
FILLER_BOT = "greedy"  # the server's bot that plays a seat no entrant takes


@dataclass(frozen=True, slots=True)
class Entrant:
    """Someone the board rates: an outside bot, or a built-in bot (``builtin`` = the name
    the server's SEAT_MODE_BOT takes, and ``bot_id`` = ``builtin:<name>``)."""

    bot_id: str
    name: str
    builtin: str = ""


def builtin_entrant(name: str) -> Entrant:
    """The standing entrant of the server's built-in bot ``name``."""
    return Entrant(f"builtin:{name}", name, name)


@dataclass(frozen=True, slots=True)
class PlannedSeat:
    """One seat of a planned match: its entrant (None: a filler) and faction."""

    seat: Seat
    faction: str
    entrant: Entrant | None


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """The next match: its lineup, every seat in turn order, and the seed of its deal."""

    lineup: str
    seats: tuple[PlannedSeat, ...]
    seed: int


# entrant id -> {"faction:<faction>": n, "team:<A|B>": n}
History = Mapping[str, Mapping[str, int]]


def seat_factions(lineup: str) -> dict[Seat, str]:
    """Each seat's faction under ``lineup`` (a Vagabond character is the faction
    ``vagabond``)."""
    return {seat: spec.faction.value for seat, spec in parse_lineup(lineup).items()}


def plan_match(
    outside: Sequence[Entrant],
    builtins: Sequence[Entrant],
    history: History,
    seed: int,
    index: int,
    min_outside: int = 1,
) -> MatchPlan | None:
    """The ``index``-th match of the arena whose seed is ``seed``, or None when fewer than
    ``min_outside`` outside bots are free.  ``outside``: the free outside bots, those to seat
    first first; at most six of them play, then the built-ins (in turns, by ``index``)."""
    if len(outside) < max(min_outside, 0) or (not outside and not builtins):
        return None
    chosen = list(outside[:SEATS_PER_MATCH])
    room = SEATS_PER_MATCH - len(chosen)
    if builtins and room:
        start = index % len(builtins)
        turned = [*builtins[start:], *builtins[:start]]
        chosen.extend(turned[:room])
    lineup = LINEUPS[index % len(LINEUPS)]
    factions = seat_factions(lineup)
    seats = [seat for seat in Seat if seat in factions]
    players: list[Entrant | None] = [*chosen, *([None] * (len(seats) - len(chosen)))]
    state = rng.seed_state(seed * 1_000_003 + index)
    match_seed, state = rng.next_u64(state)
    best = _best_assignment(players, seats, factions, history, state)
    planned = tuple(
        PlannedSeat(seat, factions[seat], player) for seat, player in zip(seats, best, strict=True)
    )
    return MatchPlan(lineup, planned, match_seed & 0x7FFF_FFFF_FFFF_FFFF)


def _best_assignment(
    players: list[Entrant | None],
    seats: list[Seat],
    factions: Mapping[Seat, str],
    history: History,
    state: int,
) -> tuple[Entrant | None, ...]:
    """The order of ``players`` over ``seats`` of least repetition (see the module
    docstring); the candidates are tried in a seeded order, so ties go to the first."""
    orders = sorted(set(itertools.permutations(players)), key=_order_key)
    orders, _ = rng.shuffled(orders, state)
    best: tuple[Entrant | None, ...] = orders[0]
    best_cost = -1
    for order in orders:
        cost = 0
        for seat, player in zip(seats, order, strict=True):
            if player is None:
                continue
            played = history.get(player.bot_id, {})
            cost += played.get(f"faction:{factions[seat]}", 0)
            cost += played.get(f"team:{seat.team.value}", 0)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = order, cost
    return best


def _order_key(order: tuple[Entrant | None, ...]) -> tuple[str, ...]:
    """A total order of the candidate assignments (a set has none), for determinism."""
    return tuple("" if p is None else p.bot_id for p in order)


def count_plan(history: dict[str, dict[str, int]], plan: MatchPlan) -> None:
    """Add ``plan``'s seats to ``history`` (the arena counts a match once it is created)."""
    for planned in plan.seats:
        if planned.entrant is None:
            continue
        played = history.setdefault(planned.entrant.bot_id, {})
        for key in (f"faction:{planned.faction}", f"team:{planned.seat.team.value}"):
            played[key] = played.get(key, 0) + 1
