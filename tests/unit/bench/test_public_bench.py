"""``frontier bench public``'s arithmetic: events dated from the submit of the command that
produced them, the cost per watcher net of the baseline's, ratios of the loaded canary to
the baseline one, and a table that shows every figure (the stack runs are in
tests/integration/test_bench_public.py)."""

from __future__ import annotations

from typing import Any, cast

from frontier.bench import public, public_loads
from frontier.bench.canary import Canary
from frontier.bench.cpu import Sample
from frontier.bench.watch_load import WatchResult


def _canary(latencies: list[float]) -> Canary:
    # commands at t=10 (versions 3..4) and t=20 (versions 5..7)
    return Canary("m", latencies, [(10.0, 2, 4), (20.0, 4, 7)])


def test_each_event_is_dated_from_its_command_submit() -> None:
    assert _canary([1.0, 2.0]).submitted_at() == {3: 10.0, 4: 10.0, 5: 20.0, 6: 20.0, 7: 20.0}


def test_watch_figures_give_delays_and_the_cost_per_watcher_beyond_the_baseline() -> None:
    result = WatchResult(admitted=2, receipts={3: [10.5, 10.7], 7: [20.1, 20.3], 1: [5.0]})
    baseline = {"baseline_cpu_ms_per_s": {"orchestrator": 10.0}, "baseline_events_per_s": 2.0}
    run = cast(public_loads.Run, type("R", (), baseline))
    samples: dict[str, Any] = {
        "before": Sample({"orchestrator": 0.0}, {"orchestrator": 1000}),
        "opened": Sample({"orchestrator": 100.0}, {"orchestrator": 1100}),
    }
    played = Sample({"orchestrator": 400.0}, {"orchestrator": 1200})
    figures = public_loads._watch_figures(run, _canary([]), result, samples, played, 10.0)
    # seq 1 came before the first command: not dated; the others 100..700 ms after
    assert figures["events produced / received"] == "5 / 4 (of 10)"
    assert figures["event delay p50 (ms)"] in (300.0, 500.0)
    assert figures["event delay p99 (ms)"] == 700.0
    # 300 ms used over 10 s, 100 of them the baseline's: 200 ms for 4 events delivered
    assert figures["orchestrator CPU us per watcher-event"] == 50_000.0
    assert figures["orchestrator RSS KiB per watcher"] == 50.0
    # 10,000 watchers of 2 events/s at 50 ms each
    assert figures["orchestrator at 10,000 watchers"] == "1000.00 cores at 2.0 events/s, 488 MiB"


def test_the_report_divides_the_loaded_canary_by_the_baseline_and_prints_every_figure() -> None:
    report = public._report(
        "replays",
        200,
        200.0,
        _canary([10.0, 20.0, 30.0]),
        _canary([20.0, 30.0, 90.0]),
        {"RSS after/before": 1.02},
    )
    assert (report.ratio_p50, report.ratio_p99) == (1.5, 3.0)
    assert report.engine in ("compiled", "pure-python")
    text = public.table(report)
    assert "x1.5" in text and "x3.0" in text and "RSS after/before" in text and "1.02" in text


def test_grown_metrics_are_the_differences_of_two_scrapes() -> None:
    before = {"frontier_replay_exports_total{source=cache}": 2.0, "other{}": 1.0}
    after = {
        "frontier_replay_exports_total{source=cache}": 201.0,
        "frontier_replay_exports_total{source=computed}": 1.0,
        "other{}": 5.0,
    }
    assert public_loads.grown(before, after, "frontier_replay_exports_total") == {
        "{source=cache}": 199.0,
        "{source=computed}": 1.0,
    }
