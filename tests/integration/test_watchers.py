"""Watch streams against real services: spectators of a live match all see every event,
while the caps per match and per client address refuse the stream past them, at once and
with their reason (the spectator machinery itself: tests/unit/orchestrator/
test_spectators.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from frontier.ops.stack import Stack, StackConfig
from frontier.play.remote_match import play_remote
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc

from .client import MIRROR

pytestmark = pytest.mark.integration

PER_MATCH, PER_ADDRESS = 40, 60


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    config = StackConfig.ephemeral(
        tmp_path_factory.mktemp("watchers"),
        extra_env={
            "FRONTIER_WATCHERS_PER_MATCH": str(PER_MATCH),
            "FRONTIER_WATCHERS_PER_ADDRESS": str(PER_ADDRESS),
        },
    )
    with Stack(config) as running:
        yield running


async def _rest(watch: Any, first: Any) -> list[int]:
    """The seqs a watch stream sent, from its first reply to the end of the match."""
    seqs = [first.envelope.seq]
    while (reply := await watch.read()) is not grpc.aio.EOF:
        seqs.append(reply.envelope.seq)
    return seqs


async def _refusal(stub: match_pb2_grpc.MatchServiceAsyncStub, match_id: str) -> str:
    call = stub.WatchEvents(match_pb2.WatchEventsRequest(match_id=match_id))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call.read()
    assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    return reason_in(refused.value.trailing_metadata())


async def test_spectators_see_every_event_and_the_caps_refuse_past_them(
    capped: Stack, tmp_path: Path
) -> None:
    address = capped.config.address("orchestrator")
    created: list[str] = []
    started = threading.Event()
    go = threading.Event()
    read = threading.Event()

    def on_round(summary: object) -> None:
        if not started.is_set():  # hold the match in round 1 until watched
            started.set()
            go.wait(60)
        elif isinstance(summary, dict) and summary.get("final"):
            # the player's own watch (its check) waits until the 40 here have read the
            # whole match and left: a 41st would be refused by the cap
            read.wait(60)

    played = asyncio.create_task(
        asyncio.to_thread(play_remote, address, 31, MIRROR, on_round, 10.0, created.append)
    )
    assert await asyncio.to_thread(started.wait, 60)
    match_id = created[0]
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        request = match_pb2.WatchEventsRequest(match_id=match_id)
        watches = [stub.WatchEvents(request) for _ in range(PER_MATCH)]
        firsts = [await watch.read() for watch in watches]  # each admitted, from the start
        assert await _refusal(stub, match_id) == "WATCHERS_LIMIT"  # the match's cap
        go.set()
        seen = await asyncio.gather(*(_rest(w, f) for w, f in zip(watches, firsts, strict=True)))
        read.set()
        result = await played
        assert result.verified
        assert {tuple(s) for s in seen} == {tuple(range(1, len(seen[0]) + 1))}
        assert len(seen[0]) > 100  # the whole match, to its end

        # the address's cap counts streams on every match
        others = []
        for _ in range(PER_ADDRESS // 20):
            other = stub.CreateMatch(
                match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(lineup=MIRROR))
            )
            others.append(await other)
        open_watches = [
            stub.WatchEvents(match_pb2.WatchEventsRequest(match_id=m.match_id))
            for m in others
            for _ in range(20)
        ]
        for watch in open_watches:
            await watch.initial_metadata()  # admitted (a new match has no event to send)
        assert await _refusal(stub, others[0].match_id) == "WATCHERS_LIMIT"
        for watch in open_watches:
            watch.cancel()
        # streams closed give their places back
        await asyncio.sleep(0)
        again = stub.WatchEvents(match_pb2.WatchEventsRequest(match_id=others[0].match_id))
        for _ in range(50):
            try:
                await again.initial_metadata()
                if again.done():  # refused: the status came instead of the headers
                    await again.read()
                break
            except grpc.aio.AioRpcError:  # the server has not seen the cancels yet
                await asyncio.sleep(0.1)
                again = stub.WatchEvents(match_pb2.WatchEventsRequest(match_id=others[0].match_id))
        else:
            pytest.fail("closed watch streams never gave their places back")
        again.cancel()
