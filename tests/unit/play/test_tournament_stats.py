"""A tournament's statistics beyond wins: mechanics counted from events, score by round,
each seat's VP contribution, and how they add up per bot."""

from __future__ import annotations

import json

import pytest

from frontier.bots import make_bot
from frontier.engine import Event, EventKind, Team, make_config
from frontier.play import tournament
from frontier.play.match_runner import play_match, seat_bots
from frontier.play.match_stats import (
    MECHANIC_KEYS,
    MatchStats,
    count_mechanics,
    match_stats,
    scores_by_round,
)
from frontier.play.tournament_report import report
from frontier.play.tournament_stats import (
    Contribution,
    MechanicTally,
    ScoreCurve,
    seat_labels,
)

DEFAULT = "A=marquise,eyrie,thief;B=marquise,alliance,tinker"
MIRROR = "A=marquise;B=marquise"


def _zero() -> dict[str, int]:
    return dict.fromkeys(MECHANIC_KEYS, 0)


def test_each_mechanic_is_counted_for_the_team_of_the_seat_its_event_names() -> None:
    events = [
        Event(EventKind.CARD_CRAFTED, seat="B2", piece="boots", to="a1", target="B2"),
        Event(EventKind.CONTRABAND_MOVED, seat="B2", clearing="a1", to="a2", count=2),
        Event(EventKind.CONTRABAND_VALIDATED, seat="B2", piece="boots", target="B2"),
        Event(EventKind.CONTRABAND_DROPPED, seat="A1", clearing="w3", count=1),
        Event(EventKind.CONTRABAND_COLLECTED, seat="A2", clearing="w3", piece="bag"),
        Event(EventKind.CONTRABAND_SEIZED, seat="A1", clearing="w3", piece="bag"),
        Event(EventKind.BATTLE_STARTED, seat="A3", target="B1", piece="looting"),
        Event(EventKind.LEGENDARY_GAINED, seat="B3", piece="war_veteran"),
        Event(EventKind.ONCE_USED, seat="A1", text="wings_r23"),
        Event(EventKind.ONCE_USED, seat="A1", text="wings_r23"),
        Event(EventKind.SUPPORTERS_ADDED, seat="B2", target="A1", text="outrage"),
        Event(EventKind.CARDS_DISCARDED, seat="A1", cards=("c1",), text="field hospitals"),
        Event(EventKind.INTERVENED, seat="A3", piece="sword"),
    ]
    counts = count_mechanics(events)
    assert counts[Team.A] == _zero() | {
        "contraband_dropped": 1,
        "contraband_collected": 1,
        "contraband_seized": 1,
        "looting": 1,
        "wings": 2,
        "field_hospitals": 1,
        "intervention": 1,
    }
    assert counts[Team.B] == _zero() | {
        "contraband_crafted": 1,
        "contraband_carried": 1,
        "contraband_scored": 1,
        "contraband_scored_warriors": 1,
        "legendary": 1,
        "outrage": 1,
    }


def test_look_alike_events_are_not_mechanics() -> None:
    events = [
        Event(EventKind.CARD_CRAFTED, seat="A1", piece="boots"),  # crafted at home: no contraband
        Event(EventKind.BATTLE_STARTED, seat="A3", target="B1"),  # a battle, no Looting
        Event(EventKind.ONCE_USED, seat="A1", text="recruit"),
        Event(EventKind.SUPPORTERS_ADDED, seat="B2", text="mobilize"),
        Event(EventKind.CARDS_DISCARDED, seat="A1", text="bridge fee"),
        Event(EventKind.SCORED, seat="A1", target="A", amount=3),
        Event(EventKind.ROUND_STARTED, count=1),  # no seat
    ]
    counts = count_mechanics(events)
    assert counts == {Team.A: _zero(), Team.B: _zero()}


