"""The arena's board: a team result moves both teams' ratings, shrinks their uncertainty,
counts per faction, and is applied once per match id; a void match rates nobody."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from frontier.arena.ratings import (
    APPLIED_KEPT,
    Board,
    EntrantRecord,
    MatchResult,
    SeatResult,
    Skill,
    apply_result,
)

FACTIONS = {"A1": "marquise", "A2": "eyrie", "A3": "vagabond", "B1": "marquise"}
FACTIONS |= {"B2": "alliance", "B3": "vagabond"}


def result(match_id: str, winner: str, state: str = "rated", **bots: str) -> MatchResult:
    """A match whose seats are played by ``bots`` (seat -> bot id); other seats are fillers."""
    seats = [
        SeatResult(
            seat=seat, bot_id=bots.get(seat, ""), name=bots.get(seat, "greedy"), faction=faction
        )
        for seat, faction in FACTIONS.items()
    ]
    return MatchResult(match_id=match_id, lineup="l", seats=seats, state=state, winner=winner)


SIX = {"A1": "a1", "A2": "a2", "A3": "a3", "B1": "b1", "B2": "b2", "B3": "b3"}


def test_the_winners_rise_the_losers_fall_and_everyone_is_surer():
    board = apply_result(Board(), result("m1", "A", **SIX))
    assert board is not None
    start = Skill()
    for bot in ("a1", "a2", "a3"):
        assert board.entrants[bot].skill.mu > start.mu
    for bot in ("b1", "b2", "b3"):
        assert board.entrants[bot].skill.mu < start.mu
    for entrant in board.entrants.values():
        assert entrant.skill.sigma < start.sigma and entrant.played == 1
        assert entrant.skill.matches == 1


def test_a_match_is_applied_once():
    match = result("m1", "B", **SIX)
    once = apply_result(Board(), match)
    assert once is not None and once.applied == ["m1"]
    assert apply_result(once, match) is None
    assert apply_result(once, result("m1", "A", **SIX)) is None  # the id decides, not the text


def test_uncertainty_keeps_shrinking_with_matches():
    board = Board()
    sigmas = []
    for i in range(5):
        board = apply_result(board, result(f"m{i}", "A" if i % 2 else "B", **SIX)) or board
        sigmas.append(board.entrants["a1"].skill.sigma)
    assert sigmas == sorted(sigmas, reverse=True) and len(set(sigmas)) == 5


def test_a_draw_leaves_equal_teams_where_they_were():
    board = apply_result(Board(), result("m1", "draw", **SIX))
    assert board is not None
    assert board.entrants["a1"].skill.mu == pytest.approx(Skill().mu)


def test_faction_ratings_are_kept_per_faction_played():
    board = apply_result(Board(), result("m1", "A", A2="x", B2="y"))
    assert board is not None
    assert set(board.entrants["x"].factions) == {"eyrie"}
    assert set(board.entrants["y"].factions) == {"alliance"}
    assert board.entrants["x"].factions["eyrie"].mu > Skill().mu
    assert board.entrants["x"].teams == {"A": 1}


def test_fillers_are_not_on_the_board():
    board = apply_result(Board(), result("m1", "A", A1="x"))
    assert board is not None and set(board.entrants) == {"x"}


def test_a_filler_plays_with_its_bots_standing_rating_which_it_leaves_alone():
    """The filler is the server's greedy bot: once the board rates ``builtin:greedy``, a
    filler seat plays with that rating (not a fresh one), so a result tells the rated seats
    more (their uncertainty shrinks further), and the filler's seat moves no rating."""
    five = {seat: bot for seat, bot in SIX.items() if seat != "B3"}  # B3: the filler
    fresh = apply_result(Board(), result("m1", "A", **five))
    assert fresh is not None
    known = Board()
    known.entrants["builtin:greedy"] = EntrantRecord(
        bot_id="builtin:greedy", name="greedy", builtin=True, skill=Skill(mu=20.0, sigma=1.5)
    )
    rated = apply_result(known, result("m1", "A", **five))
    assert rated is not None
    for bot in five.values():
        assert rated.entrants[bot].skill.sigma < fresh.entrants[bot].skill.sigma
    assert rated.entrants["builtin:greedy"].skill == Skill(mu=20.0, sigma=1.5)
    assert rated.entrants["builtin:greedy"].played == 0


