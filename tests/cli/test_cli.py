"""The ``frontier`` command line, called in-process through ``main(argv)``.

One test runs the installed console script in a subprocess, to check the entry point itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from frontier.cli.main import main

PLAY_KEYS = {"winner", "scores", "rounds", "commands", "state_hash", "reason", "seed", "lineup"}
BENCH_KEYS = {
    "commands_per_s",
    "matches_per_s",
    "matches",
    "commands",
    "seconds",
    "lineup",
    "ratio_vs_baseline",
}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _play_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = _run(capsys, "play", "--json", *argv)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 1, "--json prints exactly one JSON object"
    result: dict[str, Any] = json.loads(lines[0])
    return result


def test_play_json_has_the_keys_and_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    first = _play_json(capsys, "--seed", "3")
    assert set(first) >= PLAY_KEYS
    assert first["winner"] in {"A", "B", "draw"}
    assert set(first["scores"]) == {"A", "B"}
    assert first["seed"] == 3
    assert first["rounds"] >= 1 and first["commands"] > 0
    assert len(first["state_hash"]) == 64
    assert _play_json(capsys, "--seed", "3") == first


def test_different_seeds_usually_differ(capsys: pytest.CaptureFixture[str]) -> None:
    hashes = {_play_json(capsys, "--seed", str(seed))["state_hash"] for seed in range(4)}
    assert len(hashes) > 1


def test_play_prints_a_round_by_round_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "play", "--seed", "1", "--lineup", "A=marquise;B=marquise")
    assert code == 0
    assert "score A" in out and "warriors B" in out and "buildings A" in out
    assert "1 start" in out and " end " in out
    assert "result: " in out and "state hash: " in out


def test_play_replay_then_replay_succeeds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "m.json"
    played = _play_json(capsys, "--seed", "5", "--replay", str(path))
    assert played["replay"] == str(path)
    code, out, _ = _run(capsys, "replay", str(path))
    assert code == 0
    assert "ok:" in out and played["state_hash"] in out


def test_tampered_replay_exits_1_naming_the_index(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "m.json"
    assert main(["play", "--seed", "2", "--replay", str(path)]) == 0
    data = json.loads(path.read_text())
    index = next(i for i, e in enumerate(data["events"]) if e["kind"] == "pieces_placed")
    data["events"][index]["count"] += 1
    path.write_text(json.dumps(data))
    capsys.readouterr()
    code, out, _ = _run(capsys, "replay", str(path))
    assert code == 1
    assert f"event {index}" in out


@pytest.mark.parametrize("content", ["", "{not json", '{"format": "frontier.replay/1"}', "[]"])
def test_malformed_replay_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = _run(capsys, "replay", str(path))
    assert code == 2
    assert out == ""
    assert err.startswith("frontier: error: ") and str(path) in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_replay_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _run(capsys, "replay", str(tmp_path / "nope.json"))
    assert code == 2 and "cannot read" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--lineup", "A=marquise;B=dragons"], "unknown faction 'dragons'"),
        (["play", "--lineup", "A=marquise"], "team B has no faction"),
        (["play", "--seed", "-1"], "seed"),
        (["play", "--seed", "many"], "invalid int value: 'many'"),
        (["play", "--bot", "psychic"], "invalid choice: 'psychic'"),
        (["stack", "play", "--bot", "psychic"], "invalid choice: 'psychic'"),
        (["bench", "engine", "--lineup", "B=marquise"], "team A has no faction"),
        (["bench", "engine", "--matches", "0"], "must be at least 1"),
        (["bench"], "required"),
        (["bench", "wire", "--matches", "0"], "must be at least 1"),
        (["bench", "publish", "--publishes", "2", "--in-flight", "3"], "must not exceed"),
        (["bench", "domain-calls", "--calls", "2", "--in-flight", "3"], "must not exceed"),
        (["bench", "search", "guess"], "invalid choice: 'guess'"),
        ([], "required"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("frontier: error: ")
    assert message in err
    assert err.count("\n") == 1


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "play", "--help")
    assert code == 0 and "--replay" in out


def test_bench_engine_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "bench", "engine", "--matches", "2", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert set(result) >= BENCH_KEYS
    assert result["matches"] == 2
    assert result["commands"] > 0


def test_bench_engine_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "bench", "engine", "--matches", "1", "--seed", "7")
    assert code == 0
    assert "commands/s" in out and "ratio vs base" in out


def test_bench_wire_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "wire", "--matches", "1", "--repeat", "1", "--lineup", "A=marquise;B=marquise"]
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["batches"] > 0 and result["baseline_ops_per_us"] > 0
    assert result["fold_baseline_ops_per_batch"] > 0


def test_installed_console_script(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "frontier"
    if not script.exists():
        pytest.skip("the frontier console script is not installed next to this interpreter")
    replay = tmp_path / "r.json"
    played = subprocess.run(
        [str(script), "play", "--json", "--seed", "9", "--replay", str(replay)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert played.returncode == 0, played.stderr
    assert set(json.loads(played.stdout)) >= PLAY_KEYS
    checked = subprocess.run(
        [str(script), "replay", str(replay)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    bad = subprocess.run(
        [str(script), "play", "--lineup", "A=nobody"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr and bad.stderr.startswith("frontier: error: ")
