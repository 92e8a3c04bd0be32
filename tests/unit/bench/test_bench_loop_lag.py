"""``frontier bench stack``'s players: how late their loop runs its timers, and their collector."""

from __future__ import annotations

import asyncio
import gc

from frontier.bench.stack import lag_summary, loop_lag, tuned_collector


async def _lags(readings: list[float]) -> list[float]:
    """loop_lag's samples (1 ms timers) with a clock reading ``readings`` in turn; done is
    set at the last reading, so each pair of readings is one sample."""
    left = iter(readings)
    done = asyncio.Event()

    def clock() -> float:
        value = next(left)
        if value == readings[-1]:
            done.set()
        return value

    return [round(lag, 6) for lag in await loop_lag(done, 0.001, clock)]


async def test_the_lag_is_how_late_each_timer_fired_until_done() -> None:
    # each sample reads the clock before and after its timer: 3 ms late, on time, 250 ms late
    assert await _lags([0.0, 0.004, 10.0, 10.001, 20.0, 20.251]) == [3.0, 0.0, 250.0]


async def test_a_timer_that_fired_early_counts_as_on_time() -> None:
    assert await _lags([5.0, 5.0005]) == [0.0]


def test_the_summary_is_p50_p99_and_max() -> None:
    lags = [float(i) for i in range(101)]
    assert lag_summary(lags) == {"p50": 50.0, "p99": 99.0, "max": 100.0}
    assert lag_summary([]) == {"p50": 0.0, "p99": 0.0, "max": 0.0}


def test_the_players_collector_is_tuned_for_the_phase_only() -> None:
    thresholds = gc.get_threshold()
    with tuned_collector(12_345):
        assert gc.get_threshold()[0] == 12_345 and gc.get_freeze_count() > 0
    assert gc.get_threshold() == thresholds and gc.get_freeze_count() == 0
