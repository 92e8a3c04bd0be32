"""The server side of DomainCallService: a domain service's unary calls as stream messages.

Why: the orchestrator makes a domain call or more for every command, and a unary gRPC call
costs the domain service several times the CPU of a message on a stream already open (a new
HTTP/2 stream, its headers, a task per call), and as much again on the caller's side.  A
long-lived stream per caller carries the same calls for a fraction of that machinery (see
domain.proto for the contract); it is how the orchestrator calls every domain service.

Each ExchangeRequest runs the handler its unary RPC runs (the same table: the service's
``rpcs``, see :mod:`.service`).  Most calls find what they need at hand (their
projection at most a request's tail behind): those are answered by the stream's reader
itself, synchronously (``Method.now``), and their reply written before it reads the next
request -- no task, no queue, two loop wake-ups per call (the request read, the reply
written) where a task and a queue between reader and writer took four or five.  A call that
must wait (for a lagging projection, say) runs in a task of its own, so it holds back none
of the others, and writes its reply when done; one write at a time goes on the stream.

Every failure is answered for its id with the code and reason the unary status
would carry (errors.classify), and the stream goes on: a method this service does not
serve, bytes that do not decode, a request over the size limit, a call past its
timeout_ms.  When the stream ends, the calls still running are cancelled; at shutdown
(:meth:`DomainCallServicer.drain`) each stream answers the calls it has and then ends, so
that callers reconnect (to another replica, or to this one restarted) instead of holding
the shutdown for its whole grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from opentelemetry import trace

from frontier.runtime.errors import ServiceError, failure, shown
from frontier.runtime.metrics import observe_rpc
from frontier.runtime.telemetry import extract_context, tracer, tracing_on
from frontier.v1 import domain_pb2, domain_pb2_grpc
from frontier.wire.domain_rpc import MAX_CALL_REQUEST_BYTES, span_attributes

log = logging.getLogger("frontier.domain_calls")

Handler = Callable[[Any], Awaitable[Any]]
Now = Callable[[Any], Any | None]


@dataclass(frozen=True, slots=True)
class Method:
    """One unary RPC: its request message type and what answers it; ``now``, when given,
    answers it synchronously when it can, or returns None (then ``handler`` answers)."""

    request_type: Any
    handler: Handler
    now: Now | None = None


class DomainCallServicer(domain_pb2_grpc.DomainCallServiceServicer):
    """Dispatches ExchangeRequests to ``methods`` (full method name -> Method)."""

    def __init__(
        self, methods: Mapping[str, Method], timed: bool = False, traced: bool | None = None
    ) -> None:
        self.methods = dict(methods)
        self.timed = timed
        # read once (None: from the process's tracer provider): tracing is set up, or not,
        # before the servers start; a test says which form it exercises
        self.traced = tracing_on() if traced is None else traced
        self.draining = False
        self._sessions: set[_Session] = set()
        if self.traced:  # OpenTelemetry's interceptor iterates a stream handler's replies
            self.Exchange = self.replies  # type: ignore[method-assign,assignment]

    # gRPC's reader/writer form (the replies go by context.write), which the generated
    # servicer's type, an iterator of replies, does not describe
    async def Exchange(  # type: ignore[override]
        self,
        request_iterator: AsyncIterator[domain_pb2.ExchangeRequest],
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> None:
        session = _Session(self, context)
        self._sessions.add(session)
        reader = asyncio.ensure_future(session.read(request_iterator))
        try:
            await session.over
        finally:
            self._sessions.discard(session)
            reader.cancel()
            session.cancel()

    async def replies(
        self,
        request_iterator: AsyncIterator[domain_pb2.ExchangeRequest],
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[domain_pb2.ExchangeResponse]:
        """Exchange as a generator of replies, for a server whose interceptors iterate a
        stream handler's replies (OpenTelemetry's, tracing on): the same session, its
        replies queued for the generator rather than written by the reader."""
        session = _Session(self, context, queued=True)
        self._sessions.add(session)
        reader = asyncio.ensure_future(session.read(request_iterator))
        assert session.queue is not None
        try:
            while (reply := await session.queue.get()) is not None:
                yield reply
        finally:
            self._sessions.discard(session)
            reader.cancel()
            session.cancel()

    async def drain(self) -> None:
        """Refuse new calls (UNAVAILABLE), finish the ones under way, end every stream."""
        self.draining = True
        for session in list(self._sessions):
            session.stop_reading()


class _Session:
    """One Exchange stream: its calls under way and its one writer."""

    def __init__(
        self,
        servicer: DomainCallServicer,
        context: grpc.aio.ServicerContext[Any, Any],
        queued: bool = False,
    ) -> None:
        self.servicer = servicer
        self.context = context
        # with ``queued``, replies go to a generator (None ends it) instead of context.write
        self.queue: asyncio.Queue[domain_pb2.ExchangeResponse | None] | None = (
            asyncio.Queue() if queued else None
        )
        # set once reading is over, every call answered and every reply written
        self.over: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.running: dict[int, asyncio.Task[None]] = {}
        self.expired: set[int] = set()  # calls cancelled by their own deadline
        self.timers: dict[int, asyncio.TimerHandle] = {}  # the deadlines of running calls
        self.reading = True
        self._writing = asyncio.Lock()  # gRPC takes one message write at a time

    async def read(self, requests: AsyncIterator[domain_pb2.ExchangeRequest]) -> None:
        try:
            async for call in requests:
                if not self.reading:
                    break
                reply = self.start(call)
                if reply is not None:
                    await self.send(reply)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the stream broke: nobody is left to answer
            log.debug("a DomainCallService stream ended: %s", exc)
            self.cancel()
        self.stop_reading()

    def stop_reading(self) -> None:
        self.reading = False
        self._end_if_done()

    def _end_if_done(self) -> None:
        if (
            not self.reading
            and not self.running
            and not self._writing.locked()
            and not self.over.done()
        ):
            self.over.set_result(None)
            if self.queue is not None:
                self.queue.put_nowait(None)

    async def send(self, reply: domain_pb2.ExchangeResponse) -> None:
        """Write one reply (after the writes before it).  A stream that cannot take it is
        over: gRPC ends the call, and with it every call still running."""
        if self.queue is not None:
            self.queue.put_nowait(reply)
            return
        try:
            async with self._writing:
                await self.context.write(reply)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.debug("a DomainCallService reply could not be written: %s", exc)
            self.reading = False
            self.cancel()
        self._end_if_done()

    def start(self, call: domain_pb2.ExchangeRequest) -> domain_pb2.ExchangeResponse | None:
        """The call's reply when it is had at once (an error, or ``Method.now``'s answer);
        else None, and the call runs in a task of its own, which sends its reply."""
        servicer = self.servicer
        method = servicer.methods.get(call.method)
        if method is None:
            return _error_reply(call.id, _unknown_method(call.method))[0]
        if call.id in self.running:
            return _error_reply(call.id, _in_flight(call.id))[0]
        if servicer.draining:
            return _error_reply(call.id, _draining())[0]
        try:
            request = _parse(call, method)
        except ServiceError as exc:
            reply, code = _error_reply(call.id, exc)
            if servicer.timed:
                observe_rpc(call.method, code.name, 0.0)
            return reply
        if method.now is not None and not servicer.traced:  # a span per call takes the task
            answered = self._now(call, method.now, request)
            if answered is not None:
                return answered
        loop = asyncio.get_running_loop()
        task = loop.create_task(self._answer(call, method.handler, request))
        self.running[call.id] = task
        # the call's deadline: a timer rather than asyncio.timeout (a context manager, a
        # rescheduled handle and two awaits per call)
        if call.timeout_ms:
            self.timers[call.id] = loop.call_later(
                call.timeout_ms / 1000, self._expire, call.id, task
            )
        task.add_done_callback(functools.partial(self._done, call.id))
        return None

    def _now(
        self, call: domain_pb2.ExchangeRequest, now: Now, request: Any
    ) -> domain_pb2.ExchangeResponse | None:
        """``now``'s reply to the call, or None when it cannot answer without waiting."""
        started = time.perf_counter()
        try:
            response = now(request)
        except Exception as exc:
            reply, code = _error_reply(call.id, exc, call.method)
            if self.servicer.timed:
                observe_rpc(call.method, code.name, time.perf_counter() - started)
            return reply
        if response is None:
            return None
        if self.servicer.timed:
            observe_rpc(call.method, "OK", time.perf_counter() - started)
        return domain_pb2.ExchangeResponse(id=call.id, response=response.SerializeToString())

    def _expire(self, call_id: int, task: asyncio.Task[None]) -> None:
        self.expired.add(call_id)
        task.cancel()

    def _disarm(self, call_id: int) -> None:
        timer = self.timers.pop(call_id, None)
        if timer is not None:
            timer.cancel()

    def _done(self, call_id: int, _: object) -> None:
        self._disarm(call_id)
        self.running.pop(call_id, None)
        self.expired.discard(call_id)
        self._end_if_done()

    def cancel(self) -> None:
        for task in list(self.running.values()):
            task.cancel()

    async def _answer(
        self, call: domain_pb2.ExchangeRequest, handler: Handler, request: Any
    ) -> None:
        started = time.perf_counter()
        code = "OK"
        span = (
            tracer().start_as_current_span(
                call.method,
                context=extract_context(call.trace_context),
                kind=trace.SpanKind.SERVER,
                attributes=span_attributes(call.method),
            )
            if self.servicer.traced
            else contextlib.nullcontext()
        )
        try:
            with span:
                response = await handler(request)
            reply = domain_pb2.ExchangeResponse(id=call.id, response=response.SerializeToString())
        except asyncio.CancelledError:
            if call.id not in self.expired:  # the stream ended
                code = "CANCELLED"
                raise
            code = "DEADLINE_EXCEEDED"  # the call's own deadline (not one inside the handler)
            reply = _status_reply(
                call.id,
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no answer within the call's {call.timeout_ms} ms",
                "DOMAIN_UNAVAILABLE",
            )
        except Exception as exc:
            reply, status = _error_reply(call.id, exc, call.method)
            code = status.name
        finally:
            if self.servicer.timed:
                observe_rpc(call.method, code, time.perf_counter() - started)
        self._disarm(call.id)  # answered: its deadline no longer cancels it while it writes
        await self.send(reply)


