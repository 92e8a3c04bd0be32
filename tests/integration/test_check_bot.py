"""``frontier check-bot`` and the ``frontier.testing`` pytest plugin, against real stacks.

Each check is one match of one round (``--rounds 1``) against the greedy built-in bots, so
a test takes seconds: the Node bot and the Python SDK's ``frontier bot`` pass; a bot that
answers with an unknown legal id fails the check, and the report names the reason.  The
plugin's ``frontier_stack`` and ``play_with`` fixtures play a Python bot in-process.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from frontier.bots.sdk import Decision
from frontier.cli.main import main
from frontier.testing.stacks import StackHandle
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
NODE_BOT = ROOT / "bots" / "node"
PYTHON_BOT = f"{Path(sys.executable).parent / 'frontier'} bot --kind greedy"
BAD_BOT = f"{sys.executable} {Path(__file__).parent / 'bad_bot.py'}"


def check(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, *flags: str):
    """Run ``frontier check-bot`` on one one-round match; its exit status and JSON report."""
    status = main(
        [
            *("check-bot", "--cmd", command, "--matches", "1", "--rounds", "1"),
            *("--no-web", "--json", "--workdir", str(tmp_path), *flags),
        ]
    )
    return status, json.loads(capsys.readouterr().out)


def assert_clean_pass(status: int, report: dict[str, Any]) -> None:
    (match,) = report["matches"]
    assert (status, report["ok"], match["problems"]) == (0, True, [])
    assert match["finished"] and match["winner"] in {"A", "B", "draw"}
    assert match["bot_exit"] == 0
    assert match["answered"] > 0 and match["think_p50_ms"] <= match["think_p99_ms"]
    assert (match["strikes"], match["rejected_count"], match["rejected"]) == (0, 0, [])
    assert "ExportReplay" in match["replay"] and match["match_id"] in match["replay"]
    assert json.loads(Path(match["replay_file"]).read_text())["format"].startswith("frontier.")


def test_the_python_sdk_bot_passes_the_check(capsys, tmp_path):
    status, report = check(capsys, tmp_path, PYTHON_BOT)
    assert_clean_pass(status, report)
    assert report["matches"][0]["faction"] == "marquise"


def test_the_node_bot_passes_the_check(capsys, tmp_path):
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the Node.js bot cannot run here")
    if not (NODE_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        pytest.skip("bots/node has no node_modules: run `make node-bot` first")
    status, report = check(capsys, tmp_path, f"node {NODE_BOT / 'bot.js'}", "--seed", "7")
    assert_clean_pass(status, report)


def test_a_bot_answering_an_unknown_legal_id_fails_the_check_with_the_reason(capsys, tmp_path):
    status, report = check(capsys, tmp_path, BAD_BOT)
    (match,) = report["matches"]
    assert status == 1 and report["ok"] is False
    assert match["finished"] and match["bot_exit"] == 0  # it played on: only the answer was bad
    assert match["rejected_count"] == 1
    (rejected,) = match["rejected"]
    assert rejected["reason"] == "UNKNOWN_LEGAL_ID"
    assert rejected["command_id"] == "no-such-legal-id"
    assert "no-such-legal-id" in rejected["message"]
    assert match["problems"] == ["1 rejected answer(s): UNKNOWN_LEGAL_ID"]


def test_the_table_names_the_failure_and_where_to_replay(capsys, tmp_path):
    status = main(
        [
            *("check-bot", "--cmd", BAD_BOT, "--matches", "1", "--rounds", "1"),
            *("--workdir", str(tmp_path)),
        ]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert "FAILED" in out and "rejected: UNKNOWN_LEGAL_ID" in out
    assert "replay:  http://127.0.0.1:" in out and "/match?match=" in out  # the web gateway
    assert "0 of 1 matches passed" in out


class FirstLegal:
    """A Python bot as an SDK author writes one."""

    def choose(self, decision: Decision) -> str:
        return decision.legal[-1].id


def test_play_with_plays_a_python_bot_class_on_the_session_stack(play_with):
    report = play_with(FirstLegal, "eyrie", "random", max_rounds=1)
    assert report.ok, report.problems
    assert (report.seat, report.faction, report.finished) == ("A2", "eyrie", True)
    assert report.answered > 0


def test_play_with_reports_a_python_bot_that_raises(frontier_stack: StackHandle):
    def broken(decision: Decision) -> str:
        raise RuntimeError("my bot has a bug")

    report = frontier_stack.play_with(broken, "ranger", max_rounds=1, timeout_s=120)
    assert not report.ok
    assert report.seat == "A3" and "ranger" in report.lineup
    assert any("my bot has a bug" in p for p in report.problems)
    assert any("did not finish" in p for p in report.problems)  # abandoned at once


def test_a_seats_refused_answers_are_its_own(frontier_stack: StackHandle):
    """Another seat and a spectator see the bot's strikes and think times, never the
    answers it had refused."""
    report = frontier_stack.play_with(BAD_BOT, "alliance", max_rounds=1)
    assert report.rejected_count == 1 and report.seat == "B2"
    with grpc.insecure_channel(frontier_stack.address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        info = stub.GetMatchInfo(match_pb2.GetMatchInfoRequest(match_id=report.match_id))
    assert len(info.seat_records) == 6
    (bot,) = [r for r in info.seat_records if r.seat == types_pb2.SEAT_B2]
    assert bot.answered == bot.think_time.count == report.answered
    assert bot.rejected_count == 0 and not bot.rejected
