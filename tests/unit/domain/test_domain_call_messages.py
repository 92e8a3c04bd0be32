"""DomainCallService as a service answers it: what the dispatcher (domain/call_service.py)
does with each message that arrives -- the ones a well-behaved client never sends (unknown
methods, garbage, oversized requests, reused ids) sent on a raw Exchange stream -- how it
answers at once what it can, its deadlines, its tracing form; and a service's unary
servicer running the same handlers with the same error mapping.  A real gRPC server on
loopback (see call_helpers.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from frontier.domain.call_service import DomainCallServicer
from frontier.domain.map_service import MapServicer
from frontier.domain.service import by_method_name
from frontier.engine.domains import Domain
from frontier.orchestrator.call_streams import CallStreams
from frontier.runtime.errors import reason_in
from frontier.v1 import domain_pb2, domain_pb2_grpc, map_pb2, map_pb2_grpc
from frontier.wire.domain_rpc import MAX_CALL_REQUEST_BYTES

from .call_helpers import (
    DECIDE,
    LIST,
    Handlers,
    Inline,
    match_of,
    raw,
    request,
    server,
    with_streams,
)


async def test_bad_messages_get_an_error_for_their_id_and_the_stream_goes_on() -> None:
    handlers = Handlers()
    long_method = "/frontier.v1.MapService/" + "X" * 10_000
    calls = [
        domain_pb2.ExchangeRequest(id=1, method=long_method, request=request("a")),
        domain_pb2.ExchangeRequest(id=2, method=DECIDE, request=b"\xff\xff\xff"),
        domain_pb2.ExchangeRequest(
            id=3, method=DECIDE, request=b"\x00" * (MAX_CALL_REQUEST_BYTES + 1)
        ),
        domain_pb2.ExchangeRequest(id=4, method=LIST, request=b""),  # not served here
        domain_pb2.ExchangeRequest(id=5, method=DECIDE, request=request("good")),
    ]
    started, port = await server(DomainCallServicer(handlers.table(), traced=False))
    try:
        replies = {r.id: r for r in await raw(port, calls)}
    finally:
        await started.stop(None)
    assert set(replies) == {1, 2, 3, 4, 5}
    errors = {i: replies[i].error for i in (1, 2, 3, 4)}
    assert errors[1].code == grpc.StatusCode.UNIMPLEMENTED.value[0]
    assert len(errors[1].message) < 200  # the method is named, cut short: not echoed whole
    assert errors[2].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert errors[2].reason == "UNDECODABLE_REQUEST"
    assert errors[3].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert errors[3].reason == "FIELD_TOO_LONG"
    assert errors[4].code == grpc.StatusCode.UNIMPLEMENTED.value[0]
    assert match_of(replies[5].response) == "good"


async def test_an_id_already_in_flight_is_refused_without_harming_the_first() -> None:
    handlers = Handlers()
    release = handlers.hold("first")
    started, port = await server(DomainCallServicer(handlers.table(), traced=False))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = domain_pb2_grpc.DomainCallServiceStub(channel).Exchange()
            await call.write(
                domain_pb2.ExchangeRequest(id=7, method=DECIDE, request=request("first"))
            )
            await handlers.started["first"].wait()
            await call.write(
                domain_pb2.ExchangeRequest(id=7, method=DECIDE, request=request("again"))
            )
            refused = await call.read()
            release.set()
            answered = await call.read()
            await call.done_writing()
    finally:
        await started.stop(None)
    assert isinstance(refused, domain_pb2.ExchangeResponse)
    assert isinstance(answered, domain_pb2.ExchangeResponse)
    assert refused.id == 7 and refused.error.reason == "MALFORMED"
    assert answered.id == 7 and match_of(answered.response) == "first"


async def test_a_call_past_its_timeout_ms_is_answered_deadline_exceeded_by_the_server() -> None:
    handlers = Handlers()
    handlers.hold("stuck")
    started, port = await server(DomainCallServicer(handlers.table(), traced=False))
    stuck = domain_pb2.ExchangeRequest(id=1, method=DECIDE, request=request("stuck"), timeout_ms=20)
    try:
        (reply,) = await raw(port, [stuck])
    finally:
        await started.stop(None)
    assert reply.error.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
    assert handlers.cancelled == ["stuck"]


async def _around_a_slow_call(
    streams: CallStreams, handlers: Handlers, fast_ids: list[str], fail_id: str
) -> tuple[asyncio.Future[bytes], list[str], grpc.aio.AioRpcError]:
    """A held call, ``fast_ids`` answered while it waits, then ``fail_id``'s failure; the
    held call is still under way (released by the caller)."""
    handlers.hold("slow")
    slow = asyncio.ensure_future(streams.call(DECIDE, request("slow"), 10))
    await handlers.started["slow"].wait()
    fast = await asyncio.gather(*(streams.call(DECIDE, request(i), 10) for i in fast_ids))
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        await streams.call(DECIDE, request(fail_id), 10)
    assert not slow.done()
    return slow, [match_of(r) for r in fast], failed.value


async def test_calls_answered_synchronously_skip_the_handler_and_pass_a_slow_call() -> None:
    inline = Inline()
    ids = [f"now:{i}" for i in range(10)]

    async def body(streams: CallStreams, _: DomainCallServicer) -> Any:
        slow, fast, failed = await _around_a_slow_call(streams, inline, ids, "now-fail:1")
        inline.held["slow"].set()
        return fast, match_of(await slow), failed

    fast, slow, failed = await with_streams(inline, body)
    assert fast == ids and slow == "slow"
    assert inline.answered_now == fast  # synchronously, in the order they came
    assert inline.answered_later == ["slow"]  # the handler ran only for what now() left
    assert failed.code() is grpc.StatusCode.ABORTED and failed.details() == "stale request"


async def test_draining_ends_the_stream_after_its_synchronous_replies() -> None:
    inline = Inline()

    async def body(streams: CallStreams, servicer: DomainCallServicer) -> Any:
        answered = match_of(await streams.call(DECIDE, request("now:a"), 10))
        await servicer.drain()  # no call under way: the stream ends at once
        stream = streams._slots[0]
        assert stream is not None
        await asyncio.wait([stream.ended])
        return answered

    assert await with_streams(inline, body) == "now:a"


async def test_the_generator_form_for_tracing_interceptors_answers_and_drains_the_same() -> None:
    """With tracing on, OpenTelemetry's interceptor iterates Exchange's replies, so the
    servicer serves ``replies`` (the same session, its replies queued for a generator)."""
    handlers = Handlers()
    ids = [f"m{i}" for i in range(5)]

    async def body(streams: CallStreams, servicer: DomainCallServicer) -> Any:
        slow, fast, failed = await _around_a_slow_call(streams, handlers, ids, "fail:1")
        await servicer.drain()  # the slow call is still answered, then the stream ends
        handlers.held["slow"].set()
        answered = match_of(await slow)
        stream = streams._slots[0]
        assert stream is not None
        await asyncio.wait([stream.ended])
        return fast, answered, failed

    fast, slow, failed = await with_streams(handlers, body, generator=True)
    assert fast == ids and slow == "slow"
    assert failed.code() is grpc.StatusCode.FAILED_PRECONDITION


async def test_the_unary_servicer_runs_the_same_handlers_with_the_same_errors() -> None:
    """A service's unary RPCs and its stream run one table: the same answer, and the same
    code and reason for a failure, whichever way a call comes."""
    handlers = Handlers()
    rpcs = {"DecideMapCommand": handlers.table()[DECIDE]}
    calls = DomainCallServicer(by_method_name(Domain.MAP, rpcs), traced=False)
    started, port = await server(
        calls, add=lambda s: map_pb2_grpc.add_MapServiceServicer_to_server(MapServicer(rpcs), s)
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            unary = map_pb2_grpc.MapServiceStub(channel).DecideMapCommand
            ok = await unary(map_pb2.DecideMapCommandRequest.FromString(request("ok")))
            with pytest.raises(grpc.aio.AioRpcError) as failed:
                await unary(map_pb2.DecideMapCommandRequest.FromString(request("fail:1")))
        streamed = await raw(
            port,
            [
                domain_pb2.ExchangeRequest(id=1, method=DECIDE, request=request("ok")),
                domain_pb2.ExchangeRequest(id=2, method=DECIDE, request=request("fail:1")),
            ],
        )
    finally:
        await started.stop(None)
    replies = {r.id: r for r in streamed}
    assert ok.SerializeToString() == replies[1].response
    error = replies[2].error
    assert failed.value.code().value[0] == error.code
    assert failed.value.details() == error.message == "not legal now"
    assert reason_in(failed.value.trailing_metadata()) == error.reason == "ILLEGAL_COMMAND"
