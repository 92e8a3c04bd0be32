"""What the DomainCallService tests share: a table of test handlers the test controls, a
real gRPC server on loopback serving it, and the orchestrator's multiplexer as its client.

No test waits on the clock for a result: slow handlers wait on events the test sets, a
handler's cancellation sets an event the test awaits, and timeouts are only ever short
ones that must fire."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from frontier.domain.call_service import DomainCallServicer, Method
from frontier.engine.domains import Domain
from frontier.orchestrator.call_streams import CallStreams
from frontier.runtime.errors import ServiceError
from frontier.v1 import domain_pb2, domain_pb2_grpc, map_pb2
from frontier.wire.domain_rpc import method_name

DECIDE = method_name(Domain.MAP, "DecideMapCommand")
LIST = method_name(Domain.MAP, "ListMapCommands")


def decided(match_id: str) -> map_pb2.DecideMapCommandResponse:
    """A response that names the request it answers (in DomainEvents.replica)."""
    return map_pb2.DecideMapCommandResponse(result=domain_pb2.DomainEvents(replica=match_id))


def request(match_id: str) -> bytes:
    return map_pb2.DecideMapCommandRequest(
        context=domain_pb2.DomainContext(match_id=match_id)
    ).SerializeToString()


def match_of(raw: bytes) -> str:
    return map_pb2.DecideMapCommandResponse.FromString(raw).result.replica


class Handlers:
    """DecideMapCommand answers at once, except for match ids the test holds back; any
    match id starting with "fail:" fails as the engine's ILLEGAL_COMMAND does, "bug" as a
    bug does."""

    def __init__(self) -> None:
        self.held: dict[str, asyncio.Event] = {}
        self.started: dict[str, asyncio.Event] = {}
        self.cancelled: list[str] = []
        self.cancel_seen = asyncio.Event()  # set when a held call is cancelled

    def hold(self, match_id: str) -> asyncio.Event:
        self.started[match_id] = asyncio.Event()
        self.held[match_id] = asyncio.Event()
        return self.held[match_id]

    async def decide(self, request: map_pb2.DecideMapCommandRequest) -> Any:
        match_id = request.context.match_id
        if match_id.startswith("fail:"):
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION, "not legal now", "ILLEGAL_COMMAND"
            )
        if match_id == "bug":
            raise KeyError("a bug")
        if match_id in self.held:
            self.started[match_id].set()
            try:
                await self.held[match_id].wait()
            except asyncio.CancelledError:
                self.cancelled.append(match_id)
                self.cancel_seen.set()
                raise
        return decided(match_id)

    def table(self) -> dict[str, Method]:
        return {DECIDE: Method(map_pb2.DecideMapCommandRequest, self.decide)}


class Inline(Handlers):
    """Answers match ids starting "now:" synchronously (``Method.now``), fails "now-fail:"
    ones there, and leaves the rest to the asynchronous handler, counting who answered."""

    def __init__(self) -> None:
        super().__init__()
        self.answered_now: list[str] = []
        self.answered_later: list[str] = []

    def now(self, request: map_pb2.DecideMapCommandRequest) -> Any:
        match_id = request.context.match_id
        if match_id.startswith("now-fail:"):
            raise ServiceError(grpc.StatusCode.ABORTED, "stale request")
        if not match_id.startswith("now:"):
            return None
        self.answered_now.append(match_id)
        return decided(match_id)

    async def decide(self, request: map_pb2.DecideMapCommandRequest) -> Any:
        self.answered_later.append(request.context.match_id)
        return await super().decide(request)

    def table(self) -> dict[str, Method]:
        return {DECIDE: Method(map_pb2.DecideMapCommandRequest, self.decide, self.now)}


async def server(
    servicer: DomainCallServicer | None,
    port: int = 0,
    add: Callable[[grpc.aio.Server], None] | None = None,
) -> tuple[grpc.aio.Server, int]:
    """A started server on loopback with ``servicer`` (and whatever ``add`` adds)."""
    started = grpc.aio.server()
    if servicer is not None:
        domain_pb2_grpc.add_DomainCallServiceServicer_to_server(servicer, started)
    if add is not None:
        add(started)
    bound = started.add_insecure_port(f"127.0.0.1:{port}")
    await started.start()
    return started, bound


async def with_streams(
    handlers: Handlers,
    body: Callable[[CallStreams, DomainCallServicer], Awaitable[Any]],
    generator: bool = False,
) -> Any:
    """``body`` with one call stream to a server running ``handlers``' table."""
    # the form is chosen here, not by whichever earlier test in the process set up tracing:
    # ``generator`` serves Exchange as with tracing on (see DomainCallServicer.replies)
    servicer = DomainCallServicer(handlers.table(), traced=generator)
    started, port = await server(servicer)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    streams = CallStreams(channel, 1, 0)
    try:
        return await body(streams, servicer)
    finally:
        streams.close()
        await channel.close()
        await started.stop(None)


async def raw(
    port: int, calls: list[domain_pb2.ExchangeRequest]
) -> list[domain_pb2.ExchangeResponse]:
    """Send ``calls`` on one Exchange stream, close it, and return every reply."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = domain_pb2_grpc.DomainCallServiceStub(channel)

        async def requests() -> AsyncIterator[domain_pb2.ExchangeRequest]:
            for call in calls:
                yield call

        return [reply async for reply in stub.Exchange(requests())]
