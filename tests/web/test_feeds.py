"""The gateway's feeds (feeds.py): every watcher of a match reads one orchestrator stream,
each event encoded once; a watcher asking for older events catches up on a stream of its own
and joins; one that falls out of the window is told where to resume; the last to leave
closes the stream -- against a live match the test plays event by event."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from frontier.runtime.settings import MATCH_STATUS_TRAILER
from frontier.v1 import events_pb2, match_pb2
from frontier.web import feeds as feeds_module
from frontier.web.feeds import Feeds, message
from frontier.web.inputs import HttpError
from tests.web.fakes import FakeRpcError


class LiveCall:
    """A WatchEvents call on the live match: its events after ``from_version``, then each new
    one as it is played, then the end."""

    def __init__(self, match: LiveMatch, after: int) -> None:
        self.match, self.next, self.cancelled = match, after + 1, False

    async def initial_metadata(self) -> Any:
        if not self.match.known:
            raise FakeRpcError(grpc.StatusCode.NOT_FOUND, "no match m-x")
        return grpc.aio.Metadata()

    async def read(self) -> Any:
        async with self.match.played:
            await self.match.played.wait_for(
                lambda: self.next <= self.match.version or self.match.over
            )
        if self.next > self.match.version:
            return grpc.aio.EOF
        seq, self.next = self.next, self.next + 1
        envelope = events_pb2.EventEnvelope(match_id="m-1", seq=seq, state_version=seq)
        return match_pb2.WatchEventsResponse(envelope=envelope)

    async def trailing_metadata(self) -> Any:
        return grpc.aio.Metadata((MATCH_STATUS_TRAILER, self.match.status))

    def cancel(self) -> None:
        self.cancelled = True


class LiveMatch:
    """The orchestrator's side: a match whose events the test plays one by one."""

    def __init__(self, known: bool = True) -> None:
        self.known, self.version, self.over = known, 0, False
        self.status = ""
        self.played = asyncio.Condition()
        self.calls: list[tuple[int, LiveCall]] = []

    def WatchEvents(self, request: match_pb2.WatchEventsRequest) -> LiveCall:
        call = LiveCall(self, request.from_version)
        self.calls.append((request.from_version, call))
        return call

    async def play(self, events: int = 1) -> None:
        async with self.played:
            self.version += events
            self.played.notify_all()

    async def end(self, status: str = "MATCH_STATUS_FINISHED") -> None:
        async with self.played:
            self.over, self.status = True, status
            self.played.notify_all()


def closed(match: LiveMatch) -> bool:
    """Whether the feed's own orchestrator stream (the first opened) was closed."""
    return match.calls[0][1].cancelled


def split(chunk: bytes) -> list[bytes]:
    """The server-sent events of one write (a watcher gets what it lacks in one write)."""
    return [part + b"\n\n" for part in chunk.split(b"\n\n") if part]


def ids(messages: list[bytes]) -> list[int]:
    return [int(m.split(b"\n")[0].removeprefix(b"id: ")) for m in messages if m.startswith(b"id:")]


async def read_until(stream: Any, version: int) -> list[bytes]:
    out: list[bytes] = []
    async for chunk in stream:
        out.extend(split(chunk))
        if ids(out)[-1:] == [version] or not out[-1].startswith(b"id:"):
            break
    return out


async def test_watchers_of_a_match_share_one_stream_and_each_event_is_encoded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoded: list[int] = []

    def counted(response: match_pb2.WatchEventsResponse) -> bytes:
        encoded.append(response.envelope.seq)
        return message(response)

    monkeypatch.setattr(feeds_module, "message", counted)
    match = LiveMatch()
    feeds = Feeds(match)
    first, second = await feeds.join("m-1", 0), await feeds.join("m-1", 0)
    assert first is second and len(match.calls) == 1
    readers = [asyncio.create_task(read_until(feeds.stream(first, 0), 30)) for _ in range(5)]
    for _ in range(30):
        await match.play()
        await asyncio.sleep(0)
    got = await asyncio.gather(*readers)
    assert all(ids(messages) == list(range(1, 31)) for messages in got)
    assert len({b"".join(messages) for messages in got}) == 1  # the same bytes for all
    assert encoded == list(range(1, 31))  # each event encoded once, whatever the readers
    feeds.leave(first)
    assert not closed(match)  # one watcher is still there
    feeds.leave(second)
    assert closed(match) and feeds.feeds == {}


async def test_a_watcher_from_an_older_version_catches_up_and_joins() -> None:
    match = LiveMatch()
    feeds = Feeds(match, window=8)
    await match.play(20)
    live = await feeds.join("m-1", 20)  # the feed starts at version 20
    late = await feeds.join("m-1", 0)  # this one wants everything
    reader = asyncio.create_task(read_until(feeds.stream(late, 0), 25))
    await asyncio.sleep(0)
    await match.play(5)
    messages = await reader
    assert ids(messages) == list(range(1, 26))  # no gap, no repeat
    assert [after for after, _ in match.calls] == [20, 0]  # its own stream for 1..20
    assert match.calls[1][1].cancelled  # closed once the feed held what came next
    feeds.leave(live)
    feeds.leave(late)


async def test_a_watcher_that_falls_out_of_the_window_is_told_where_to_resume() -> None:
    match = LiveMatch()
    feeds = Feeds(match, window=4)
    feed = await feeds.join("m-1", 0)
    stream = feeds.stream(feed, 0)
    await match.play()
    assert ids(split(await anext(stream))) == [1]
    await match.play(10)  # it reads nothing while the match plays on
    for _ in range(20):
        await asyncio.sleep(0)
    rest = [m async for chunk in stream for m in split(chunk)]
    assert rest[-1].startswith(b"event: resume\n") and b'"resume_from": 1' in rest[-1]
    assert ids(rest) == []  # nothing after version 1 was still held for it
    feeds.leave(feed)


async def test_the_end_of_the_match_ends_every_watchers_stream() -> None:
    match = LiveMatch()
    feeds = Feeds(match)
    feed = await feeds.join("m-1", 0)
    await match.play(3)
    await match.end()
    chunks = [chunk async for chunk in feeds.stream(feed, 0)]
    messages = [m for chunk in chunks for m in split(chunk)]
    assert ids(messages) == [1, 2, 3]
    assert messages[-1] == b'event: end\ndata: {"status": "MATCH_STATUS_FINISHED"}\n\n'
    assert ids(split(chunks[0])) == [1, 2, 3]  # what the watcher lacked, in one write
    assert feeds.feeds == {}  # a later watcher opens a new stream
    feeds.leave(feed)


async def test_an_abandoned_match_ends_every_watchers_stream_saying_so() -> None:
    match = LiveMatch()
    feeds = Feeds(match)
    first, second = await feeds.join("m-1", 0), await feeds.join("m-1", 0)
    await match.play(2)
    await match.end("MATCH_STATUS_ABANDONED")  # no event: the stream just completes
    for feed in (first, second):
        messages = [m async for chunk in feeds.stream(feed, 0) for m in split(chunk)]
        assert ids(messages) == [1, 2]
        assert messages[-1] == b'event: end\ndata: {"status": "MATCH_STATUS_ABANDONED"}\n\n'
        feeds.leave(feed)
    assert feeds.feeds == {}


async def test_an_unknown_match_is_refused_before_any_event_and_keeps_no_feed() -> None:
    match = LiveMatch(known=False)
    feeds = Feeds(match)
    with pytest.raises(HttpError) as refused:
        await feeds.join("m-x", 0)
    assert refused.value.status == 404
    assert feeds.feeds == {} and match.calls[0][1].cancelled
