"""DomainCallService, both ends, over a real gRPC server on loopback.

The server (runtime/domain_calls.py) runs a table of test handlers in place of a domain's;
the client is the orchestrator's multiplexer (orchestrator/call_streams.py) or, for what a
well-behaved client never sends (unknown methods, garbage, oversized requests, reused
ids), a raw Exchange stream.  No test waits on the clock for a result: slow handlers wait
on events the test sets, and timeouts are only ever short ones that must fire.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import pytest

from frontier.domain.call_service import DomainCallServicer, Method
from frontier.engine.domains import Domain
from frontier.orchestrator.call_streams import CallStreams
from frontier.orchestrator.clients import DomainClients
from frontier.runtime.errors import ServiceError, classify, reason_in
from frontier.runtime.settings import OrchestratorSettings
from frontier.v1 import domain_pb2, domain_pb2_grpc, map_pb2, map_pb2_grpc, types_pb2
from frontier.wire.domain_rpc import MAX_CALL_REQUEST_BYTES, method_name

DECIDE = method_name(Domain.MAP, "DecideMapCommand")
LIST = method_name(Domain.MAP, "ListMapCommands")


def _decided(match_id: str) -> map_pb2.DecideMapCommandResponse:
    """A response that names the request it answers (in DomainEvents.replica)."""
    return map_pb2.DecideMapCommandResponse(result=domain_pb2.DomainEvents(replica=match_id))


def _request(match_id: str) -> bytes:
    return map_pb2.DecideMapCommandRequest(
        context=domain_pb2.DomainContext(match_id=match_id)
    ).SerializeToString()


class Handlers:
    """DecideMapCommand answers at once, except for match ids the test holds back; any
    match id starting with "fail:" fails as the engine's ILLEGAL_COMMAND does."""

    def __init__(self) -> None:
        self.held: dict[str, asyncio.Event] = {}
        self.started: dict[str, asyncio.Event] = {}
        self.cancelled: list[str] = []

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
                raise
        return _decided(match_id)

    def table(self) -> dict[str, Method]:
        return {DECIDE: Method(map_pb2.DecideMapCommandRequest, self.decide)}


async def _server(
    servicer: DomainCallServicer | None, port: int = 0, unary: bool = False
) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    if servicer is not None:
        domain_pb2_grpc.add_DomainCallServiceServicer_to_server(servicer, server)
    if unary:
        map_pb2_grpc.add_MapServiceServicer_to_server(_UnaryMap(), server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    return server, bound


class _UnaryMap(map_pb2_grpc.MapServiceServicer):
    """An older map service: the unary RPC only."""

    async def DecideMapCommand(
        self, request: map_pb2.DecideMapCommandRequest, context: Any
    ) -> map_pb2.DecideMapCommandResponse:
        return _decided("unary:" + request.context.match_id)

    async def ListMapCommands(
        self, request: map_pb2.ListMapCommandsRequest, context: Any
    ) -> map_pb2.ListMapCommandsResponse:
        return map_pb2.ListMapCommandsResponse()


def _run(scenario: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(scenario(), 30))  # a hang fails, never blocks


async def _with_streams(
    handlers: Handlers,
    body: Callable[[CallStreams, DomainCallServicer], Awaitable[Any]],
    generator: bool = False,
) -> Any:
    # the form is chosen here, not by whichever earlier test in the process set up tracing:
    # ``generator`` serves Exchange as with tracing on (see DomainCallServicer.replies)
    servicer = DomainCallServicer(handlers.table(), traced=generator)
    server, port = await _server(servicer)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    streams = CallStreams(channel, 1, 0)
    try:
        return await body(streams, servicer)
    finally:
        streams.close()
        await channel.close()
        await server.stop(None)


def _match_of(raw: bytes) -> str:
    return map_pb2.DecideMapCommandResponse.FromString(raw).result.replica


def test_replies_are_matched_to_their_calls_and_a_slow_call_holds_back_no_other() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, _: DomainCallServicer) -> tuple[list[str], str]:
        release = handlers.hold("slow")
        slow = asyncio.ensure_future(streams.call(DECIDE, _request("slow"), 10))
        await handlers.started["slow"].wait()
        # while "slow" waits on the same stream, 20 others come back, each with its own answer
        fast = await asyncio.gather(
            *(streams.call(DECIDE, _request(f"m{i}"), 10) for i in range(20))
        )
        assert not slow.done()
        release.set()
        return [_match_of(r) for r in fast], _match_of(await slow)

    fast, slow = _run(lambda: _with_streams(handlers, body))
    assert fast == [f"m{i}" for i in range(20)]
    assert slow == "slow"


