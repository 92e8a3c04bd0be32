"""One orchestrator stream per watched match, shared by every watcher of it in this gateway.

A spectator's events are the same for everyone, so the gateway reads a watched match from
the orchestrator once (one ``WatchEvents`` stream as a spectator), encodes each event as a
server-sent event once, and keeps the newest ``window`` of them (:class:`Feed`).  Every
watcher of the match reads that window: a final watched by thousands costs the orchestrator
one stream per gateway process, not one per person, and costs the gateway one encoding per
event.

* A watcher that asks for events older than the window (``?from=0`` on a long match, or a
  reconnect far behind) first reads them on a stream of its own, then joins the window.
* A watcher whose connection drains more slowly than the match plays falls out of the
  window: it is sent ``event: resume`` with the version it has and its stream ends.  A
  browser's EventSource reconnects by itself with ``Last-Event-ID`` and misses nothing, so a
  slow reader costs only itself, and the gateway holds at most a window per match however
  slow its readers are.
* The orchestrator's stream ends when the last watcher of the match leaves.
* When the match ends (played to its end, or abandoned, which adds no event) the
  orchestrator's stream completes, naming the match's status in its trailing metadata; every
  watcher then gets ``event: end`` with ``{"status": "MATCH_STATUS_..."}`` after the last
  event, and its stream closes.  A page learns of an abandonment from it, without polling.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections import deque
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from frontier.runtime.settings import MATCH_STATUS_TRAILER
from frontier.v1 import match_pb2
from frontier.web.inputs import grpc_error, to_json

WINDOW = 1024  # encoded events kept per watched match (about 300 KB)
# How long the feed gathers events before it wakes its watchers: a command's events arrive
# within a few milliseconds of each other, and each wake-up costs every watcher a write, so
# they get them in one write (docs/performance.md)
GATHER_S = 0.02
INTERNAL = b'event: error\ndata: {"error": "internal", "detail": "the event feed failed"}\n\n'

log = logging.getLogger("frontier.web")


def message(response: match_pb2.WatchEventsResponse) -> bytes:
    """One event as a server-sent event; its id is the version a reconnect resumes from."""
    data = to_json(response)
    return f"id: {response.envelope.seq}\ndata: {json.dumps(data)}\n\n".encode()


def _failure(exc: grpc.aio.AioRpcError) -> bytes:
    detail = json.dumps(grpc_error(exc).body())
    return f"event: error\ndata: {detail}\n\n".encode()


def end_message(status: str) -> bytes:
    """The last server-sent event of a match that ended: how it ended (a MatchStatus name;
    "" when the orchestrator did not say)."""
    return f"event: end\ndata: {json.dumps({'status': status})}\n\n".encode()


async def ended_status(call: Any) -> str:
    """The MatchStatus name in a completed WatchEvents call's trailing metadata ("" if none)."""
    for key, value in await call.trailing_metadata() or ():
        if key == MATCH_STATUS_TRAILER:
            return str(value)
    return ""


def _resume(version: int) -> bytes:
    detail = json.dumps({"error": "watcher_too_slow", "resume_from": version})
    return f"event: resume\ndata: {detail}\n\n".encode()


@dataclass(eq=False)
class Feed:
    """A watched match's newest events as server-sent events, read by all its watchers."""

    match_id: str
    call: Any  # the orchestrator's WatchEvents stream
    first: int  # the version of messages[0]
    messages: deque[bytes] = field(default_factory=deque)
    end: bytes | None = None  # the stream's last message, once the orchestrator ended it
    failed: grpc.aio.AioRpcError | None = None  # refused before any event (a bad match id)
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # admitted, or failed
    news: asyncio.Event = field(default_factory=asyncio.Event)  # set, then replaced, on news
    waking: asyncio.TimerHandle | None = None  # the wake-up of the watchers, when one is due
    watchers: int = 0
    pump: asyncio.Task[None] | None = None

    @property
    def last(self) -> int:
        """The version of the newest event held (``first - 1`` when none is)."""
        return self.first + len(self.messages) - 1

    def wake_soon(self) -> None:
        """Wake the watchers ``GATHER_S`` from now, unless a wake-up is due already."""
        if self.waking is None:
            self.waking = asyncio.get_running_loop().call_later(GATHER_S, self.wake)

    def wake(self) -> None:
        """Wake every watcher waiting for news.  One set event wakes them all without a lock
        to take in turn (which an ``asyncio.Condition`` would make each of them do); the next
        waiters wait on a fresh one."""
        if self.waking is not None:
            self.waking.cancel()
            self.waking = None
        news, self.news = self.news, asyncio.Event()
        news.set()


