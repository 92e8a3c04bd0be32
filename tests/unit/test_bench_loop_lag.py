"""``frontier bench stack`` reports how late the players' loop runs its timers."""

from __future__ import annotations

import asyncio

from frontier.bench.stack import lag_summary, loop_lag


def test_the_lag_is_how_late_each_timer_fired_until_done() -> None:
    # each sample reads the clock twice, before and after its 1 ms timer: 3 ms late, on
    # time, 250 ms late; done is set during the third sample, so there are exactly three
    readings = iter([0.0, 0.004, 10.0, 10.001, 20.0, 20.251])
    done = asyncio.Event()

    def clock() -> float:
        value = next(readings)
        if value == 20.251:
            done.set()
        return value

    lags = asyncio.run(loop_lag(done, 0.001, clock))
    assert [round(lag, 6) for lag in lags] == [3.0, 0.0, 250.0]


def test_a_timer_that_fired_early_counts_as_on_time() -> None:
    readings = iter([5.0, 5.0005])
    done = asyncio.Event()

    def clock() -> float:
        value = next(readings)
        if value == 5.0005:
            done.set()
        return value

    assert asyncio.run(loop_lag(done, 0.001, clock)) == [0.0]


def test_the_summary_is_p50_p99_and_max() -> None:
    lags = [float(i) for i in range(101)]
    assert lag_summary(lags) == {"p50": 50.0, "p99": 99.0, "max": 100.0}
    assert lag_summary([]) == {"p50": 0.0, "p99": 0.0, "max": 0.0}