def test_a_failed_call_raises_the_unary_code_and_reason_and_the_stream_goes_on() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, _: DomainCallServicer) -> Any:
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await streams.call(DECIDE, _request("fail:1"), 10)
        with pytest.raises(grpc.aio.AioRpcError) as bug:
            await streams.call(DECIDE, _request("bug"), 10)
        return failed.value, bug.value, _match_of(await streams.call(DECIDE, _request("ok"), 10))

    failed, bug, after = _run(lambda: _with_streams(handlers, body))
    assert failed.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert reason_in(failed.trailing_metadata()) == "ILLEGAL_COMMAND"
    # the commit path maps it exactly as it maps the unary call's status
    assert classify(failed) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "not legal now",
        "ILLEGAL_COMMAND",
    )
    assert bug.code() is grpc.StatusCode.INTERNAL and "KeyError" in (bug.details() or "")
    assert after == "ok"


def test_a_reply_not_in_time_is_deadline_exceeded_and_the_call_is_cancelled() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, _: DomainCallServicer) -> Any:
        handlers.hold("late")
        with pytest.raises(grpc.aio.AioRpcError) as late:
            await streams.call(DECIDE, _request("late"), 0.05)
        # the server gave the call the same deadline (timeout_ms) and cancelled it
        for _attempt in range(200):
            if handlers.cancelled:
                break
            await asyncio.sleep(0.01)
        return late.value, _match_of(await streams.call(DECIDE, _request("next"), 10))

    late, after = _run(lambda: _with_streams(handlers, body))
    assert late.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    # what commit.py sees: a domain that did not answer, to retry with the same id
    assert classify(late)[0] is grpc.StatusCode.UNAVAILABLE
    assert classify(late)[2] == "DOMAIN_UNAVAILABLE"
    assert handlers.cancelled == ["late"]
    assert after == "next"


