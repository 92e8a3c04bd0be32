"""``frontier bench public`` on a real local stack, small: its JSON and what the figures say
about the load (every watcher admitted and served every event; one finished match's replay
computed once however many ask at once).  No figure is held to a time."""

from __future__ import annotations

import json
from typing import Any

import pytest

from frontier.cli.main import main

pytestmark = pytest.mark.integration

SMALL = ("--commands", "8", "--think-ms", "20", "--seconds", "60", "--json")


def _bench(capsys: pytest.CaptureFixture[str], scenario: str, n: int) -> dict[str, Any]:
    code = main(["bench", "public", "--scenario", scenario, "--n", str(n), *SMALL])
    out, err = capsys.readouterr()
    assert code == 0, err
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    assert result["scenario"] == scenario and result["n"] == n
    assert result["baseline_commands"] == result["loaded_commands"] == 8
    for phase in ("baseline", "loaded"):
        assert 0 < result[f"{phase}_p50_ms"] <= result[f"{phase}_p99_ms"]
    ratio = result["loaded_p99_ms"] / result["baseline_p99_ms"]
    assert result["ratio_p99"] == pytest.approx(ratio, abs=0.01)
    return result


def test_watchers_are_all_admitted_and_see_every_event(capsys: pytest.CaptureFixture[str]) -> None:
    figures = _bench(capsys, "watchers", 20)["figures"]
    assert figures["watchers admitted"] == 20 and figures["watchers refused"] == {}
    produced, received = figures["events produced / received"].split(" (")[0].split(" / ")
    assert int(received) == 20 * int(produced) > 0
    assert figures["orchestrator watch streams (spectator)"] == 20
    assert 0 <= figures["event delay p50 (ms)"] <= figures["event delay p99 (ms)"]


def test_concurrent_replays_of_a_finished_match_are_computed_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    figures = _bench(capsys, "replays", 10)["figures"]
    sources = figures["replay exports by source"]
    assert sources["{source=computed}"] == 1
    rounds = int(figures["export rounds (concurrent exports each)"].split()[0])
    assert sum(sources.values()) == 10 * rounds
