"""Watch streams end with their match, against real services: an abandoned match adds no
event, yet its spectators' and seats' WatchEvents streams complete cleanly (saying how the
match ended in the trailing metadata), and the gateway's event stream sends its final
``end`` event, naming the status, and closes -- so no page has to poll to learn of it.  A
match played to its end does the same after its last event, and so does a watch relayed by
an orchestrator that does not own the match."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from frontier.ops.stack import Stack, StackConfig, free_port
from frontier.runtime.settings import MATCH_STATUS_TRAILER
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2

from .client import MIRROR
from .sse import open_sse

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    config = StackConfig.ephemeral(tmp_path_factory.mktemp("watch-ends"), web_port=free_port())
    with Stack(config) as running:
        yield running


async def _last_event(reader: asyncio.StreamReader) -> tuple[str, dict[str, str]]:
    """The stream's last server-sent event (its name and data), read until the gateway
    closes the connection: the stream must end by itself."""
    name, data = "", {}
    body = await reader.read()  # to the end of the connection (chunked: the sizes are lines)
    for line in body.decode().splitlines():
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: ") and name:
            data = json.loads(line.removeprefix("data: "))
    return name, data


async def test_an_abandoned_matchs_watch_streams_end_saying_so(web_stack: Stack) -> None:
    async with grpc.aio.insecure_channel(web_stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        created = await stub.CreateMatch(
            match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(lineup=MIRROR))
        )
        match_id = created.match_id
        spectator = stub.WatchEvents(match_pb2.WatchEventsRequest(match_id=match_id))
        seat = stub.WatchEvents(
            match_pb2.WatchEventsRequest(match_id=match_id, seat_token=created.seats[0].token)
        )
        for call in (spectator, seat):
            await call.initial_metadata()  # let in: each waits for the match's next event
        reader, writer = await open_sse(web_stack, match_id)
        try:
            await stub.AbandonMatch(
                match_pb2.AbandonMatchRequest(match_id=match_id, host_token=created.host_token)
            )
            for call in (spectator, seat):
                assert [reply async for reply in call] == []  # no event: the match ended
                assert await call.code() is grpc.StatusCode.OK
                trailer = dict(await call.trailing_metadata() or ())
                assert trailer[MATCH_STATUS_TRAILER] == "MATCH_STATUS_ABANDONED"
            assert await _last_event(reader) == ("end", {"status": "MATCH_STATUS_ABANDONED"})
            # a watcher arriving later gets the same end at once
            late_reader, late_writer = await open_sse(web_stack, match_id)
            try:
                late = await _last_event(late_reader)
            finally:
                late_writer.close()
            assert late == ("end", {"status": "MATCH_STATUS_ABANDONED"})
        finally:
            writer.close()


async def test_a_finished_matchs_watch_streams_end_after_its_last_event(web_stack: Stack) -> None:
    async with grpc.aio.insecure_channel(web_stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        bots = [
            match_pb2.SeatSetup(seat=seat, mode=match_pb2.SEAT_MODE_BOT, bot="greedy")
            for seat in (types_pb2.SEAT_A1, types_pb2.SEAT_B1)
        ]
        created = await stub.CreateMatch(
            match_pb2.CreateMatchRequest(
                config=match_pb2.MatchConfig(lineup=MIRROR, max_rounds=1, seed=3), seat_setup=bots
            )
        )
        spectator = stub.WatchEvents(match_pb2.WatchEventsRequest(match_id=created.match_id))
        reader, writer = await open_sse(web_stack, created.match_id)
        try:
            replies = [reply async for reply in spectator]  # the bots play it to its end
            assert replies[-1].envelope.event.kind == types_pb2.EVENT_KIND_GAME_ENDED
            trailer = dict(await spectator.trailing_metadata() or ())
            assert trailer[MATCH_STATUS_TRAILER] == "MATCH_STATUS_FINISHED"
            assert await _last_event(reader) == ("end", {"status": "MATCH_STATUS_FINISHED"})
        finally:
            writer.close()


def test_a_watch_forwarded_to_the_owner_ends_with_its_status(tmp_path: Path) -> None:
    config = StackConfig.ephemeral(tmp_path, orchestrators=2)
    with Stack(config):
        asyncio.run(_watch_through_the_other(config))


async def _watch_through_the_other(config: StackConfig) -> None:
    """A match created on one orchestrator, watched through the other (which relays the
    owner's stream) and abandoned: the relayed stream ends too, with the owner's status."""
    async with (
        grpc.aio.insecure_channel(config.address("orchestrator")) as owner_channel,
        grpc.aio.insecure_channel(config.address("orchestrator-2")) as other_channel,
    ):
        owner = match_pb2_grpc.MatchServiceStub(owner_channel)
        other = match_pb2_grpc.MatchServiceStub(other_channel)
        created = await owner.CreateMatch(
            match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(lineup=MIRROR))
        )
        relayed = other.WatchEvents(match_pb2.WatchEventsRequest(match_id=created.match_id))
        await relayed.initial_metadata()
        await owner.AbandonMatch(
            match_pb2.AbandonMatchRequest(match_id=created.match_id, host_token=created.host_token)
        )
        assert [reply async for reply in relayed] == []
        assert await relayed.code() is grpc.StatusCode.OK
        trailer = dict(await relayed.trailing_metadata() or ())
        assert trailer[MATCH_STATUS_TRAILER] == "MATCH_STATUS_ABANDONED"
