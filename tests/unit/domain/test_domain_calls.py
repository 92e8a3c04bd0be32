"""DomainCallService as the orchestrator uses it: its multiplexer (orchestrator/call_streams.py)
and its DomainClients against the real dispatcher (domain/call_service.py) over a real gRPC
server on loopback, the dispatcher running a table of test handlers in place of a domain's
(see call_helpers.py).  What a caller sees must be what a unary call would give it."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from frontier.domain.call_service import DomainCallServicer, Method
from frontier.engine.domains import Domain
from frontier.orchestrator.call_streams import CallStreams
from frontier.orchestrator.clients import DomainClients
from frontier.runtime.errors import classify, reason_in
from frontier.runtime.settings import OrchestratorSettings
from frontier.v1 import domain_pb2, map_pb2_grpc, turn_order_pb2, types_pb2
from frontier.wire.domain_rpc import MAX_CALL_REQUEST_BYTES, method_name

from .call_helpers import DECIDE, Handlers, match_of, request, server, with_streams


async def test_replies_are_matched_to_their_calls_and_a_slow_call_holds_back_no_other() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, _: DomainCallServicer) -> tuple[list[str], str]:
        release = handlers.hold("slow")
        slow = asyncio.ensure_future(streams.call(DECIDE, request("slow"), 10))
        await handlers.started["slow"].wait()
        # while "slow" waits on the same stream, 20 others come back, each with its own answer
        fast = await asyncio.gather(
            *(streams.call(DECIDE, request(f"m{i}"), 10) for i in range(20))
        )
        assert not slow.done()
        release.set()
        return [match_of(r) for r in fast], match_of(await slow)

    fast, slow = await with_streams(handlers, body)
    assert fast == [f"m{i}" for i in range(20)]
    assert slow == "slow"


async def test_a_failed_call_raises_the_unary_code_and_reason_and_the_stream_goes_on() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, _: DomainCallServicer) -> Any:
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await streams.call(DECIDE, request("fail:1"), 10)
        with pytest.raises(grpc.aio.AioRpcError) as bug:
            await streams.call(DECIDE, request("bug"), 10)
        return failed.value, bug.value, match_of(await streams.call(DECIDE, request("ok"), 10))

    failed, bug, after = await with_streams(handlers, body)
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


async def test_a_reply_not_in_time_is_deadline_exceeded_and_the_call_is_cancelled() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, _: DomainCallServicer) -> Any:
        handlers.hold("late")
        with pytest.raises(grpc.aio.AioRpcError) as late:
            await streams.call(DECIDE, request("late"), 0.05)
        # the server gave the call the same deadline (timeout_ms) and cancels it
        await handlers.cancel_seen.wait()
        return late.value, match_of(await streams.call(DECIDE, request("next"), 10))

    late, after = await with_streams(handlers, body)
    assert late.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    # what commit.py sees: a domain that did not answer, to retry with the same id
    assert classify(late)[0] is grpc.StatusCode.UNAVAILABLE
    assert classify(late)[2] == "DOMAIN_UNAVAILABLE"
    assert handlers.cancelled == ["late"]
    assert after == "next"


async def test_a_request_too_big_for_a_message_is_refused_before_it_is_sent() -> None:
    """A domain request is far below the limit (its tail is bounded): one over it is
    refused as the service would refuse it, and nothing goes on the stream."""
    handlers = Handlers()

    async def body(streams: CallStreams, _: DomainCallServicer) -> Any:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await streams.call(DECIDE, b"\x00" * (MAX_CALL_REQUEST_BYTES + 1), 10)
        assert streams._slots == [None]  # no stream was even opened for it
        return refused.value, match_of(await streams.call(DECIDE, request("ok"), 10))

    refused, after = await with_streams(handlers, body)
    assert refused.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert reason_in(refused.trailing_metadata()) == "FIELD_TOO_LONG"
    assert after == "ok"


async def test_the_calls_of_a_stream_that_ends_are_cancelled_on_the_server() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, _: DomainCallServicer) -> list[str]:
        handlers.hold("orphan")
        pending = asyncio.ensure_future(streams.call(DECIDE, request("orphan"), 10))
        await handlers.started["orphan"].wait()
        streams.close()  # the orchestrator goes away
        with pytest.raises(grpc.aio.AioRpcError) as lost:
            await pending
        assert lost.value.code() is grpc.StatusCode.UNAVAILABLE
        await handlers.cancel_seen.wait()
        return handlers.cancelled

    assert await with_streams(handlers, body) == ["orphan"]


async def test_a_lost_stream_fails_its_calls_unavailable_and_the_next_call_reconnects() -> None:
    handlers = Handlers()
    started, port = await server(DomainCallServicer(handlers.table(), traced=False))
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    streams = CallStreams(channel, 1, 0)
    try:
        assert match_of(await streams.call(DECIDE, request("before"), 10)) == "before"
        handlers.hold("cut")
        pending = asyncio.ensure_future(streams.call(DECIDE, request("cut"), 10))
        await handlers.started["cut"].wait()
        await started.stop(None)  # the service dies with the call under way
        with pytest.raises(grpc.aio.AioRpcError) as lost:
            await pending
        assert lost.value.code() is grpc.StatusCode.UNAVAILABLE
        assert classify(lost.value)[2] == "DOMAIN_UNAVAILABLE"  # retryable, as unary is
        # it comes back on the same port; once the channel is connected again, the next
        # call opens a new stream
        started, _ = await server(DomainCallServicer(handlers.table(), traced=False), port)
        await channel.channel_ready()
        assert match_of(await streams.call(DECIDE, request("after"), 10)) == "after"
    finally:
        streams.close()
        await channel.close()
        await started.stop(None)


async def test_domain_clients_call_over_the_stream() -> None:
    handlers = Handlers()
    started, port = await server(DomainCallServicer(handlers.table(), traced=False))
    clients = DomainClients(OrchestratorSettings(map_url=f"127.0.0.1:{port}"))
    try:
        got = await clients.decide(
            Domain.MAP, domain_pb2.DomainContext(match_id="m"), types_pb2.Command()
        )
    finally:
        await clients.close()
        await started.stop(None)
    assert got.replica == "m"


class _UnaryOnly(map_pb2_grpc.MapServiceServicer):
    """Something at a domain's address that does not serve DomainCallService."""

    async def DecideMapCommand(self, request: Any, context: Any) -> Any:
        raise AssertionError("the orchestrator calls a domain only through its streams")

    async def ListMapCommands(self, request: Any, context: Any) -> Any:
        raise AssertionError("the orchestrator calls a domain only through its streams")