def test_scores_by_round_are_taken_at_each_round_end_and_at_the_match_end() -> None:
    events = [
        Event(EventKind.SCORED, seat="A1", target="A", amount=1),  # before round 1: counted
        Event(EventKind.ROUND_STARTED, count=1),
        Event(EventKind.SCORED, seat="A1", target="A", amount=3),
        Event(EventKind.ROUND_STARTED, count=2),
        Event(EventKind.SCORED, seat="B1", target="B", amount=2),
        Event(EventKind.SCORED, seat="A2", target="A", amount=-1),
        Event(EventKind.GAME_ENDED, text="A"),
    ]
    assert scores_by_round(events) == [{Team.A: 4, Team.B: 0}, {Team.A: 3, Team.B: 2}]
    assert scores_by_round([Event(EventKind.SCORED, seat="A1", target="A", amount=1)]) == []


def test_a_seeded_match_adds_up_with_its_final_state() -> None:
    # Random bots on the default lineup, seed 9: team B crafts three contraband items on the
    # rival map (carrying none), team A collects a dropped one and carries it once.
    config = make_config(seed=9, lineup=DEFAULT)
    result = play_match(config, seat_bots(config, lambda s: make_bot("random", s)))
    vp = {seat.value: result.state.seats[seat].vp for seat in config.seats()}
    stats = match_stats(result.events, vp)
    assert stats.rounds[-1] == result.scores
    assert len(stats.rounds) == result.rounds
    for team in Team:
        assert sum(n for seat, n in vp.items() if seat[0] == team.value) == result.scores[team]
    a, b = stats.mechanics[Team.A], stats.mechanics[Team.B]
    assert (b["contraband_crafted"], b["contraband_carried"], b["contraband_scored"]) == (3, 0, 0)
    assert (a["contraband_collected"], a["contraband_carried"]) == (1, 1)
    validated = [e for e in result.events if e.kind is EventKind.CONTRABAND_VALIDATED]
    assert a["contraband_scored"] + b["contraband_scored"] == len(validated)


def test_mechanic_tally_share_and_mean() -> None:
    tally = MechanicTally()
    tally.add(_zero() | {"wings": 3})
    tally.add(_zero())
    tally.add(_zero() | {"wings": 1, "outrage": 2})
    tally.add(_zero())
    assert tally.matches == 4
    assert tally.share("wings") == 0.5 and tally.mean("wings") == 1.0
    assert tally.share("outrage") == 0.25 and tally.mean("outrage") == 0.5
    assert tally.share("looting") == 0.0
    other = MechanicTally()
    other.add(_zero() | {"wings": 4})
    tally.merge(other)
    assert tally.matches == 5 and tally.total["wings"] == 8 and tally.happened["wings"] == 3
    counts = tally.as_json()["counts"]
    assert isinstance(counts, dict)
    assert counts["wings"] == {"share": 0.6, "mean": 1.6, "total": 8}
    assert MechanicTally().share("wings") == 0.0  # no match: no division by zero


def test_score_curve_holds_the_last_score_of_a_short_match() -> None:
    curve = ScoreCurve()
    curve.add(Team.A, MatchStats(rounds=[{Team.A: 1, Team.B: 0}, {Team.A: 2, Team.B: 5}]))
    curve.add(Team.B, MatchStats(rounds=[{Team.A: 9, Team.B: 7}]))  # won in round 1
    assert curve.means() == [4.0, 4.5]
    assert ScoreCurve().means() == []


def test_contribution_by_role_and_faction() -> None:
    labels = seat_labels(DEFAULT)
    assert labels["A3"] == ("vagabond", "thief") and labels["B2"] == ("second", "alliance")
    contribution = Contribution()
    contribution.add(labels, Team.A, MatchStats(contribution={"A1": 6, "A2": 3, "A3": 1}))
    contribution.add(labels, Team.A, MatchStats(contribution={"A1": 2, "A2": 0, "A3": 0}))
    marquise = contribution.rows[("military1", "marquise")]
    assert (marquise.games, marquise.vp, marquise.team_vp) == (2, 8, 12)
    assert marquise.mean_vp == 4.0 and marquise.share == pytest.approx(8 / 12)
    rows = {(r["role"], r["faction"]): r for r in contribution.as_json()}
    assert rows[("vagabond", "thief")] == {
        "role": "vagabond",
        "faction": "thief",
        "games": 2,
        "vp": 1,
        "mean_vp": 0.5,
        "share": round(1 / 12, 4),
    }


