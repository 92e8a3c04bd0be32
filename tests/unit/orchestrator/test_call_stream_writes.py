"""CallStream's writes: a message sent while no write is under way starts its write at once
(in the caller's step, not on the writer's next wake-up); one sent meanwhile waits for the
write before it, so gRPC never has two writes under way and the order is kept; a write that
fails at once ends the stream as a failed write in the writer does."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from frontier.orchestrator.call_streams import CallStream
from frontier.v1 import domain_pb2


class _Call:
    """A stream call whose writes finish when the test says so."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.finished: list[int] = []
        self.under_way = 0
        self.most_under_way = 0
        self.release: asyncio.Queue[None] = asyncio.Queue()
        self.cancelled = False
        self.fail_with: Exception | None = None

    async def write(self, message: domain_pb2.ExchangeRequest) -> None:
        if self.fail_with is not None:
            raise self.fail_with
        self.started.append(message.id)
        self.under_way += 1
        self.most_under_way = max(self.most_under_way, self.under_way)
        await self.release.get()
        self.under_way -= 1
        self.finished.append(message.id)

    async def read(self) -> Any:
        await asyncio.Event().wait()  # no replies in these tests

    async def done_writing(self) -> None:
        return None

    def done(self) -> bool:
        return self.cancelled

    def cancel(self) -> None:
        self.cancelled = True


class _Channel:
    def __init__(self, call: _Call) -> None:
        self.call = call

    def stream_stream(self, *args: Any, **kwargs: Any) -> Any:
        return lambda: self.call


def _message(n: int) -> domain_pb2.ExchangeRequest:
    return domain_pb2.ExchangeRequest(id=n, method="m")


async def test_a_write_starts_at_once_and_the_next_waits_for_it() -> None:
    call = _Call()
    stream = CallStream(_Channel(call))  # type: ignore[arg-type]
    stream._send(_message(1))
    assert call.started == [1]  # before any other task ran
    stream._send(_message(2))
    stream._send(_message(3))
    for _ in range(5):
        await asyncio.sleep(0)
    assert call.started == [1]  # the first is still under way
    for _ in range(3):
        call.release.put_nowait(None)
        for _ in range(5):
            await asyncio.sleep(0)
    assert call.started == call.finished == [1, 2, 3] and call.most_under_way == 1
    stream._send(_message(4))  # idle again: at once
    assert call.started == [1, 2, 3, 4]
    call.release.put_nowait(None)
    for _ in range(5):
        await asyncio.sleep(0)
    assert call.finished == [1, 2, 3, 4]
    stream.cancel()


async def test_a_write_that_fails_at_once_ends_the_stream() -> None:
    call = _Call()
    call.fail_with = grpc.aio.UsageError("done writing")
    stream = CallStream(_Channel(call))  # type: ignore[arg-type]
    stream._send(_message(1))
    assert not stream.open and call.cancelled
    stream.cancel()
