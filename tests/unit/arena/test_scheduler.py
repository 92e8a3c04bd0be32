"""The arena's scheduler: a match's entrants, lineup and seats, deterministic from its
seed, rotating so that every entrant plays every faction and both teams over time."""

from __future__ import annotations

from collections import Counter

from frontier.arena.scheduler import (
    LINEUPS,
    Entrant,
    MatchPlan,
    builtin_entrant,
    count_plan,
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
        count_plan(history, plan)
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


def test_lineups_take_turns_and_every_seat_has_its_faction():
    plans, _ = schedule(len(LINEUPS))
    assert [p.lineup for p in plans] == list(LINEUPS)
    for plan in plans:
        factions = seat_factions(plan.lineup)
        assert [s.seat for s in plan.seats] == list(Seat)
        assert all(s.faction == factions[s.seat] for s in plan.seats)


def test_an_entrant_plays_one_seat_and_missing_entrants_are_fillers():
    plan = plan_match(OUTSIDE[:1], BUILTINS[:1], {}, 1, 0)
    assert plan is not None
    players = [s.entrant for s in plan.seats]
    assert Counter(p.bot_id for p in players if p is not None) == {"b1": 1, "builtin:random": 1}
    assert players.count(None) == 4


def test_outside_bots_come_first_and_at_most_six_play():
    many = [Entrant(f"b{i}", f"bot{i}") for i in range(8)]
    plan = plan_match(many, BUILTINS, {}, 1, 0)
    assert plan is not None
    assert {s.entrant.bot_id for s in plan.seats if s.entrant} == {f"b{i}" for i in range(6)}


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
