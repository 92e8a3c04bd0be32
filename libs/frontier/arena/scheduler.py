"""Which match the arena plays next: which two entrants meet, under which lineup, on which
side.

Pure logic over plain data (no I/O, no clock): the arena passes the outside bots that have
room for a match, the standing built-in entrants and each entrant's history (how often it
played each faction and each team, and met each other entrant), and gets a
:class:`MatchPlan` back.  The same inputs and seed always give the same plan, so a schedule
can be replayed and tested.

A match is team against team, one entrant each: an entrant plays all three seats of its
team.  Why: the Frontier Alliance mode is a team game, and a bot's team play (one seat
carrying contraband to another, a Vagabond intervening for its team) is what it is built
for.  Measured, it is also where bots differ: with the same bots, the halving search stood
8.4 mu above greedy after 453 such matches (it won 35 of their 46), against 1.8 mu after
471 mirror matches in which each entrant played one seat next to two others
(docs/arena.md).

The rotation: the two entrants are the pair that has met least (a pair with more outside
bots first, then a seeded shuffle); the pair's own meetings then take the mirror lineups in
turn, then again with the sides swapped. Every twelve meetings each pair so plays every
lineup from both sides. Why per pair: with one rotation shared by all, a pair's share of
each lineup and side was left to how the pairs happened to interleave (in one 454-match run
one pair met 11 times on one lineup and 4 on another, and one entrant sat on team B in 30
of its 45 meetings with the other), and a lineup or side one bot handles worse than another
then moves their ratings. Over matches every entrant so meets every other, plays every
faction and both teams. With only one entrant available, the other team is *fillers*: the
server's built-in bot plays it, nobody's rating counts it, and the lineups take turns.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from frontier.engine import Seat, rng
from frontier.engine.lineup import parse_lineup

# Lineups the arena rotates through: mirrors, each team playing the same factions (the
# Marquise, the Eyrie or the Alliance, and one Vagabond character), so that a result says
# which bots played better and not which side the lineup favoured.  In the unmirrored R2
# lineups the Eyrie's team wins nearly every match between competent bots whoever plays
# it (22 of 24 between search and greedy on four of them, the median of three runs), so a
# board fed those results learns the lineup and can barely tell the bots apart
# (docs/arena.md).  Over the six every Vagabond character meets both the Eyrie and the
# Alliance.
LINEUPS: tuple[str, ...] = (
    "A=marquise,eyrie,thief;B=marquise,eyrie,thief",
    "A=marquise,alliance,tinker;B=marquise,alliance,tinker",
    "A=marquise,eyrie,ranger;B=marquise,eyrie,ranger",
    "A=marquise,alliance,thief;B=marquise,alliance,thief",
    "A=marquise,eyrie,tinker;B=marquise,eyrie,tinker",
    "A=marquise,alliance,ranger;B=marquise,alliance,ranger",
)
FILLER_BOT = "greedy"  # the server's bot that plays a team no entrant takes


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


# entrant id -> {"faction:<faction>": n, "team:<A|B>": n, "met:<entrant id>": n}
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
    ``min_outside`` outside bots are free.  ``outside``: the free outside bots; the built-ins
    meet them and each other (the scale they anchor needs both)."""
    if len(outside) < max(min_outside, 0) or (not outside and not builtins):
        return None
    entrants = list({e.bot_id: e for e in [*outside, *builtins]}.values())
    state = rng.seed_state(seed * 1_000_003 + index)
    match_seed, state = rng.next_u64(state)
    pair, state = _least_met(entrants, history, state)
    first, second = pair
    if second is None:
        lineup, on_a, on_b = _filler_turn(first, history, index)
    else:
        lineup, on_a, on_b = _pair_turn(first, second, history, seed)
    factions = seat_factions(lineup)
    side = {"A": on_a, "B": on_b}
    planned = tuple(
        PlannedSeat(seat, factions[seat], side[seat.team.value])
        for seat in Seat
        if seat in factions
    )
    return MatchPlan(lineup, planned, match_seed & 0x7FFF_FFFF_FFFF_FFFF)


def _filler_turn(
    entrant: Entrant, history: History, index: int
) -> tuple[str, Entrant | None, Entrant | None]:
    """An entrant alone meets the fillers (nobody's rating counts them): the lineups in
    turn, and the entrant on the team it has played less."""
    lineup = LINEUPS[index % len(LINEUPS)]
    played = history.get(entrant.bot_id, {})
    if played.get("team:A", 0) <= played.get("team:B", 0):
        return lineup, entrant, None
    return lineup, None, entrant


def _pair_turn(
    one: Entrant, other: Entrant, history: History, seed: int
) -> tuple[str, Entrant, Entrant]:
    """The lineup and sides of the pair's next meeting, from how often it has met.

    Its ``k``-th meeting plays lineup ``offset + k + k // 6`` with team A to one of the two
    when ``k`` is even and to the other when it is odd: the first six meetings take every
    lineup, the next six take them again shifted by one, and so with the sides swapped.
    Every twelve meetings a pair so plays each lineup once from each side, whatever the
    other pairs do.  ``offset`` and which of the two starts on team A follow from the
    seed and the two ids, so the pairs start spread over the lineups and the sides."""
    first, second = sorted((one, other), key=lambda e: e.bot_id)
    met = history.get(first.bot_id, {}).get(f"met:{second.bot_id}", 0)
    digest = hashlib.sha256(f"{seed}|{first.bot_id}|{second.bot_id}".encode()).digest()
    offset = int.from_bytes(digest[:4], "big")
    lineup = LINEUPS[(offset + met + met // len(LINEUPS)) % len(LINEUPS)]
    if (met + digest[4]) % 2:
        return lineup, second, first
    return lineup, first, second


def _least_met(
    entrants: list[Entrant], history: History, state: int
) -> tuple[tuple[Entrant, Entrant | None], int]:
    """The two entrants to meet (the second None: no other entrant, the fillers), and the
    generator's next state."""
    if len(entrants) == 1:
        return (entrants[0], None), state
    pairs = sorted(itertools.combinations(entrants, 2), key=lambda p: (p[0].bot_id, p[1].bot_id))
    pairs, state = rng.shuffled(pairs, state)

    def cost(pair: tuple[Entrant, Entrant]) -> tuple[int, int]:
        a, b = pair
        met = history.get(a.bot_id, {}).get(f"met:{b.bot_id}", 0)
        return met, sum(1 for e in pair if e.builtin)

    return min(pairs, key=cost), state


def count_match(history: dict[str, dict[str, int]], seats: Sequence[tuple[str, str, str]]) -> None:
    """Add one match to ``history``: ``seats`` are (entrant id, faction, team) of its seats
    ("" for a filler).  An entrant counts once per faction and team it played and once per
    entrant it met, however many seats it had."""
    teams: dict[str, str] = {}
    for bot_id, faction, team in seats:
        if not bot_id:
            continue
        played = history.setdefault(bot_id, {})
        played[f"faction:{faction}"] = played.get(f"faction:{faction}", 0) + 1
        teams[bot_id] = team
    for bot_id, team in teams.items():
        played = history[bot_id]
        played[f"team:{team}"] = played.get(f"team:{team}", 0) + 1
        for other, other_team in teams.items():
            if other_team != team:
                played[f"met:{other}"] = played.get(f"met:{other}", 0) + 1