def test_a_void_match_is_listed_and_rates_nobody():
    board = apply_result(Board(), result("m1", "", state="void", **SIX))
    assert board is not None
    assert board.entrants == {} and board.applied == ["m1"] and board.recent[0].state == "void"


def test_a_bot_that_left_is_rated_by_the_result_and_counted_as_left():
    match = result("m1", "B", **SIX)
    match.seats[0].left = True  # A1, on the losing team
    board = apply_result(Board(), match)
    assert board is not None
    assert board.entrants["a1"].left == 1 and board.entrants["a1"].skill.mu < Skill().mu


TEAMS = {"A1": "x", "A2": "x", "A3": "x", "B1": "y", "B2": "y", "B3": "y"}


def test_a_whole_team_is_one_player_of_the_overall_rating_and_three_of_the_factions():
    board = apply_result(Board(), result("m1", "A", **TEAMS))
    assert board is not None
    model = PlackettLuce()
    [[won], [lost]] = model.rate([[model.rating()], [model.rating()]], ranks=[1.0, 2.0])
    x, y = board.entrants["x"], board.entrants["y"]
    # one player a team: the update of a match between two players, counted once
    assert (x.skill.mu, x.skill.sigma) == pytest.approx((won.mu, won.sigma))
    assert (y.skill.mu, y.skill.sigma) == pytest.approx((lost.mu, lost.sigma))
    assert (x.played, x.skill.matches, x.teams, x.met) == (1, 1, {"A": 1}, {"y": 1})
    assert y.met == {"x": 1} and y.teams == {"B": 1}
    # per faction, each seat's faction is a player of its team
    assert set(x.factions) == {"marquise", "eyrie", "vagabond"}
    assert set(y.factions) == {"marquise", "alliance", "vagabond"}
    assert all(f.mu > Skill().mu and f.matches == 1 for f in x.factions.values())
    assert all(f.mu < Skill().mu for f in y.factions.values())


def test_a_whole_team_that_left_counts_one_match_left_and_is_rated_all_the_same():
    match = result("m1", "B", **TEAMS)
    for seat in match.seats[:2]:
        seat.left = True
    board = apply_result(Board(), match)
    assert board is not None
    assert (board.entrants["x"].left, board.entrants["y"].left) == (1, 0)
    assert board.entrants["x"].skill.mu < Skill().mu


def test_a_team_of_fillers_plays_at_the_standing_rating_of_its_bot_and_is_not_moved():
    greedy = EntrantRecord(bot_id="builtin:greedy", name="greedy", builtin=True)
    greedy.skill = Skill(mu=30.0, sigma=2.0, matches=50)
    board = Board(entrants={"builtin:greedy": greedy})
    alone = {"A1": "x", "A2": "x", "A3": "x"}
    after = apply_result(board, result("m1", "A", **alone))
    assert after is not None
    assert after.entrants["builtin:greedy"] == greedy
    assert set(after.entrants) == {"builtin:greedy", "x"}
    # beating a team rated 30 lifts x further than beating a fresh one would
    fresh = apply_result(Board(), result("m1", "A", **alone))
    assert fresh is not None and set(fresh.entrants) == {"x"}
    assert after.entrants["x"].skill.mu > fresh.entrants["x"].skill.mu


def test_bad_results_are_refused_and_change_nothing():
    board = Board()
    with pytest.raises(ValueError, match="winner"):
        apply_result(board, result("m1", "C", **SIX))
    with pytest.raises(ValueError, match="both teams"):
        apply_result(board, result("m1", "A", A1="x", B1="x"))
    with pytest.raises(ValueError, match="playing"):
        apply_result(board, result("m1", "", state="playing"))
    assert board == Board()


def test_the_board_ranks_ranked_entrants_first_and_remembers_a_bounded_history():
    board = Board()
    for i in range(3):
        board = apply_result(board, result(f"m{i}", "A", A1="strong", B1="weak")) or board
    board = apply_result(board, result("m9", "A", A1="newcomer")) or board
    ranked = board.ranked(ranked_after=3)
    assert [e.bot_id for e in ranked] == ["strong", "weak", "newcomer"]
    assert len(board.applied) <= APPLIED_KEPT
