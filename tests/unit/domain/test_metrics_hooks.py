"""The metrics hooks that a whole stack rarely exercises on purpose: a projection catching up
from the stream, and the RPC interceptor's status codes for unary and streaming calls."""

from __future__ import annotations

import asyncio
import logging
import socket
import urllib.request
from typing import cast

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from frontier.domain.projection import Projections
from frontier.runtime.bus import Bus
from frontier.runtime.errors import abort, not_found, reason_in
from frontier.runtime.metrics import RpcMetrics, serve_metrics
from tests.unit.domain.test_projection_lifecycle import MemoryBus, _play


async def test_a_lagging_projection_counts_a_catch_up() -> None:
    """NATS has not delivered the batches a request needs: the projection reads the stream
    itself, and says so."""
    match_id = "m" * 32
    bus = MemoryBus(match_id, seed=9)
    projections = Projections(cast(Bus, bus), wait_s=0)
    played = _play(seed=9)[:3]
    await projections.at(match_id, 0)  # built from the (empty) stream: not a catch-up
    bus.batches.extend(played)  # committed, but not delivered to this service
    before = _catch_ups()
    state = await projections.at(match_id, played[-1].envelopes[-1].seq)
    assert state.version == played[-1].envelopes[-1].seq
    assert _catch_ups() - before == 1


def _observations(method: str, code: str) -> float:
    labels = {"method": method, "code": code}
    return REGISTRY.get_sample_value("frontier_rpc_duration_seconds_count", labels) or 0.0


def _catch_ups() -> float:
    return REGISTRY.get_sample_value("frontier_projection_catch_ups_total") or 0.0


CHECK = "/grpc.health.v1.Health/Check"
WATCH = "/grpc.health.v1.Health/Watch"


@pytest.mark.parametrize("kind", ["unary", "stream"])
async def test_the_interceptor_times_calls_with_their_status_code(kind: str) -> None:
    server = grpc.aio.server(interceptors=[RpcMetrics()])
    servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    await servicer.set("known", health_pb2.HealthCheckResponse.SERVING)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    method = CHECK if kind == "unary" else WATCH
    # a unary call ends OK or NOT_FOUND; the stream is cancelled by its client
    ended = ("OK", "NOT_FOUND") if kind == "unary" else ("OK", "CANCELLED")
    ok_before, other_before = (_observations(method, code) for code in ended)
    errors_before = _errors(method, ended[1], ended[1])
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            if kind == "unary":
                await stub.Check(health_pb2.HealthCheckRequest(service="known"))  # type: ignore[attr-defined]
                with pytest.raises(grpc.aio.AioRpcError):
                    await stub.Check(health_pb2.HealthCheckRequest(service="unknown"))  # type: ignore[attr-defined]
            else:
                call = stub.Watch(health_pb2.HealthCheckRequest(service="known"))  # type: ignore[attr-defined]
                reply = await call.read()
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
                call.cancel()  # the client goes away mid-stream
    finally:
        await server.stop(None)
    # The client may see the end before the handler unwinds (abort sends the status first; a
    # cancel reaches the server later), and a handler that stop() cancelled unwinds on a later
    # turn of the loop: wait until every call has been recorded (the test's timeout bounds it).
    calls = 2 if kind == "unary" else 1
    while sum(_observations(method, code) for code in ended) < ok_before + other_before + calls:
        await asyncio.sleep(0.01)
    ok = _observations(method, ended[0]) - ok_before
    other = _observations(method, ended[1]) - other_before
    assert (ok, other) == ((1, 1) if kind == "unary" else (0, 1))
    # a status without an ErrorInfo (grpc-health's own, a client that went away) counts as
    # an error whose reason is its code's name
    assert _errors(method, ended[1], ended[1]) - errors_before == 1


def _errors(method: str, code: str, reason: str) -> float:
    labels = {"method": method, "code": code, "reason": reason}
    return REGISTRY.get_sample_value("frontier_rpc_errors_total", labels) or 0.0


async def _refuse(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    """Aborts with a Frontier reason in the status, as every service's handlers do."""
    await abort(context, not_found("m" * 32))


async def _crash(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    """Lets an exception escape, as a bug would."""
    raise RuntimeError("a bug")


async def _call(channel: grpc.aio.Channel, method: str) -> bytes:
    """One unary call with an empty request, its bytes passed through untouched."""
    call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(method)
    return await call(b"")


async def test_a_failed_call_counts_the_reason_its_client_reads() -> None:
    handlers: dict[str, grpc.RpcMethodHandler[bytes, bytes]] = {
        "Refuse": grpc.unary_unary_rpc_method_handler(_refuse),
        "Crash": grpc.unary_unary_rpc_method_handler(_crash),
    }
    server = grpc.aio.server(interceptors=[RpcMetrics()])
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("test.T", handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    refused = ("/test.T/Refuse", "NOT_FOUND", "MATCH_NOT_FOUND")
    crashed = ("/test.T/Crash", "INTERNAL", "INTERNAL")  # as the histogram codes it
    before = [_errors(*refused), _errors(*crashed)]
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await _call(channel, "/test.T/Refuse")
            assert reason_in(caught.value.trailing_metadata()) == "MATCH_NOT_FOUND"
            with pytest.raises(grpc.aio.AioRpcError):
                await _call(channel, "/test.T/Crash")
    finally:
        await server.stop(None)  # every handler has recorded its call
    after = [_errors(*refused), _errors(*crashed)]
    assert [a - b for a, b in zip(after, before, strict=True)] == [1, 1]


def test_a_taken_metrics_port_is_logged_and_the_service_runs_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with caplog.at_level(logging.ERROR, logger="frontier.metrics"):
            stop = serve_metrics(port, "127.0.0.1")
        stop()  # nothing to stop
    assert f"cannot listen on 127.0.0.1:{port}" in caplog.text


def test_the_metrics_endpoint_serves_and_stops() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    stop = serve_metrics(port, "127.0.0.1")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            assert b"frontier_rpc_duration_seconds" in reply.read()
    finally:
        stop()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5)
