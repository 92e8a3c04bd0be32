"""A seat's record: think-time percentiles by nearest rank, the refused answers bounded to
the latest ones, and those shown to the seat itself only."""

from __future__ import annotations

import pytest

from frontier.engine import Seat
from frontier.orchestrator.seat_records import (
    KEPT_REJECTIONS,
    Rejection,
    SeatPlay,
    nearest_rank,
    seat_record,
)
from frontier.v1 import errors_pb2, types_pb2


@pytest.mark.parametrize(
    ("values", "percent", "expected"),
    [
        ([7], 50, 7),
        ([7], 99, 7),
        ([1, 2, 3, 4], 50, 2),
        (list(range(1, 101)), 99, 99),
        (list(range(1, 101)), 50, 50),
        (list(range(1, 201)), 99, 198),
    ],
)
def test_nearest_rank_is_the_smallest_value_with_enough_at_or_below_it(values, percent, expected):
    assert nearest_rank(values, percent) == expected


def test_think_time_summary_counts_every_answer_of_the_seat():
    play = SeatPlay()
    for ms in (30, 10, 20, 5000):
        play.answered(ms)
    summary = play.summary()
    assert (summary.count, summary.p50_ms, summary.p99_ms, summary.max_ms) == (4, 20, 5000, 5000)


def test_a_seat_that_never_answered_has_an_empty_summary():
    assert SeatPlay().summary().count == 0


def test_only_the_latest_refused_answers_are_kept_but_all_are_counted():
    play = SeatPlay()
    for i in range(KEPT_REJECTIONS + 5):
        play.refused(str(i), f"id-{i}", Rejection("UNKNOWN_LEGAL_ID", "no such id"))
    assert play.rejected_count == KEPT_REJECTIONS + 5
    assert play.rejected[0].decision_id == "5"
    assert len(play.rejected) == KEPT_REJECTIONS


def test_refused_answers_echo_bounded_ids():
    play = SeatPlay()
    play.refused("9" * 500, "x" * 5000, Rejection("STALE_VERSION", "closed"))
    kept = play.rejected[0]
    assert (len(kept.decision_id), len(kept.command_id)) == (64, 256)


def test_refused_answers_are_shown_to_their_own_seat_only():
    play = SeatPlay()
    play.answered(12)
    play.refused("3", "nope", Rejection("UNKNOWN_LEGAL_ID", "no legal command with id 'nope'"))
    own = seat_record(Seat.A2, play, strikes=1, taken_over=False, viewer=Seat.A2)
    assert own.seat == types_pb2.SEAT_A2
    assert (own.strikes, own.answered, own.rejected_count) == (1, 1, 1)
    assert own.rejected[0].reason == "UNKNOWN_LEGAL_ID"
    assert own.rejected[0].reason_code == errors_pb2.ERROR_REASON_UNKNOWN_LEGAL_ID
    for viewer in (None, Seat.A1, Seat.B2):
        other = seat_record(Seat.A2, play, strikes=1, taken_over=False, viewer=viewer)
        assert (other.strikes, other.answered, other.think_time.max_ms) == (1, 1, 12)
        assert other.rejected_count == 0
        assert not other.rejected


def test_standing_answers_look_to_others_as_they_do_in_watch_events():
    """Others see a standing answer as the seat's own answer after 0 ms; the seat itself
    does not count it as its client's answer."""
    play = SeatPlay()
    play.answered(40)
    play.answered_by_standing_answer()
    own = seat_record(Seat.B1, play, strikes=0, taken_over=False, viewer=Seat.B1)
    assert (own.answered, own.think_time.count, own.think_time.p50_ms) == (1, 1, 40)
    other = seat_record(Seat.B1, play, strikes=0, taken_over=False, viewer=None)
    assert (other.answered, other.think_time.count, other.think_time.p50_ms) == (2, 2, 0)
    assert other.think_time.max_ms == 40
