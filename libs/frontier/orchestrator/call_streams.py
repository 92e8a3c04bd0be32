"""The client side of DomainCallService: the domain calls as messages on open streams.

Why: a unary gRPC call costs both sides a call's whole machinery (a new HTTP/2 stream, its
headers, a task per call on the server), where a request and its reply on an already open
stream cost a fraction of that (see domain.proto and frontier.domain.call_service).
:class:`CallStreams` keeps a few Exchange streams open to one domain service and
multiplexes every call over them, matching replies to calls by id.  This is the one way the
orchestrator calls a domain service; the services' unary RPCs are their public shape, for
tools and tests.

What a caller sees is what a unary call gives it (so the commit path handles every failure
alike): the response message, or a ``grpc.aio.AioRpcError`` with the unary status's code,
message and reason (the reason in the standard ``grpc-status-details-bin`` trailer, as
errors.reason_in reads it).  A reply that does not come within the call's timeout raises
DEADLINE_EXCEEDED; when a stream breaks (the service restarts, a replica dies) every call
pending on it raises UNAVAILABLE and the next call opens a new stream.  Both are
"retry": these calls change nothing on the service.  A request larger than a stream message
may carry (:data:`MAX_CALL_REQUEST_BYTES`) is refused before it is sent, as the service
would refuse it: a domain request holds one command, its match's start and a bounded tail
of the match's committed events, far below that limit, so one over it is a bug
to report rather than a call to make another way.

Replicas: the channel balances round_robin, which picks a replica per *call*, and a stream
is one call.  So a domain has ``streams`` of them (calls go round over them), and each
stream is retired after a while (it takes no new calls, answers the ones it has and ends),
so that its successor is balanced again and finds replicas that joined since.  The first
streams of a slot live 1 s, 2 s, 4 s... up to ``max_age_s``: the ones opened while the
channel was still connecting (when round_robin has only the first replica to pick) are
soon replaced, and later ones cost one stream opening a minute.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from typing import Any

import grpc
from opentelemetry import trace

from frontier.runtime.errors import details_metadata
from frontier.runtime.telemetry import inject_headers, tracer, tracing_on
from frontier.v1 import domain_pb2
from frontier.wire.domain_rpc import MAX_CALL_REQUEST_BYTES, span_attributes

from . import eager
from .eager import Resumed

log = logging.getLogger("frontier.orchestrator.streams")

EXCHANGE = "/frontier.v1.DomainCallService/Exchange"
FIRST_AGE_S = 1.0  # the first stream of a slot lives this long, each next one twice as long

_CODES = {code.value[0]: code for code in grpc.StatusCode}


def rpc_error(code: grpc.StatusCode, message: str, reason: str = "") -> grpc.aio.AioRpcError:
    """The error a unary call with this status raises (the reason in its trailer)."""
    trailing = grpc.aio.Metadata(*details_metadata(code, message, reason)) if reason else None
    return grpc.aio.AioRpcError(
        code, grpc.aio.Metadata(), trailing or grpc.aio.Metadata(), details=message
    )


class CallStream:
    """One Exchange stream and the calls waiting for their replies on it."""

    def __init__(self, channel: grpc.aio.Channel, max_age_s: float = 0) -> None:
        exchange = channel.stream_stream(
            EXCHANGE,
            request_serializer=domain_pb2.ExchangeRequest.SerializeToString,
            response_deserializer=domain_pb2.ExchangeResponse.FromString,
        )
        self._call: Any = exchange()
        self.opened = time.monotonic()
        self.max_age_s = max_age_s  # retired after this long (by CallStreams)
        self.open = True  # takes new calls
        self._pending: dict[int, asyncio.Future[domain_pb2.ExchangeResponse]] = {}
        self._ids = itertools.count(1)
        # the stream's one writer: callers queue their messages and wait only for their
        # replies, so a write held up (HTTP/2 flow control, a stalled peer) never keeps a
        # call past its deadline; None half-closes the stream (retire).  A message sent
        # while no write is under way starts its write at once (see _send), and the writer
        # finishes it.
        self._outbox: asyncio.Queue[domain_pb2.ExchangeRequest | Resumed | None] = asyncio.Queue()
        self._idle = True  # no write under way and nothing queued
        self._writer = asyncio.ensure_future(self._write())
        self._reader = asyncio.ensure_future(self._read())
        self.ended: asyncio.Future[None] = self._reader

    async def call(
        self, method: str, request: bytes, timeout: float, trace_context: dict[str, str] | None
    ) -> bytes:
        """The response bytes of one call, or the AioRpcError its unary call would raise."""
        loop = asyncio.get_running_loop()
        call_id = next(self._ids)
        future: asyncio.Future[domain_pb2.ExchangeResponse] = loop.create_future()
        self._pending[call_id] = future
        expiry = loop.call_later(timeout, _expire, future, timeout)
        self._send(
            domain_pb2.ExchangeRequest(
                id=call_id,
                method=method,
                request=request,
                timeout_ms=max(1, int(timeout * 1000)),
                trace_context=trace_context,
            )
        )
        try:
            reply = await future
        finally:
            expiry.cancel()
            self._pending.pop(call_id, None)
        if reply.HasField("error"):
            error = reply.error
            code = _CODES.get(error.code, grpc.StatusCode.UNKNOWN)
            raise rpc_error(code, error.message, error.reason)
        return reply.response

    def retire(self) -> None:
        """No new calls; the server answers the pending ones and then ends the stream."""
        self.open = False
        self._outbox.put_nowait(None)

    def cancel(self) -> None:
        self.open = False
        self._call.cancel()
        self._writer.cancel()

    def _send(self, message: domain_pb2.ExchangeRequest) -> None:
        """Queue ``message`` for the writer, or, when no write is under way, start writing
        it now: grpc's write hands the message to the C core in its first step, before it
        waits for the write's completion, which the writer then awaits.  The message leaves
        one loop iteration sooner than through the writer's wake-up, and never two writes
        are under way at once (gRPC allows one)."""
        if not self._idle:
            self._outbox.put_nowait(message)
            return
        try:
            started = eager.first_step(self._call.write(message))
        except Exception as exc:
            self._stopped(exc)
            return
        if started is not None:
            self._idle = False
            self._outbox.put_nowait(started)

    async def _write(self) -> None:
        try:
            while True:
                message = await self._outbox.get()
                if message is None:
                    await self._call.done_writing()
                    return
                if isinstance(message, Resumed):
                    await message  # a write _send started
                else:
                    await self._call.write(message)
                if self._outbox.empty():
                    self._idle = True
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._stopped(exc)

    def _stopped(self, exc: Exception) -> None:
        """A write failed: the stream is over, and its status (read by _read) says why."""
        log.debug("a domain call stream stopped taking messages: %s", exc)
        self.open = False
        self._idle = False  # nothing more is written on it
        if not self._call.done():  # (done: _read has its status, UNIMPLEMENTED say)
            self._call.cancel()  # so that _read ends, failing every pending call

    async def _read(self) -> None:
        failure: Exception = _lost()
        try:
            while True:
                reply = await self._call.read()
                if reply is grpc.aio.EOF:
                    break
                future = self._pending.get(reply.id)
                if future is not None and not future.done():
                    future.set_result(reply)
        except grpc.aio.AioRpcError as exc:
            failure = _broken(exc)
        finally:  # also when cancelled (cancel(): the orchestrator closes)
            self.open = False
            self._writer.cancel()
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(failure)


def _lost() -> grpc.aio.AioRpcError:
    return rpc_error(grpc.StatusCode.UNAVAILABLE, "the domain service's call stream ended")


def _broken(exc: grpc.aio.AioRpcError) -> grpc.aio.AioRpcError:
    """What the pending calls of a stream that ended with ``exc`` raise: UNAVAILABLE, to
    retry.  UNIMPLEMENTED means the address is not a Frontier domain service (every one
    serves DomainCallService): logged as the deployment error it is."""
    if exc.code() is grpc.StatusCode.UNIMPLEMENTED:
        log.error("a domain service address does not serve DomainCallService: %s", exc.details())
    return rpc_error(
        grpc.StatusCode.UNAVAILABLE,
        f"the domain service's call stream broke: {exc.code().name} {exc.details()}",
    )


def _oversized(method: str, size: int) -> grpc.aio.AioRpcError:
    """The error of a request no stream message may carry: what the service answers one."""
    return rpc_error(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"the request to {method} is {size} bytes; at most {MAX_CALL_REQUEST_BYTES}",
        "FIELD_TOO_LONG",
    )


def _expire(future: asyncio.Future[Any], timeout: float) -> None:
    if not future.done():
        future.set_exception(
            rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED, f"no reply within {timeout:g}s")
        )


class CallStreams:
    """Up to ``streams`` Exchange streams to one domain service, opened on first use."""

    def __init__(self, channel: grpc.aio.Channel, streams: int, max_age_s: float) -> None:
        self.channel = channel
        self.max_age_s = max_age_s
        self._slots: list[CallStream | None] = [None] * streams
        self._ages = [FIRST_AGE_S] * streams  # how long the slot's next stream lives
        self._turn = itertools.cycle(range(streams))
        self._retiring: set[CallStream] = set()
        self.traced = tracing_on()  # read once: tracing is set up before the clients

    async def call(self, method: str, request: bytes, timeout: float) -> bytes:
        """The response bytes of a call of ``method`` (raises as its unary call would)."""
        if len(request) > MAX_CALL_REQUEST_BYTES:
            raise _oversized(method, len(request))
        if not self.traced:
            return await self._stream().call(method, request, timeout, None)
        # the span the gRPC instrumentation gives a unary call, and its context in the
        # message as the instrumentation puts it in the call's metadata
        with tracer().start_as_current_span(
            method, kind=trace.SpanKind.CLIENT, attributes=span_attributes(method)
        ):
            context = inject_headers({})
            return await self._stream().call(method, request, timeout, context)

    def _stream(self) -> CallStream:
        slot = next(self._turn)
        stream = self._slots[slot]
        aged = stream is not None and time.monotonic() - stream.opened > stream.max_age_s
        if stream is not None and stream.open and self.max_age_s > 0 and aged:
            self._retire(stream)
            stream = None
        if stream is None or not stream.open:
            age = min(self._ages[slot], self.max_age_s)
            self._ages[slot] = age * 2
            stream = CallStream(self.channel, age)
            self._slots[slot] = stream
        return stream

    def _retire(self, stream: CallStream) -> None:
        # kept until its last reply is read (a task only weakly held by the loop)
        self._retiring.add(stream)
        stream.ended.add_done_callback(lambda _: self._retiring.discard(stream))
        stream.retire()

    def close(self) -> None:
        for stream in [*self._slots, *self._retiring]:
            if stream is not None:
                stream.cancel()
        self._slots = [None] * len(self._slots)
