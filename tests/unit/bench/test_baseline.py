"""The baseline every component benchmark divides by, and its ratios."""

from __future__ import annotations

import pytest

from frontier.bench.baseline import Baseline


def test_a_ticked_baseline_has_a_rate_and_an_unticked_one_none() -> None:
    baseline = Baseline()
    assert baseline.ops_per_us == 0.0
    baseline.tick(2)
    assert baseline.ops > 0 and baseline.seconds > 0
    assert baseline.ops_per_us == pytest.approx(baseline.ops / baseline.seconds / 1e6)
    assert baseline.as_json() == {"baseline_ops_per_us": round(baseline.ops_per_us, 3)}


def test_every_microsecond_figure_gets_its_baseline_twin_and_nothing_else_does() -> None:
    baseline = Baseline()
    baseline.ops, baseline.seconds = 3_000_000, 1.0  # 3 ops per µs
    figures = {
        "fold_us_per_batch": 2.0,
        "clone_us": 1.5,
        "batches": 10,
        "mode": "unary",
        "server_switches_per_call": 0.5,
        "users": 4,
    }
    assert baseline.ratios(figures) == {
        "fold_baseline_ops_per_batch": 6.0,
        "clone_baseline_ops": 4.5,
    }
