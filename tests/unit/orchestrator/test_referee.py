"""The match clock: budget, reserve, strikes and takeover (pure functions of the referee)."""

from __future__ import annotations

import pytest

from frontier.engine import initial_state, make_config
from frontier.orchestrator import referee
from frontier.orchestrator.referee import ClockConfig, InvalidClock, record_for, settle
from frontier.store.snapshot import CommandResult, SeatClock, Snapshot, decode, encode

CLOCK = ClockConfig.make(budget_ms=1000, reserve_ms=5000, strike_limit=2, takeover_bot="")


def test_defaults_and_validation() -> None:
    assert CLOCK.enabled and CLOCK.takeover_bot == "greedy" and CLOCK.strike_limit == 2
    assert not ClockConfig().enabled
    assert ClockConfig.make(100, 0, 0, "random").strike_limit == referee.DEFAULT_STRIKE_LIMIT
    for args in (
        (-1, 0, 0, ""),
        (referee.DAY_MS + 1, 0, 0, ""),
        (0, 1000, 0, ""),  # a reserve without a budget
        (100, 0, 101, ""),
        (100, 0, 0, "psychic"),
    ):
        with pytest.raises(InvalidClock):
            ClockConfig.make(*args)
    assert ClockConfig.from_record(CLOCK.as_record()) == CLOCK
    assert ClockConfig.from_record({}) == ClockConfig()


def test_answer_within_budget_keeps_the_reserve() -> None:
    record, after = settle(CLOCK, CLOCK.fresh(), "7", referee.SEAT, 400)
    assert after == SeatClock(5000, 0, False)
    assert (record.decision_id, record.elapsed_ms, record.reserve_ms) == ("7", 400, 5000)
    assert record.answered_by == referee.SEAT and not record.taken_over


def test_time_beyond_the_budget_comes_out_of_the_reserve_and_is_not_banked() -> None:
    _, after = settle(CLOCK, CLOCK.fresh(), "1", referee.SEAT, 3500)
    assert after.reserve_ms == 2500
    _, after = settle(CLOCK, after, "2", referee.SEAT, 10)  # unused budget is not banked
    assert after.reserve_ms == 2500
    _, after = settle(CLOCK, after, "3", referee.SEAT, 99_000)
    assert after.reserve_ms == 0
    assert CLOCK.allowance_ms(after) == 1000


def test_timeouts_strike_and_hand_the_seat_to_the_bot_at_the_limit() -> None:
    first, after = settle(CLOCK, CLOCK.fresh(), "3", referee.TIMEOUT, 123)
    assert first.elapsed_ms == 6000  # the whole allowance, whatever was measured
    assert (after.reserve_ms, after.strikes, after.taken_over) == (0, 1, False)
    second, after = settle(CLOCK, after, "9", referee.TIMEOUT, 0)
    assert (second.strikes, second.taken_over, after.taken_over) == (2, True, True)
    third, after = settle(CLOCK, after, "12", referee.BUILT_IN_BOT, 50)
    assert third.elapsed_ms == 0 and not third.taken_over  # only the handing-over decision
    assert after.taken_over and after.strikes == 2


def test_automatic_answers_take_no_time() -> None:
    record, after = settle(CLOCK, SeatClock(700, 1), "4", referee.STANDING_ANSWER, 900)
    assert record.elapsed_ms == 0 and after == SeatClock(700, 1, False)


def test_a_standing_answer_is_shown_as_the_seats_own_to_everyone_else() -> None:
    record, _ = settle(CLOCK, CLOCK.fresh(), "4", referee.STANDING_ANSWER, 0)
    assert record_for(record, "A1", "A1").answered_by == referee.STANDING_ANSWER
    for viewer in ("B1", "A2", None):
        shown = record_for(record, "A1", viewer)
        assert shown.answered_by == referee.SEAT
        assert shown.decision_id == record.decision_id
    assert record.answered_by == referee.STANDING_ANSWER  # the stored record is untouched
    timeout, _ = settle(CLOCK, CLOCK.fresh(), "5", referee.TIMEOUT, 0)
    assert record_for(timeout, "A1", None).answered_by == referee.TIMEOUT  # public


def test_snapshots_keep_the_clocks() -> None:
    state = initial_state(make_config(seed=3, lineup="A=marquise;B=marquise"))
    ids = {("A1", "x"): CommandResult(1, 2, "end_phase:A1", "A2", "")}
    snap = Snapshot(state, 12, ids, {"A1": SeatClock(300, 2, True)})
    back = decode(encode(snap))
    assert back is not None and back.clocks == {"A1": SeatClock(300, 2, True)}
    assert back.command_ids == ids
    assert decode(b"not a snapshot") is None
