"""``python -m frontier.ops.compose_bot``, the compose stack's bots, against a real stack."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from frontier.ops.compose_bot import BotOptions, main, parse_args, play
from frontier.ops.stack import Stack

from .client import MIRROR

pytestmark = pytest.mark.integration


def test_plays_the_matches_it_is_asked_for(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    beat = tmp_path / "beat"
    argv = ["--url", stack.config.address("orchestrator"), "--matches", "2", "--pause", "0"]
    assert main([*argv, "--lineup", MIRROR, "--seed", "7", "--heartbeat", str(beat)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["seed"] for line in lines] == [7, 8]
    assert all(line["winner"] in {"A", "B", "draw"} and line["commands"] > 0 for line in lines)
    assert len({line["match_id"] for line in lines}) == 2
    assert beat.exists()


def test_stops_mid_match_on_request(stack: Stack) -> None:
    options = BotOptions(stack.config.address("orchestrator"), matches=0, heartbeat=None)

    async def scenario() -> float:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(0.3, stop.set)
        started = time.monotonic()
        tally = await play(options, stop)
        assert tally.failed == 0
        return time.monotonic() - started

    assert asyncio.run(scenario()) < 5


def test_flags_default_to_the_environment() -> None:
    env = {
        "FRONTIER_BOT_URL": "orchestrator-2:50061",
        "FRONTIER_BOT_MATCHES": "3",
        "FRONTIER_BOT_PAUSE_S": "0.5",
        "FRONTIER_BOT_LINEUP": MIRROR,
        "FRONTIER_BOT_SEED": "9",
    }
    options = parse_args([], env)
    assert (options.url, options.matches, options.pause_s, options.lineup, options.seed) == (
        "orchestrator-2:50061",
        3,
        0.5,
        MIRROR,
        9,
    )
    assert parse_args(["--url", "x:1", "--matches", "1"], env).url == "x:1"
    with pytest.raises(SystemExit):
        parse_args([], {})
