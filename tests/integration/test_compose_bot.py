"""``python -m frontier.ops.compose_bot``, the compose stack's bots, against a real stack."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc
import pytest

from frontier.ops.compose_bot import BotOptions, main, parse_args, play
from frontier.ops.stack import Stack
from frontier.v1 import match_pb2, match_pb2_grpc

from .bot_helpers import wait_for
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


async def _listed(stub: match_pb2_grpc.MatchServiceAsyncStub) -> dict[str, match_pb2.MatchSummary]:
    reply = await stub.ListMatches(match_pb2.ListMatchesRequest(page_size=1000), timeout=10)
    return {m.match_id: m for m in reply.matches}


async def test_stops_mid_match_on_request(stack: Stack) -> None:
    """Stop is set once the bot's match is under way (an event, not a delay): the bot ends
    without a failure and leaves that match unfinished."""
    address = stack.config.address("orchestrator")
    options = BotOptions(address, matches=0, heartbeat=None)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        before = set(await _listed(stub))
        stop = asyncio.Event()
        bot = asyncio.ensure_future(play(options, stop))
        under_way: list[str] = []

        async def a_match_under_way() -> bool:
            under_way[:] = [
                m.match_id
                for m in (await _listed(stub)).values()
                if m.match_id not in before and m.version > 0 and not m.winner
            ]
            return bool(under_way)

        await wait_for(a_match_under_way, timeout=60, every=0.01)
        stop.set()
        tally = await asyncio.wait_for(bot, 60)  # a generous bound: it stops at once
        assert tally.failed == 0
        [match_id] = under_way
        left = await stub.GetView(match_pb2.GetViewRequest(match_id=match_id), timeout=10)
        assert not left.view.winner


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