def _error_reply(
    call_id: int, exc: Exception, where: str = "DomainCallService"
) -> tuple[domain_pb2.ExchangeResponse, grpc.StatusCode]:
    code, message, reason = failure(exc, where)
    return _status_reply(call_id, code, message, reason), code


def _status_reply(
    call_id: int, code: grpc.StatusCode, message: str, reason: str
) -> domain_pb2.ExchangeResponse:
    error = domain_pb2.DomainCallError(code=code.value[0], message=message, reason=reason)
    return domain_pb2.ExchangeResponse(id=call_id, error=error)


def _parse(call: domain_pb2.ExchangeRequest, method: Method) -> Any:
    size = len(call.request)
    if size > MAX_CALL_REQUEST_BYTES:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the request is {size} bytes; at most {MAX_CALL_REQUEST_BYTES}",
            "FIELD_TOO_LONG",
        )
    try:
        return method.request_type.FromString(call.request)
    except DecodeError:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the request does not decode as the message {call.method} takes",
            "UNDECODABLE_REQUEST",
        ) from None


def _in_flight(call_id: int) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"call id {call_id} is already in flight on this stream",
        "MALFORMED",
    )


def _draining() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.UNAVAILABLE,
        "the service is shutting down; retry on a new stream",
        "SERVER_UNAVAILABLE",
    )


def _unknown_method(method: str) -> ServiceError:
    # UNIMPLEMENTED, as gRPC answers a unary call to a method the server lacks
    return ServiceError(
        grpc.StatusCode.UNIMPLEMENTED,
        f"this service has no method {shown(method)}",
        "MALFORMED",
    )
