"""The server side of DomainCallService: a domain service's unary calls as stream messages.

Why: the orchestrator makes about 1.2 domain calls per command, and on this machine a unary
gRPC call costs ~500 µs of the domain service's CPU where a message on an open stream costs
~160 µs (and as much again on the caller's side).  A long-lived stream per caller carries
the same calls for a third of the machinery (see domain.proto for the contract).

Each ExchangeRequest runs the handler its unary RPC runs (the same table,
:func:`.domain_servicers.methods`), in a task of its own, so a call that waits (for a
lagging projection, say) holds back none of the others; its reply is queued, and the
stream's one writer (the handler's generator) sends the replies in the order they are
done.  Every failure is answered for its id with the code and reason the unary status
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

from frontier.v1 import domain_pb2, domain_pb2_grpc

from .domain import failure
from .errors import ServiceError, shown
from .metrics import observe_rpc
from .telemetry import extract_context, tracer, tracing_on

log = logging.getLogger("frontier.domain_calls")

Handler = Callable[[Any], Awaitable[Any]]

# A call's request bytes at most: gRPC's own limit on one received message (4 MiB, which
# bounds a unary call's request) less room for the ExchangeRequest around them, so that a
# request over it is refused for its id rather than ending the stream.
MAX_CALL_REQUEST_BYTES = 4 * 1024 * 1024 - 64 * 1024


@dataclass(frozen=True, slots=True)
class Method:
    """One unary RPC: its request message type and what answers it."""

    request_type: Any
    handler: Handler


class DomainCallServicer(domain_pb2_grpc.DomainCallServiceServicer):
    """Dispatches ExchangeRequests to ``methods`` (full method name -> Method)."""

    def __init__(self, methods: Mapping[str, Method], timed: bool = False) -> None:
        self.methods = dict(methods)
        self.timed = timed
        # read once: tracing is set up (or not) before the servers start
        self.traced = tracing_on()
        self.draining = False
        self._sessions: set[_Session] = set()

    async def Exchange(
        self,
        request_iterator: AsyncIterator[domain_pb2.ExchangeRequest],
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[domain_pb2.ExchangeResponse]:
        session = _Session(self)
        self._sessions.add(session)
        reader = asyncio.ensure_future(session.read(request_iterator))
        try:
            while True:
                reply = await session.replies.get()
                if reply is None:
                    return
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
    """One Exchange stream: its calls under way and the queue of its replies."""

    def __init__(self, servicer: DomainCallServicer) -> None:
        self.servicer = servicer
        # None ends the stream: queued once reading is over and every call answered
        self.replies: asyncio.Queue[domain_pb2.ExchangeResponse | None] = asyncio.Queue()
        self.running: dict[int, asyncio.Task[None]] = {}
        self.expired: set[int] = set()  # calls cancelled by their own deadline
        self.reading = True

    async def read(self, requests: AsyncIterator[domain_pb2.ExchangeRequest]) -> None:
        try:
            async for call in requests:
                if not self.reading:
                    break
                self.start(call)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the stream broke: nobody is left to answer
            log.debug("a DomainCallService stream ended: %s", exc)
            self.cancel()
        self.stop_reading()

    def stop_reading(self) -> None:
        self.reading = False
        if not self.running:
            self.replies.put_nowait(None)

    def start(self, call: domain_pb2.ExchangeRequest) -> None:
        """Answer what is wrong with the call at once; run the rest in a task of its own."""
        servicer = self.servicer
        method = servicer.methods.get(call.method)
        if method is None:
            self._reply_error(call.id, _unknown_method(call.method))
            return
        if call.id in self.running:
            self._reply_error(call.id, _in_flight(call.id))
            return
        if servicer.draining:
            self._reply_error(call.id, _draining())
            return
        try:
            request = _parse(call, method)
        except ServiceError as exc:
            code = self._reply_error(call.id, exc)
            if servicer.timed:
                observe_rpc(call.method, code.name, 0.0)
            return
        loop = asyncio.get_running_loop()
        task = loop.create_task(self._answer(call, method.handler, request))
        self.running[call.id] = task
        # the call's deadline: a timer rather than asyncio.timeout (a context manager, a
        # rescheduled handle and two awaits per call)
        timer = (
            loop.call_later(call.timeout_ms / 1000, self._expire, call.id, task)
            if call.timeout_ms
            else None
        )
        task.add_done_callback(functools.partial(self._done, call.id, timer))

    def _expire(self, call_id: int, task: asyncio.Task[None]) -> None:
        self.expired.add(call_id)
        task.cancel()

    def _done(self, call_id: int, timer: asyncio.TimerHandle | None, _: object) -> None:
        if timer is not None:
            timer.cancel()
        self.running.pop(call_id, None)
        self.expired.discard(call_id)
        if not self.reading and not self.running:
            self.replies.put_nowait(None)

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
            self.replies.put_nowait(
                domain_pb2.ExchangeResponse(id=call.id, response=response.SerializeToString())
            )
        except asyncio.CancelledError:
            if call.id not in self.expired:  # the stream ended
                code = "CANCELLED"
                raise
            code = "DEADLINE_EXCEEDED"  # the call's own deadline (not one inside the handler)
            self._reply_status(
                call.id,
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no answer within the call's {call.timeout_ms} ms",
                "DOMAIN_UNAVAILABLE",
            )
        except Exception as exc:
            code = self._reply_error(call.id, exc, call.method).name
        finally:
            if self.servicer.timed:
                observe_rpc(call.method, code, time.perf_counter() - started)

    def _reply_error(
        self, call_id: int, exc: Exception, where: str = "DomainCallService"
    ) -> grpc.StatusCode:
        code, message, reason = failure(exc, where)
        self._reply_status(call_id, code, message, reason)
        return code

    def _reply_status(self, call_id: int, code: grpc.StatusCode, message: str, reason: str) -> None:
        error = domain_pb2.DomainCallError(code=code.value[0], message=message, reason=reason)
        self.replies.put_nowait(domain_pb2.ExchangeResponse(id=call_id, error=error))


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


def span_attributes(method: str) -> dict[str, str | bool]:
    """The attributes the gRPC instrumentation gives a unary call's span, and one saying
    that the call came as a DomainCallService message."""
    service, _, rpc = method.lstrip("/").partition("/")
    return {
        "rpc.system": "grpc",
        "rpc.service": service,
        "rpc.method": rpc,
        STREAMED_ATTRIBUTE: True,
    }


STREAMED_ATTRIBUTE = "frontier.domain_call_stream"
