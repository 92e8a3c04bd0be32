"""Frontier's victory rulings: 90 points wins at once (R30), the round-six tiebreaks (R30),
the score floor (R31) and the seat's points going to its team (R32).

Each test is named after the ruling (VARIANT_RULES.md) it checks.
"""

from __future__ import annotations

import pytest

from frontier.engine import (
    Command,
    CommandKind,
    EventKind,
    GameOver,
    Seat,
    State,
    Team,
    legal_commands,
)
from frontier.engine.ctx import Ctx, MatchEnded
from frontier.engine.pieces import clearings_ruled
from tests.engine_helpers import (
    A,
    B,
    assert_refused,
    first_legal,
    play,
    position,
)

# ----- R30 / R31: victory and the score floor ---------------------------------------------------


def test_R30_90_points_wins_immediately() -> None:
    state = position(
        pieces={"autumn.creek": {A: {"warrior": 1, "sawmill": 1, "wood": 1}}},
    )
    state.scores[Team.A] = 89
    events = play(
        state, first_legal(state, CommandKind.BUILD, clearing="autumn.creek", piece="sawmill")
    )
    assert events[-1].kind is EventKind.GAME_ENDED
    assert state.winner == "A" and state.over
    assert state.scores[Team.A] == 90
    assert "score" in state.end_reason
    assert legal_commands(state, A) == [] and legal_commands(state, B) == []
    assert_refused(state, Command(CommandKind.END_PHASE, A), GameOver, match="over")


def test_R30_90_points_checked_after_any_score_even_the_rivals() -> None:
    state = position()
    state.scores[Team.B] = 89
    ctx = Ctx(state)
    with pytest.raises(MatchEnded):
        ctx.score(B, 1, "test")
    assert state.winner == "B"
    assert ctx.events[-1].kind is EventKind.GAME_ENDED


def _last_turn(scores: tuple[int, int], pieces: dict[str, dict[Seat, dict[str, int]]]) -> State:
    state = position(turn=B, actions=0, pieces=pieces)
    state.round = 6
    state.scores[Team.A], state.scores[Team.B] = scores
    play(state, Command(CommandKind.END_PHASE, B))
    return state


def test_R30_round_six_tiebreaks_score_then_clearings_then_warriors_then_draw() -> None:
    # 1. score
    s = _last_turn((10, 12), {"autumn.creek": {A: {"warrior": 5}}})
    assert s.winner == "B" and "score" in s.end_reason
    # 2. equal score: more clearings ruled
    s = _last_turn(
        (10, 10),
        {
            "autumn.creek": {A: {"warrior": 5}},
            "winter.pit": {B: {"warrior": 1}},
            "winter.dale": {B: {"warrior": 1}},
        },
    )
    assert s.winner == "B" and "clearing" in s.end_reason
    # 3. equal score and clearings: more warriors on the board
    s = _last_turn(
        (10, 10), {"autumn.creek": {A: {"warrior": 5}}, "winter.pit": {B: {"warrior": 2}}}
    )
    assert s.winner == "A" and "warrior" in s.end_reason
    # 4. everything equal: a draw
    s = _last_turn(
        (10, 10), {"autumn.creek": {A: {"warrior": 2}}, "winter.pit": {B: {"warrior": 2}}}
    )
    assert s.winner == "draw"


def test_R30_clearings_ruled_counts_the_whole_mega_map() -> None:
    state = position(
        pieces={"autumn.creek": {B: {"warrior": 1}}, "winter.pit": {B: {"warrior": 1}}}
    )
    assert clearings_ruled(state, Team.B) == 2
    assert clearings_ruled(state, Team.A) == 0


def test_R30_match_does_not_end_before_the_last_turn_of_round_six() -> None:
    state = position(turn=A, actions=0, pieces={"winter.pit": {B: {"warrior": 2}}})
    state.round = 6
    play(state, Command(CommandKind.END_PHASE, A))
    assert not state.over and state.turn_seat is B
    assert state.step == "daylight.actions"  # B may still march: its turn waits


def test_R31_score_never_below_zero() -> None:
    state = position()
    state.scores[Team.A] = 3
    ctx = Ctx(state)
    ctx.score(A, -5, "penalty")
    assert state.scores[Team.A] == 0
    assert ctx.events[0].amount == -3
    ctx.score(A, -2, "penalty")
    assert state.scores[Team.A] == 0
    assert len(ctx.events) == 1  # nothing to lose: no event


def test_R32_seat_vp_is_recorded_and_goes_to_the_team_score() -> None:
    state = position(pieces={"autumn.creek": {A: {"warrior": 1, "sawmill": 1, "wood": 1}}})
    play(state, first_legal(state, CommandKind.BUILD, clearing="autumn.creek", piece="sawmill"))
    assert state.seats[A].vp == 1
    assert state.scores == {Team.A: 1, Team.B: 0}