def test_tournament_json_keeps_its_keys_and_adds_the_statistics() -> None:
    result = tournament.run([MIRROR], ["greedy", "random"], 2, seed=3)
    data = json.loads(json.dumps(result.as_json()))
    assert set(data) == {"seconds", "commands", "overall", "lineups", "mechanics"}
    row = data["lineups"][MIRROR]
    old = {"games", "team_a_wins", "draws", "bots", "errors"}
    assert set(row) == old | {"contribution", "mechanics", "score_by_round", "early"}
    for bot in ("greedy", "random"):
        (seat,) = row["contribution"][bot]  # the mirror has one seat per team
        assert (seat["role"], seat["faction"], seat["games"]) == ("military1", "marquise", 2)
        assert seat["share"] == 1.0  # the only seat makes the whole team score
        assert row["mechanics"][bot]["matches"] == 2
        assert set(row["mechanics"][bot]["counts"]) == set(MECHANIC_KEYS)
        assert len(row["score_by_round"][bot]) >= 1
    # the last point of a bot's curve is its team's final score, averaged over its games
    finals = []
    for game in tournament.schedule([MIRROR], ["greedy", "random"], 2, seed=3):
        outcome = tournament.play_game(game)
        assert outcome.stats is not None
        finals.append(outcome.stats.rounds[-1][Team.A if game.bot_a == "greedy" else Team.B])
    assert row["score_by_round"]["greedy"][-1] == round(sum(finals) / len(finals), 3)
    text = report(result)
    assert "VP contribution per seat" in text and "wings of the alliance" in text
    assert "mean team score at the end of each round" in text


def test_the_statistics_are_the_same_with_any_number_of_processes() -> None:
    # Each match's statistics are counted where it is played and sent back pickled.
    one = tournament.run([MIRROR], ["greedy", "random"], 2, seed=5, jobs=1).as_json()
    two = tournament.run([MIRROR], ["greedy", "random"], 2, seed=5, jobs=2).as_json()
    del one["seconds"], two["seconds"]
    assert one == two


def test_contraband_validated_by_a_vagabond_is_not_counted_as_carried_by_warriors() -> None:
    events = [
        Event(EventKind.CONTRABAND_VALIDATED, seat="A3", piece="sword", target="A3"),
        Event(EventKind.CONTRABAND_VALIDATED, seat="A1", piece="bag", target="A2"),
        Event(EventKind.CONTRABAND_VALIDATED, seat="B3", piece="tea", target="B2"),
    ]
    counts = count_mechanics(events)
    assert (counts[Team.A]["contraband_scored"], counts[Team.A]["contraband_scored_warriors"]) == (
        2,
        1,
    )
    assert (counts[Team.B]["contraband_scored"], counts[Team.B]["contraband_scored_warriors"]) == (
        1,
        0,
    )


def test_matches_over_before_the_last_round_are_counted_per_lineup() -> None:
    first = tournament.Game(MIRROR, "greedy", "random", 4)
    second = tournament.Game(MIRROR, "random", "greedy", 4)
    outcomes = [
        tournament.Outcome(first, "A", stats=MatchStats(), early=True),
        tournament.Outcome(second, "B", stats=MatchStats()),
    ]
    per_lineup, overall = tournament.tally(outcomes, ["greedy", "random"], [MIRROR])
    assert per_lineup[MIRROR].early == 1
    assert per_lineup[MIRROR].as_json()["early"] == 1
    assert overall["greedy"].wins == 2
    assert "1 over before the last round's end" in report(
        tournament.TournamentResult(per_lineup, overall, 1.0, 0)
    )
    played = tournament.play_game(first)
    assert played.stats is not None
    final = played.stats.rounds[-1]
    assert played.early is (len(played.stats.rounds) < 6 or max(final.values()) >= 90)
