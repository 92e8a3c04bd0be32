"""Repeated failures make one log line per kind, a summary per interval and one on recovery
(runtime/failure_log.py), on an injected clock: nothing here waits."""

from __future__ import annotations

import logging

import pytest

from frontier.runtime.failure_log import FailureLog, cause_of


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "test.failures"]


def test_the_first_failure_is_logged_with_its_cause_and_repeats_are_counted(
    caplog: pytest.LogCaptureFixture, clock: Clock
) -> None:
    failures = FailureLog(logging.getLogger("test.failures"), interval_s=60.0, clock=clock)
    caplog.set_level(logging.INFO, "test.failures")
    for n in range(76):  # one failed renewal every 0.4 s for 30 s
        failures.failed("renew", "renewing the leases", TimeoutError(f"attempt {n}"))
        clock.now += 0.4
    (first,) = _lines(caplog)
    assert first.levelno == logging.WARNING
    assert "renewing the leases" in first.getMessage()
    assert "TimeoutError: attempt 0" in first.getMessage()
    assert first.exc_info is not None and first.exc_info[0] is TimeoutError  # the traceback once
    assert failures.failing("renew")


def test_repeats_are_summarised_at_most_once_per_interval(
    caplog: pytest.LogCaptureFixture, clock: Clock
) -> None:
    failures = FailureLog(logging.getLogger("test.failures"), interval_s=10.0, clock=clock)
    caplog.set_level(logging.INFO, "test.failures")
    for _ in range(100):  # 50 s of failures, two a second
        failures.failed("round", "following the stream", ConnectionError("gone"))
        clock.now += 0.5
    lines = _lines(caplog)
    # the first line, then one summary per full 10 s interval: at 10, 20, 30, 40 s
    assert len(lines) == 5
    summaries = [r.getMessage() for r in lines[1:]]
    assert all("failed 20 more time(s) in the last 10s" in m for m in summaries), summaries
    assert "81 since the first" in summaries[-1]
    assert all(r.exc_info is None for r in lines[1:])  # no traceback in a summary


def test_recovery_is_logged_once_and_a_new_outage_starts_over(
    caplog: pytest.LogCaptureFixture, clock: Clock
) -> None:
    failures = FailureLog(logging.getLogger("test.failures"), interval_s=60.0, clock=clock)
    caplog.set_level(logging.INFO, "test.failures")
    failures.recovered("renew", "renewing the leases")  # never failed: nothing to say
    assert _lines(caplog) == []
    for _ in range(3):
        failures.failed("renew", "renewing the leases", TimeoutError())
        clock.now += 1.0
    failures.recovered("renew", "renewing the leases")
    failures.recovered("renew", "renewing the leases")  # once only
    lines = _lines(caplog)
    assert len(lines) == 2
    assert lines[1].levelno == logging.INFO
    assert "works again after 3 failure(s) over 3.0s" in lines[1].getMessage()
    assert not failures.failing("renew")
    failures.failed("renew", "renewing the leases", TimeoutError())
    assert len(_lines(caplog)) == 3 and _lines(caplog)[2].exc_info is not None


def test_kinds_are_counted_apart(caplog: pytest.LogCaptureFixture, clock: Clock) -> None:
    failures = FailureLog(logging.getLogger("test.failures"), interval_s=60.0, clock=clock)
    caplog.set_level(logging.INFO, "test.failures")
    for _ in range(5):
        failures.failed("a", "doing a", ValueError("x"))
        failures.failed("b", "doing b", ValueError("y"))
    assert [r.getMessage().split(" (")[0] for r in _lines(caplog)] == [
        "doing a failed",
        "doing b failed",
    ]


def test_a_cause_names_its_type_and_message() -> None:
    assert cause_of(TimeoutError()) == "TimeoutError"
    assert cause_of(ConnectionError("refused")) == "ConnectionError: refused"
    assert cause_of(None) == "no exception"


def test_a_connection_back_ends_every_kind_it_failed(
    caplog: pytest.LogCaptureFixture, clock: Clock
) -> None:
    failures = FailureLog(logging.getLogger("test.failures"), interval_s=60.0, clock=clock)
    caplog.set_level(logging.INFO, "test.failures")
    failures.failed("refused", "reconnecting", ConnectionRefusedError())
    failures.failed("reset", "reconnecting", ConnectionResetError())
    failures.recovered_all("the connection")
    recoveries = [r.getMessage() for r in _lines(caplog) if r.levelno == logging.INFO]
    assert len(recoveries) == 2 and all("works again" in m for m in recoveries)
    assert not failures.failing("refused") and not failures.failing("reset")
