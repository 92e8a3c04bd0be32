"""``frontier check-bot --compose``: the bot is checked against the compose stack, brought up
through testcontainers from the repository's docker-compose.yml and torn down after, exactly
as a bot author runs it from a checkout (the process-stack checks are in
tests/integration/test_check_bot.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from frontier.cli.main import main

from .support import PROJECT, ROOT, exclusive

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
