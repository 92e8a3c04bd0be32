"""The arena's scheduler: a match's entrants, lineup and seats, deterministic from its
seed, rotating so that every entrant plays every faction and both teams over time."""

from __future__ import annotations

from collections import Counter

from frontier.arena.scheduler import (
    LINEUPS,
    Entrant,
    MatchPlan,
    builtin_entrant,
    count_match,
    plan_match,
    seat_factions,
)
from frontier.engine import Seat

OUTSIDE = [Entrant("b1", "one"), Entrant("b2", "two")]
BUILTINS = [builtin_entrant(name) for name in ("random", "greedy", "search")]
FACTIONS = {"marquise", "eyrie", "alliance", "vagabond"}


def schedule(matches: int, seed: int = 7) -> tuple[list[MatchPlan], dict[str, dict[str, int]]]:
    history: dict[str, dict[str, int]] = {}
    plans: list[MatchPlan] = []
    for index in range(matches):
        plan = plan_match(OUTSIDE, BUILTINS, history, seed, index)
        assert plan is not None
        count_match(
            history,
            [
                ("" if p.entrant is None else p.entrant.bot_id, p.faction, p.seat.team.value)
                for p in plan.seats
            ],
        )
        plans.append(plan)
    return plans, history


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another():
    assert schedule(12)[0] == schedule(12)[0]
    assert schedule(12, seed=8)[0] != schedule(12)[0]


def test_over_time_every_entrant_plays_every_faction_and_both_teams():
    _, history = schedule(16)
    assert set(history) == {"b1", "b2", "builtin:random", "builtin:greedy", "builtin:search"}
    for played in history.values():
        assert {k.removeprefix("faction:") for k in played if k.startswith("faction:")} == FACTIONS
        assert abs(played["team:A"] - played["team:B"]) <= 2  # the teams stay balanced


def test_a_pairs_meetings_take_every_lineup_from_both_sides_every_twelve_meetings():
    plans, _ = schedule(10 * 2 * len(LINEUPS))  # five entrants: ten pairs, twelve each
    on_a_by_pair: dict[frozenset[str], Counter[tuple[str, str]]] = {}
    for plan in plans:
        factions = seat_factions(plan.lineup)
        assert [s.seat for s in plan.seats] == list(Seat)
        assert all(s.faction == factions[s.seat] for s in plan.seats)
        pair = frozenset(s.entrant.bot_id for s in plan.seats if s.entrant)
        (on_a,) = {s.entrant.bot_id for s in plan.seats if s.entrant and s.seat.team.value == "A"}
        on_a_by_pair.setdefault(pair, Counter())[(plan.lineup, on_a)] += 1
    assert len(on_a_by_pair) == 10
    for pair, seen in on_a_by_pair.items():  # each lineup once with each of the two on A
        assert seen == {(lineup, bot): 1 for lineup in LINEUPS for bot in pair}


def test_an_entrant_alone_meets_the_fillers_on_the_lineups_in_turn():
    history: dict[str, dict[str, int]] = {}
    lineups = []
    for index in range(len(LINEUPS)):
        plan = plan_match(OUTSIDE[:1], [], history, 1, index)
        assert plan is not None
        lineups.append(plan.lineup)
        count_match(
            history,
            [
                (p.entrant.bot_id if p.entrant else "", p.faction, p.seat.team.value)
                for p in plan.seats
            ],
        )
    assert lineups == list(LINEUPS)
    assert history["b1"]["team:A"] == history["b1"]["team:B"] == len(LINEUPS) // 2


def test_an_entrant_plays_its_whole_team_and_one_alone_meets_a_team_of_fillers():
    plan = plan_match(OUTSIDE[:1], BUILTINS[:1], {}, 1, 0)
    assert plan is not None
    sides: dict[str, set[str | None]] = {"A": set(), "B": set()}
    for seat in plan.seats:
        sides[seat.seat.team.value].add(seat.entrant.bot_id if seat.entrant else None)
    assert sorted(sides.values(), key=str) == [{"b1"}, {"builtin:random"}]
    alone = plan_match(OUTSIDE[:1], [], {}, 1, 0)
    assert alone is not None
    assert Counter(s.entrant.bot_id if s.entrant else None for s in alone.seats) == {
        "b1": 3,
        None: 3,
    }


def test_every_pair_meets_in_turn_and_outside_bots_first_among_pairs_met_as_often():
    plans, history = schedule(20)
    first = {s.entrant.bot_id for s in plans[0].seats if s.entrant}
    assert first == {"b1", "b2"}  # no pair has met yet: the one of two outside bots
    met = Counter(frozenset(s.entrant.bot_id for s in plan.seats if s.entrant) for plan in plans)
    assert len(met) == 10 and set(met.values()) == {2}  # five entrants: ten pairs, twice each
    assert history["b1"]["met:b2"] == 2 and history["b1"]["team:A"] + history["b1"]["team:B"] == 8


def test_no_match_without_enough_outside_bots():
    assert plan_match([], BUILTINS, {}, 1, 0) is None
    assert plan_match(OUTSIDE[:1], BUILTINS, {}, 1, 0, min_outside=2) is None


def test_the_vagabond_characters_are_the_vagabond_faction():
    assert seat_factions(LINEUPS[0]) == {
        Seat.A1: "marquise",
        Seat.A2: "eyrie",
        Seat.A3: "vagabond",
        Seat.B1: "marquise",
        Seat.B2: "eyrie",
        Seat.B3: "vagabond",
    }


def test_every_lineup_is_a_mirror_so_a_result_measures_the_bots_not_the_sides():
    for lineup in LINEUPS:
        factions = seat_factions(lineup)
        teams = {team: [factions[s] for s in Seat if s.team.value == team] for team in "AB"}
        assert teams["A"] == teams["B"], lineup
        a, b = lineup.split(";")
        assert a.removeprefix("A=") == b.removeprefix("B="), "the same Vagabond on both sides"
    sides = [side.removeprefix("A=") for lineup in LINEUPS for side in lineup.split(";")[:1]]
    played = {name for side in sides for name in side.split(",")}
    assert played == {"marquise", "eyrie", "alliance", "thief", "tinker", "ranger"}
