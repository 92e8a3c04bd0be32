"""``frontier check-bot --compose``: the bot is checked against the compose stack, brought up
through testcontainers from the repository's docker-compose.yml and torn down after, exactly
as a bot author runs it from a checkout (the process-stack checks are in
tests/integration/test_check_bot.py)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from frontier.cli.main import main
from frontier.testing.stacks import COMPOSE_PORTS, StackFailed, compose_stack

from .support import FRONTIER_IMAGE, PROJECT, ROOT, exclusive

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]

PYTHON_BOT = f"{Path(sys.executable).parent / 'frontier'} bot --kind greedy"


def test_the_python_sdk_bot_passes_the_check_against_the_compose_stack(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # check-bot --compose brings up the checkout it is run from
    with exclusive(PROJECT):  # the compose tests' ports are free only between their modules
        status = main(
            [
                *("check-bot", "--compose", "--cmd", PYTHON_BOT),
                *("--matches", "1", "--rounds", "1", "--json", "--workdir", str(tmp_path)),
            ]
        )
    report = json.loads(capsys.readouterr().out)
    (match,) = report["matches"]
    assert (status, report["ok"], match["problems"]) == (0, True, [])
    assert match["finished"] and match["winner"] in {"A", "B", "draw"}
    assert match["answered"] > 0 and match["strikes"] == 0 and match["rejected_count"] == 0
    assert json.loads(Path(match["replay_file"]).read_text())["format"].startswith("frontier.")


# A project whose one service exits at once: `up --wait` gives up on it.
BROKEN = f"""
name: frontier-broken
services:
  broken:
    image: {FRONTIER_IMAGE}
    network_mode: host
    command: ["python", "-c", "print('no settings: cannot start'); raise SystemExit(3)"]
"""


def test_a_stack_that_does_not_come_up_says_why_and_is_taken_down(tmp_path: Path) -> None:
    (tmp_path / "docker-compose.yml").write_text(BROKEN)
    with exclusive(PROJECT), pytest.raises(StackFailed) as caught, compose_stack(tmp_path):
        pytest.fail("the broken stack came up")
    message = str(caught.value)
    assert "broken" in message and "Exited (3)" in message
    assert "no settings: cannot start" in message  # the container's own last words
    left = subprocess.run(
        ["docker", "compose", "-p", "frontier-broken", "ps", "--all", "--quiet"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert left.stdout.strip() == ""


def test_a_taken_port_is_named_before_anything_starts(tmp_path: Path) -> None:
    (tmp_path / "docker-compose.yml").write_text(BROKEN)
    with exclusive(PROJECT), socket.socket() as holder:
        holder.bind(("127.0.0.1", COMPOSE_PORTS["orchestrator"]))
        holder.listen()
        taken = pytest.raises(StackFailed, match=r"ports \[50051\] are taken")
        with taken, compose_stack(tmp_path):
            pytest.fail("came up on a taken port")
