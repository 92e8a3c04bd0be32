"""Many spectators of one match, in a process of their own, for ``frontier bench public``.

The watchers run apart from the canary match's player so that reading thousands of streams
never delays the player's own event loop: the canary's latency then shows what the
*server* gives a player while it is being watched, not the client's queueing.  Each watcher
notes when (``time.monotonic()``, one clock for every process of the machine) it received
each event, so that the parent can match events to the commands that produced them.

Two kinds: gRPC ``WatchEvents`` spectator streams straight to the orchestrator, and
server-sent events through the web gateway (``/api/matches/ID/events``), read over plain
HTTP/1.1 connections (a few lines of asyncio: thousands of idle streams cost little, and
only each event's ``id:`` line is needed).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import grpc
import uvloop

from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc

STREAMS_PER_CHANNEL = 200  # gRPC streams sharing one HTTP/2 connection
OPEN_AT_ONCE = 100  # connections or streams being opened at the same time
DRAIN_S = 10.0  # how long the watchers may take to receive the canary's last event
GRACE_S = 30.0  # past the canary's own bound: the parent's word comes first


@dataclass
class WatchOrder:
    """What the watcher process is asked to do."""

    kind: str  # "grpc" or "sse"
    address: str  # host:port of the orchestrator (grpc) or the gateway (sse)
    match_id: str
    from_version: int
    watchers: int
    # the canary's bound: the streams are closed GRACE_S after it at the latest, even if the
    # parent never says the canary is done
    seconds: float


@dataclass
class WatchResult:
    """What the watchers saw: per event seq, when each watcher received it."""

    admitted: int = 0
    refused: dict[str, int] = field(default_factory=dict)  # reason -> streams
    ended: int = 0  # streams that ended early (cut as too slow, or a failure)
    receipts: dict[int, list[float]] = field(default_factory=dict)


def serve(order: WatchOrder, conn: Connection) -> None:
    """The child process's body: open the watchers, say "ready" once all are admitted or
    refused, read until sent the canary's last version (then until every watcher has that
    event), at most ``order.seconds`` + GRACE_S, and send back the result."""
    result = uvloop.run(_watch(order, conn))
    conn.send(result)
    conn.close()


async def _watch(order: WatchOrder, conn: Connection) -> WatchResult:
    result = WatchResult()
    refused: Counter[str] = Counter()
    opener = _grpc_watchers if order.kind == "grpc" else _sse_watchers
    async with opener(order, result, refused) as readers:
        conn.send("ready")
        stop: asyncio.Future[Any] = asyncio.ensure_future(
            asyncio.to_thread(conn.poll, order.seconds + GRACE_S)
        )
        reading: asyncio.Future[Any] = asyncio.gather(*readers, return_exceptions=True)
        await asyncio.wait([stop, reading], return_when=asyncio.FIRST_COMPLETED)
        if await stop:  # the canary is done: its last event, sent on, is still on the way
            await _drain(result, conn.recv(), reading)
        reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reading
    result.refused = dict(refused)
    return result


async def _drain(result: WatchResult, last: int, reading: asyncio.Future[Any]) -> None:
    """Wait (at most DRAIN_S) until every live watcher has received event ``last``."""
    deadline = time.monotonic() + DRAIN_S
    while not reading.done() and time.monotonic() < deadline:
        if len(result.receipts.get(last, ())) >= result.admitted - result.ended:
            return
        await asyncio.sleep(0.05)


def _note(result: WatchResult, seq: int) -> None:
    result.receipts.setdefault(seq, []).append(time.monotonic())


@contextlib.asynccontextmanager
async def _grpc_watchers(order: WatchOrder, result: WatchResult, refused: Counter[str]) -> Any:
    """Admitted WatchEvents streams, and a reader coroutine for each."""
    channels = [
        grpc.aio.insecure_channel(order.address, options=(("grpc.use_local_subchannel_pool", 1),))
        for _ in range(-(-order.watchers // STREAMS_PER_CHANNEL))
    ]
    request = match_pb2.WatchEventsRequest(match_id=order.match_id, from_version=order.from_version)
    stubs = [match_pb2_grpc.MatchServiceStub(channel) for channel in channels]
    calls: list[Any] = []
    gate = asyncio.Semaphore(OPEN_AT_ONCE)

    async def admitted(index: int) -> Any:
        """The index-th stream once let in (None if refused), OPEN_AT_ONCE being opened at
        a time, as a crowd arriving rather than one burst."""
        async with gate:
            call = stubs[index // STREAMS_PER_CHANNEL].WatchEvents(request)
            calls.append(call)
            try:
                await call.initial_metadata()
                if call.done():  # refused: the status came instead of the headers
                    await call.read()
                return call
            except grpc.aio.AioRpcError as exc:
                reason = reason_in(exc.trailing_metadata())
                refused[reason or f"{exc.code().name}: {exc.details()}"] += 1
                return None

    async def read(call: Any) -> None:
        try:
            while (reply := await call.read()) is not grpc.aio.EOF:
                _note(result, reply.envelope.seq)
        except grpc.aio.AioRpcError:
            result.ended += 1

    try:
        opened = await asyncio.gather(*(admitted(i) for i in range(order.watchers)))
        live = [call for call in opened if call is not None]
        result.admitted = len(live)
        yield [read(c) for c in live]
    finally:
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()


@contextlib.asynccontextmanager
async def _sse_watchers(order: WatchOrder, result: WatchResult, refused: Counter[str]) -> Any:
    """Admitted server-sent-event connections to the gateway, and a reader for each."""
    host, _, port = order.address.rpartition(":")
    path = f"/api/matches/{order.match_id}/events?from={order.from_version}"
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {order.address}\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()
    gate = asyncio.Semaphore(OPEN_AT_ONCE)
    writers: list[asyncio.StreamWriter] = []

    async def connect() -> asyncio.StreamReader | None:
        async with gate:
            reader, writer = await asyncio.open_connection(host, int(port))
            writers.append(writer)
            writer.write(request)
            status = await reader.readline()
            while (await reader.readline()).strip():
                pass  # the headers
            if b" 200 " not in status:
                refused[status.decode().strip()] += 1
                return None
            return reader

    async def read(reader: asyncio.StreamReader) -> None:
        while line := await reader.readline():
            if line.startswith(b"id: "):
                _note(result, int(line[4:]))
            elif line.startswith(b"event: end"):
                return
            elif line.startswith(b"event: "):  # resume (too slow) or error
                result.ended += 1
                return

    try:
        opened = await asyncio.gather(*(connect() for _ in range(order.watchers)))
        live = [r for r in opened if r is not None]
        result.admitted = len(live)
        yield [read(r) for r in live]
    finally:
        for writer in writers:
            writer.close()