class Feeds:
    """The feeds of the matches watched through this gateway now."""

    def __init__(self, stub: Any, window: int = WINDOW) -> None:
        self.stub = stub
        self.window = window
        self.feeds: dict[str, Feed] = {}

    async def join(self, match_id: str, start: int) -> Feed:
        """The match's feed, opened if need be; HttpError when the orchestrator refuses the
        match (unknown: 404).  Call :meth:`leave` once done with it."""
        feed = self.feeds.get(match_id)
        if feed is None or feed.end is not None:
            request = match_pb2.WatchEventsRequest(match_id=match_id, from_version=start)
            feed = Feed(match_id, self.stub.WatchEvents(request), first=start + 1)
            self.feeds[match_id] = feed
            feed.pump = asyncio.ensure_future(self._pump(feed))
        feed.watchers += 1
        try:
            await feed.ready.wait()
        except BaseException:
            self.leave(feed)
            raise
        if feed.failed is not None and not feed.messages:
            self.leave(feed)
            raise grpc_error(feed.failed)
        return feed

    def leave(self, feed: Feed) -> None:
        """One watcher less; the last one closes the orchestrator's stream."""
        feed.watchers -= 1
        if feed.watchers > 0:
            return
        feed.call.cancel()
        if feed.waking is not None:
            feed.waking.cancel()
        if feed.pump is not None:
            feed.pump.cancel()
        if self.feeds.get(feed.match_id) is feed:
            del self.feeds[feed.match_id]

    async def _pump(self, feed: Feed) -> None:
        """Read the orchestrator's stream into the feed until it ends."""
        try:
            await feed.call.initial_metadata()  # sent once the orchestrator lets it in
            feed.ready.set()
            while (response := await feed.call.read()) is not grpc.aio.EOF:
                feed.messages.append(message(response))
                if len(feed.messages) > self.window:
                    feed.messages.popleft()
                    feed.first += 1
                feed.wake_soon()
            self._finish(feed, end_message(await ended_status(feed.call)))
        except grpc.aio.AioRpcError as exc:
            feed.failed = exc
            self._finish(feed, _failure(exc))
        except Exception:  # a bug: the watchers are told, the gateway goes on
            log.exception("the event feed of match %s failed", feed.match_id)
            self._finish(feed, INTERNAL)
        finally:
            feed.ready.set()

    def _finish(self, feed: Feed, last: bytes) -> None:
        feed.end = last
        feed.wake()
        if self.feeds.get(feed.match_id) is feed:  # the next watcher opens a new one
            del self.feeds[feed.match_id]

    async def stream(self, feed: Feed, start: int) -> AsyncGenerator[bytes, None]:
        """A watcher's events after version ``start``: its catch-up, then the feed's."""
        sent = start
        if sent + 1 < feed.first:
            try:
                async for seq, encoded in self._catch_up(feed, sent):
                    yield encoded
                    sent = seq
            except grpc.aio.AioRpcError as exc:
                yield _failure(exc)
                return
        while True:
            if not _news(feed, sent):
                await feed.news.wait()
                continue
            if sent < feed.last:
                index = sent + 1 - feed.first
                if index < 0:  # fell out of the window while its connection drained
                    yield _resume(sent)
                    return
                # every event it lacks in one write: a command's events come together, and
                # each write to a connection costs the gateway more than its bytes do
                pending = list(itertools.islice(feed.messages, index, None))
                sent = feed.last
                yield pending[0] if len(pending) == 1 else b"".join(pending)
                continue
            if feed.end is not None:
                yield feed.end
                return

    async def _catch_up(self, feed: Feed, after: int) -> AsyncGenerator[tuple[int, bytes], None]:
        """The events after ``after`` that the feed's window no longer (or never) held, on a
        stream of the watcher's own, until the window holds the next one."""
        request = match_pb2.WatchEventsRequest(match_id=feed.match_id, from_version=after)
        call = self.stub.WatchEvents(request)
        try:
            while after + 1 < feed.first:
                response = await call.read()
                if response is grpc.aio.EOF:
                    return
                after = response.envelope.seq
                yield after, message(response)
        finally:
            call.cancel()


def _news(feed: Feed, sent: int) -> bool:
    """Whether ``feed`` holds an event after ``sent``, or has ended."""
    return feed.last > sent or feed.end is not None


def closer(feeds: Feeds, feed: Feed) -> Callable[[], None]:
    """``feeds.leave(feed)`` once, however often it is called."""
    done = False

    def close() -> None:
        nonlocal done
        if not done:
            done = True
            feeds.leave(feed)

    return close