async def test_an_address_without_the_stream_fails_the_call_unavailable() -> None:
    """No unary fallback: the call fails as a lost stream does (to retry)."""
    started, port = await server(
        None, add=lambda s: map_pb2_grpc.add_MapServiceServicer_to_server(_UnaryOnly(), s)
    )
    clients = DomainClients(OrchestratorSettings(map_url=f"127.0.0.1:{port}"))
    try:
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await clients.decide(
                Domain.MAP, domain_pb2.DomainContext(match_id="m"), types_pb2.Command()
            )
    finally:
        await clients.close()
        await started.stop(None)
    # (the details name UNIMPLEMENTED, or the cancelled write that met it first)
    assert failed.value.code() is grpc.StatusCode.UNAVAILABLE
    assert classify(failed.value)[2] == "DOMAIN_UNAVAILABLE"


async def test_draining_answers_the_calls_under_way_then_ends_the_stream() -> None:
    handlers = Handlers()

    async def body(streams: CallStreams, servicer: DomainCallServicer) -> Any:
        release = handlers.hold("last")
        pending = asyncio.ensure_future(streams.call(DECIDE, request("last"), 10))
        await handlers.started["last"].wait()
        await servicer.drain()
        release.set()
        answered = match_of(await pending)
        # the stream ended after that reply: the next call opens another (still drained
        # here, so refused as a shutting-down server is)
        stream = streams._slots[0]
        assert stream is not None
        await asyncio.wait([stream.ended])
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await streams.call(DECIDE, request("later"), 10)
        return answered, refused.value

    answered, refused = await with_streams(handlers, body)
    assert answered == "last"
    assert refused.code() is grpc.StatusCode.UNAVAILABLE


async def test_a_turn_order_decide_asks_for_the_advance_in_the_same_call() -> None:
    """DomainClients.decide sets DecideTurnCommandRequest.advance: one round trip."""
    seen: list[bool] = []

    async def decide(request: turn_order_pb2.DecideTurnCommandRequest) -> Any:
        seen.append(request.advance)
        return turn_order_pb2.DecideTurnCommandResponse()

    table = {
        method_name(Domain.TURN_ORDER, "DecideTurnCommand"): Method(
            turn_order_pb2.DecideTurnCommandRequest, decide
        )
    }
    started, port = await server(DomainCallServicer(table, traced=False))
    clients = DomainClients(OrchestratorSettings(turn_order_url=f"127.0.0.1:{port}"))
    try:
        await clients.decide(
            Domain.TURN_ORDER, domain_pb2.DomainContext(match_id="m"), types_pb2.Command()
        )
    finally:
        await clients.close()
        await started.stop(None)
    assert seen == [True]
