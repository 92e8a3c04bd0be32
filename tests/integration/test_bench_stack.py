"""``frontier bench stack``: its JSON keys and what they mean, on a real local stack."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from frontier.cli.main import main
from frontier.ops.stack import DOMAINS, NATS_GO_ENV, PYTHON_MALLOC_ENV, Stack
from frontier.play.load import play_many

from .client import MIRROR

pytestmark = pytest.mark.integration

STACK_KEYS = {
    "matches",
    "think_ms",
    "commands",
    "commands_per_s",
    "p50_ms",
    "p99_ms",
    "floor_p50_ms",
    "ratio_p50",
    "floor_hot_p50_ms",
    "ratio_hot_p50",
    "retries",
    "memory_per_match_kb",
}


def test_bench_stack_json_reports_latency_against_the_floor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["bench", "stack", "--matches", "2", "--think-ms", "2", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert set(result) >= STACK_KEYS
    assert result["matches"] == 2 and result["think_ms"] == 2
    assert result["commands"] > 100 and result["retries"] == 0
    assert result["memory_of"] == "finished"
    assert result["floor_p50_ms"] > 0 and 0 < result["p50_ms"] <= result["p99_ms"]
    assert result["ratio_p50"] == pytest.approx(result["p50_ms"] / result["floor_p50_ms"], 0.02)
    hot = result["floor_hot_p50_ms"]
    assert result["ratio_hot_p50"] == pytest.approx(result["p50_ms"] / hot, 0.02)
    # paced: the floor was probed alongside the matches, not copied from the hot one
    assert result["floor_p50_ms"] != hot
    assert result["client_loop"] == "uvloop"
    lag = result["client_loop_lag_ms"]
    assert 0 <= lag["p50"] <= lag["p99"] <= lag["max"]
    # nats-server's counts over the play phase: one stored batch per command, exactly
    nats = result["nats_per_command"]
    assert nats["stream_writes"]["FRONTIER_EVENTS"] == 1.0
    assert nats["by_connection"]["frontier-orchestrator"]["in_msgs"] >= 1.0
    assert nats["in_msgs"] >= nats["by_connection"]["frontier-orchestrator"]["in_msgs"]


def test_bench_stack_plays_the_same_on_the_standard_loop(
    capsys: pytest.CaptureFixture[str],
) -> None:
    flags = ["--matches", "1", "--commands-per-match", "30", "--client-loop", "asyncio"]
    code = main(["bench", "stack", *flags, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["client_loop"] == "asyncio" and result["commands"] == 30
    assert main(["bench", "stack", "--client-loop", "trio"]) != 0
    assert "invalid choice: 'trio'" in capsys.readouterr().err


def test_bench_stack_rejects_a_negative_think_time(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="think-ms"):
        main(["bench", "stack", "--think-ms", "-1"])


async def test_thinking_changes_the_pace_but_never_the_choices(stack: Stack) -> None:
    seeds = [71, 72]
    target = [stack.config.address("orchestrator")]
    fast = await play_many(target, seeds, MIRROR)
    paced = await play_many(target, seeds, MIRROR, think_s=0.002)
    assert [(r.commands, r.winner) for r in fast] == [(r.commands, r.winner) for r in paced]


def test_bench_stack_can_stop_matches_unfinished(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "stack", "--matches", "2", "--commands-per-match", "5", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["commands"] == 10 and result["commands_per_match"] == 5
    assert result["memory_of"] == "playing"
    by_process = result["memory_per_match_kb_by_process"]
    assert sum(by_process.values()) == pytest.approx(result["memory_per_match_kb"], abs=0.5)
    with pytest.raises(SystemExit, match="commands-per-match"):
        main(["bench", "stack", "--commands-per-match", "-1"])


async def test_a_match_can_stop_after_some_commands_unfinished(stack: Stack) -> None:
    target = [stack.config.address("orchestrator")]
    runs = await play_many(target, [73, 74], MIRROR, max_commands=4)
    assert [r.commands for r in runs] == [4, 4] and all(not r.winner for r in runs)


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)


def test_the_local_nats_server_runs_with_the_go_memory_settings(stack: Stack) -> None:
    env = _environ(stack.procs["nats"].pid)
    assert {k: env.get(k) for k in NATS_GO_ENV} == NATS_GO_ENV
    assert NATS_GO_ENV["GOGC"] == "50"


def test_the_python_services_run_with_two_malloc_arenas(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("orchestrator", *DOMAINS):
        env = _environ(stack.procs[name].pid)
        assert {k: env.get(k) for k in PYTHON_MALLOC_ENV} == {"MALLOC_ARENA_MAX": "2"}
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")  # the caller's own setting wins
    assert stack.service_env("map")["MALLOC_ARENA_MAX"] == "4"