async def _raw(
    port: int, calls: list[domain_pb2.ExchangeRequest]
) -> list[domain_pb2.ExchangeResponse]:
    """Send ``calls`` on one Exchange stream, close it, and return every reply."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = domain_pb2_grpc.DomainCallServiceStub(channel)

        async def requests() -> AsyncIterator[domain_pb2.ExchangeRequest]:
            for call in calls:
                yield call

        return [reply async for reply in stub.Exchange(requests())]


def test_bad_messages_get_an_error_for_their_id_and_the_stream_goes_on() -> None:
    handlers = Handlers()
    long_method = "/frontier.v1.MapService/" + "X" * 10_000
    calls = [
        domain_pb2.ExchangeRequest(id=1, method=long_method, request=_request("a")),
        domain_pb2.ExchangeRequest(id=2, method=DECIDE, request=b"\xff\xff\xff"),
        domain_pb2.ExchangeRequest(
            id=3, method=DECIDE, request=b"\x00" * (MAX_CALL_REQUEST_BYTES + 1)
        ),
        domain_pb2.ExchangeRequest(id=4, method=LIST, request=b""),  # not served here
        domain_pb2.ExchangeRequest(id=5, method=DECIDE, request=_request("good")),
    ]

    async def scenario() -> list[domain_pb2.ExchangeResponse]:
        server, port = await _server(DomainCallServicer(handlers.table(), traced=False))
        try:
            return await _raw(port, calls)
        finally:
            await server.stop(None)

    replies = {r.id: r for r in _run(scenario)}
    assert set(replies) == {1, 2, 3, 4, 5}
    errors = {i: replies[i].error for i in (1, 2, 3, 4)}
    assert errors[1].code == grpc.StatusCode.UNIMPLEMENTED.value[0]
    assert len(errors[1].message) < 200  # the method is named, cut short: not echoed whole
    assert errors[2].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert errors[2].reason == "UNDECODABLE_REQUEST"
    assert errors[3].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert errors[3].reason == "FIELD_TOO_LONG"
    assert errors[4].code == grpc.StatusCode.UNIMPLEMENTED.value[0]
    assert _match_of(replies[5].response) == "good"


def test_an_id_already_in_flight_is_refused_without_harming_the_first() -> None:
    handlers = Handlers()

    async def scenario() -> list[domain_pb2.ExchangeResponse]:
        release = handlers.hold("first")
        server, port = await _server(DomainCallServicer(handlers.table(), traced=False))
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = domain_pb2_grpc.DomainCallServiceStub(channel).Exchange()
                await call.write(
                    domain_pb2.ExchangeRequest(id=7, method=DECIDE, request=_request("first"))
                )
                await handlers.started["first"].wait()
                await call.write(
                    domain_pb2.ExchangeRequest(id=7, method=DECIDE, request=_request("again"))
                )
                refused = await call.read()
                release.set()
                answered = await call.read()
                assert isinstance(refused, domain_pb2.ExchangeResponse)
                assert isinstance(answered, domain_pb2.ExchangeResponse)
                await call.done_writing()
                return [refused, answered]
        finally:
            await server.stop(None)

    refused, answered = _run(scenario)
    assert refused.id == 7 and refused.error.reason == "MALFORMED"
    assert answered.id == 7 and _match_of(answered.response) == "first"


def test_a_call_past_its_timeout_ms_is_answered_deadline_exceeded_by_the_server() -> None:
    handlers = Handlers()

    async def scenario() -> list[domain_pb2.ExchangeResponse]:
        handlers.hold("stuck")
        server, port = await _server(DomainCallServicer(handlers.table(), traced=False))
        try:
            return await _raw(
                port,
                [
                    domain_pb2.ExchangeRequest(
                        id=1, method=DECIDE, request=_request("stuck"), timeout_ms=20
                    )
                ],
            )
        finally:
            await server.stop(None)

    (reply,) = _run(scenario)
    assert reply.error.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
    assert handlers.cancelled == ["stuck"]


def test_the_calls_of_a_stream_that_ends_are_cancelled_on_the_server() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, _: DomainCallServicer) -> list[str]:
        handlers.hold("orphan")
        pending = asyncio.ensure_future(streams.call(DECIDE, _request("orphan"), 10))
        await handlers.started["orphan"].wait()
        streams.close()  # the orchestrator goes away
        with pytest.raises(grpc.aio.AioRpcError) as lost:
            await pending
        assert lost.value.code() is grpc.StatusCode.UNAVAILABLE
        for _attempt in range(200):
            if handlers.cancelled:
                break
            await asyncio.sleep(0.01)
        return handlers.cancelled

    assert _run(lambda: _with_streams(handlers, body)) == ["orphan"]


def test_a_lost_stream_fails_its_calls_unavailable_and_the_next_call_reconnects() -> None:
    handlers = Handlers()

    async def scenario() -> tuple[grpc.aio.AioRpcError, str]:
        server, port = await _server(DomainCallServicer(handlers.table(), traced=False))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        streams = CallStreams(channel, 1, 0)
        try:
            assert _match_of(await streams.call(DECIDE, _request("before"), 10)) == "before"
            handlers.hold("cut")
            pending = asyncio.ensure_future(streams.call(DECIDE, _request("cut"), 10))
            await handlers.started["cut"].wait()
            await server.stop(None)  # the service dies with the call under way
            with pytest.raises(grpc.aio.AioRpcError) as lost:
                await pending
            # it comes back on the same port; the next call opens a new stream (retrying
            # while the channel reconnects, as the commit path's callers do)
            server, _ = await _server(DomainCallServicer(handlers.table(), traced=False), port)
            for _ in range(100):
                try:
                    return lost.value, _match_of(await streams.call(DECIDE, _request("after"), 10))
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() is grpc.StatusCode.UNAVAILABLE
                    await asyncio.sleep(0.05)
            raise AssertionError("no new stream after the service came back")
        finally:
            streams.close()
            await channel.close()
            await server.stop(None)

    lost, after = _run(scenario)
    assert lost.code() is grpc.StatusCode.UNAVAILABLE
    assert classify(lost)[2] == "DOMAIN_UNAVAILABLE"  # retryable, as a unary failure is
    assert after == "after"


def test_a_service_without_the_stream_is_called_with_unary_rpcs() -> None:
    async def scenario() -> tuple[str, str, bool]:
        server, port = await _server(None, unary=True)
        clients = DomainClients(OrchestratorSettings(map_url=f"127.0.0.1:{port}"))
        try:
            command = types_pb2.Command()
            first = await clients.decide(
                Domain.MAP, domain_pb2.DomainContext(match_id="m1"), command
            )
            second = await clients.decide(
                Domain.MAP, domain_pb2.DomainContext(match_id="m2"), command
            )
            return first.replica, second.replica, clients.streams[Domain.MAP].streaming()
        finally:
            await clients.close()
            await server.stop(None)

    first, second, streaming = _run(scenario)
    assert (first, second) == ("unary:m1", "unary:m2")
    assert not streaming  # asked once; unary calls until RETRY_STREAM_S


def test_domain_clients_use_the_stream_when_served_and_unary_when_turned_off() -> None:
    handlers = Handlers()

    async def scenario(streams_on: bool) -> str:
        server, port = await _server(DomainCallServicer(handlers.table(), traced=False), unary=True)
        clients = DomainClients(
            OrchestratorSettings(map_url=f"127.0.0.1:{port}", domain_streams=streams_on)
        )
        try:
            got = await clients.decide(
                Domain.MAP, domain_pb2.DomainContext(match_id="m"), types_pb2.Command()
            )
            return got.replica
        finally:
            await clients.close()
            await server.stop(None)

    assert _run(lambda: scenario(True)) == "m"
    assert _run(lambda: scenario(False)) == "unary:m"


def test_draining_answers_the_calls_under_way_then_ends_the_stream() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, servicer: DomainCallServicer) -> Any:
        release = handlers.hold("last")
        pending = asyncio.ensure_future(streams.call(DECIDE, _request("last"), 10))
        await handlers.started["last"].wait()
        await servicer.drain()
        release.set()
        answered = _match_of(await pending)
        # the stream ended after that reply: the next call opens another (still drained
        # here, so refused as a shutting-down server is)
        stream = streams._slots[0]
        assert stream is not None
        await asyncio.wait([stream.ended])
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await streams.call(DECIDE, _request("later"), 10)
        return answered, refused.value

    answered, refused = _run(lambda: _with_streams(handlers, body))
    assert answered == "last"
    assert refused.code() is grpc.StatusCode.UNAVAILABLE


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
        return _decided(match_id)

    async def decide(self, request: map_pb2.DecideMapCommandRequest) -> Any:
        self.answered_later.append(request.context.match_id)
        return await super().decide(request)

    def table(self) -> dict[str, Method]:
        return {DECIDE: Method(map_pb2.DecideMapCommandRequest, self.decide, self.now)}


async def _around_a_slow_call(
    streams: CallStreams, handlers: Handlers, fast_ids: list[str], fail_id: str
) -> tuple[asyncio.Future[bytes], list[str], grpc.aio.AioRpcError]:
    """A held call, ``fast_ids`` answered while it waits, then ``fail_id``'s failure; the
    held call is still under way (released by the caller)."""
    handlers.hold("slow")
    slow = asyncio.ensure_future(streams.call(DECIDE, _request("slow"), 10))
    await handlers.started["slow"].wait()
    fast = await asyncio.gather(*(streams.call(DECIDE, _request(i), 10) for i in fast_ids))
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        await streams.call(DECIDE, _request(fail_id), 10)
    assert not slow.done()
    return slow, [_match_of(r) for r in fast], failed.value


def test_calls_answered_synchronously_skip_the_handler_and_pass_a_slow_call() -> None:
    inline = Inline()
    ids = [f"now:{i}" for i in range(10)]

    async def body(streams: CallStreams, _: DomainCallServicer) -> Any:
        slow, fast, failed = await _around_a_slow_call(streams, inline, ids, "now-fail:1")
        inline.held["slow"].set()
        return fast, _match_of(await slow), failed

    fast, slow, failed = _run(lambda: _with_streams(inline, body))
    assert fast == ids and slow == "slow"
    assert inline.answered_now == fast  # synchronously, in the order they came
    assert inline.answered_later == ["slow"]  # the handler ran only for what now() left
    assert failed.code() is grpc.StatusCode.ABORTED and failed.details() == "stale request"


def test_draining_ends_the_stream_after_its_synchronous_replies() -> None:
    inline = Inline()

    async def body(streams: CallStreams, servicer: DomainCallServicer) -> Any:
        answered = _match_of(await streams.call(DECIDE, _request("now:a"), 10))
        await servicer.drain()  # no call under way: the stream ends at once
        stream = streams._slots[0]
        assert stream is not None
        await asyncio.wait([stream.ended])
        return answered

    assert _run(lambda: _with_streams(inline, body)) == "now:a"


def test_the_generator_form_for_tracing_interceptors_answers_and_drains_the_same() -> None:
    """With tracing on, OpenTelemetry's interceptor iterates Exchange's replies, so the
    servicer serves ``replies`` (the same session, its replies queued for a generator)."""
    handlers = Handlers()
    ids = [f"m{i}" for i in range(5)]

    async def body(streams: CallStreams, servicer: DomainCallServicer) -> Any:
        slow, fast, failed = await _around_a_slow_call(streams, handlers, ids, "fail:1")
        await servicer.drain()  # the slow call is still answered, then the stream ends
        handlers.held["slow"].set()
        answered = _match_of(await slow)
        stream = streams._slots[0]
        assert stream is not None
        await asyncio.wait([stream.ended])
        return fast, answered, failed

    fast, slow, failed = _run(lambda: _with_streams(handlers, body, generator=True))
    assert fast == ids and slow == "slow"
    assert failed.code() is grpc.StatusCode.FAILED_PRECONDITION
