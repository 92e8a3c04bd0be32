"""What a request to a public service may be: its size, its strings, and that it decodes.

The public services (MatchService, BotService) take requests from anyone, so no request may
make the server store, log or echo more than a legitimate one would.  Every string field
has a limit (ids and tokens 128 bytes, legal ids 512, the rest below), every repeated field
a count, and a whole request :data:`MAX_REQUEST_BYTES` (gRPC itself answers
RESOURCE_EXHAUSTED beyond it); a field over its limit is answered INVALID_ARGUMENT before
any work is done.  A request that does not decode is answered INVALID_ARGUMENT too, and
logged in one line, at most once per :data:`LOG_EVERY_S` (with the count of the others),
so a flood of garbage cannot fill the log.

:class:`RequestGuard` is a server interceptor: it applies to every method of the services
it is given, whatever their handlers, so a new RPC or field is limited without a line of
code of its own.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from .errors import ServiceError, abort, about

log = logging.getLogger("frontier.guard")

MAX_REQUEST_BYTES = 64 * 1024  # the largest legitimate request is a few KB
MAX_ID_BYTES = 128
MAX_LEGAL_ID_BYTES = 512  # a legal id is a command's key: ~110 characters at most today
MAX_NAME_BYTES = 64  # clearings, pieces, cards, decision kinds, bot names
MAX_TEXT_BYTES = 256  # any other string (a lineup)
MAX_REPEATED = 64  # entries of any repeated field

# Limits by "Message.field" or, for every message of the public services, by field name;
# other strings get MAX_TEXT_BYTES.
FIELD_BYTES: dict[str, int] = {
    "match_id": MAX_ID_BYTES,
    "seat_token": MAX_ID_BYTES,
    "command_id": MAX_ID_BYTES,
    "decision_id": MAX_ID_BYTES,
    "invite_code": MAX_ID_BYTES,
    "host_token": MAX_ID_BYTES,
    "SeatSetup.bot": MAX_NAME_BYTES,
    "AssignSeatBotRequest.bot": MAX_NAME_BYTES,
    "legal_id": MAX_LEGAL_ID_BYTES,
    "Answer.command_id": MAX_LEGAL_ID_BYTES,  # a bot's answer names a legal id
    "clearing": MAX_NAME_BYTES,
    "to": MAX_NAME_BYTES,
    "target": MAX_NAME_BYTES,
    "piece": MAX_NAME_BYTES,
    "cards": MAX_NAME_BYTES,
    "clearings": MAX_NAME_BYTES,
    "decision_kind": MAX_NAME_BYTES,
    "takeover_bot": MAX_NAME_BYTES,
    "lineup": MAX_TEXT_BYTES,
}

LOG_EVERY_S = 10.0

_STRING = FieldDescriptor.TYPE_STRING
_BYTES = FieldDescriptor.TYPE_BYTES
_MESSAGE = FieldDescriptor.TYPE_MESSAGE


def check_limits(message: Message, path: str = "") -> None:
    """Raise INVALID_ARGUMENT for the first field of ``message`` beyond its limit."""
    for field, value in message.ListFields():
        repeated = field.is_repeated
        if repeated and len(value) > MAX_REPEATED:
            raise _too_long(f"{path}{field.name}", f"{len(value)} entries", _MAX_ENTRIES)
        limit = _limit_of(field)
        if limit is None:  # a number, a bool or an enum: nothing to measure
            continue
        values: Iterable[Any] = value if repeated else (value,)
        if limit == _NESTED:
            for item in values:
                check_limits(item, f"{path}{field.name}.")
            continue
        for item in values:
            size = len(item)
            # a character is 1-4 bytes in UTF-8: encode only when the count cannot tell
            if isinstance(item, str) and limit < size * 4 and size <= limit:
                size = len(item.encode())
            if size > limit:
                raise _too_long(f"{path}{field.name}", f"{size} bytes", f"{limit} bytes")


_NESTED = -1  # _limit_of: a message field, checked field by field
_MAX_ENTRIES = f"{MAX_REPEATED} entries"


@functools.cache
def _limit_of(field: FieldDescriptor) -> int | None:
    """A field's limit in bytes (_NESTED: a message; None: no size to check), looked up
    once per field: the guard runs on every request of the public services."""
    if field.type == _MESSAGE:
        return _NESTED
    if field.type not in (_STRING, _BYTES):
        return None
    owner = field.containing_type.name if field.containing_type is not None else ""
    return FIELD_BYTES.get(f"{owner}.{field.name}", FIELD_BYTES.get(field.name, MAX_TEXT_BYTES))


def _too_long(name: str, size: str, limit: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"{name} is {size}; at most {limit}",
        "FIELD_TOO_LONG",
        about(name),
    )


class Undecodable:
    """Stands for a request whose bytes did not decode (the handler answers for it)."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size


class _RateLimitedLog:
    """One warning line per LOG_EVERY_S at most, telling how many were left out."""

    def __init__(self) -> None:
        self._last = float("-inf")
        self._skipped = 0

    def note(self, method: str, size: int) -> None:
        now = time.monotonic()
        if now - self._last < LOG_EVERY_S:
            self._skipped += 1
            return
        more = f" ({self._skipped} more since the last line)" if self._skipped else ""
        log.warning(
            "undecodable request to %s (%d bytes) answered INVALID_ARGUMENT%s", method, size, more
        )
        self._last = now
        self._skipped = 0


class RequestGuard(grpc.aio.ServerInterceptor):
    """Checks every request to the given services (full names) before its handler runs."""

    def __init__(self, services: Iterable[str]) -> None:
        self.prefixes = tuple(f"/{name}/" for name in services)
        self.undecodable = _RateLimitedLog()

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or not method.startswith(self.prefixes):
            return handler
        guarded: grpc.RpcMethodHandler[Any, Any] = self._guarded(handler, method)
        return guarded

    def _guarded(self, handler: Any, method: str) -> Any:
        decode = handler.request_deserializer

        def safe_decode(data: bytes) -> Any:
            try:
                return decode(data)
            except Exception:
                return Undecodable(len(data))

        def admit(request: Any) -> None:
            if isinstance(request, Undecodable):
                self.undecodable.note(method, request.size)
                raise ServiceError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"the request does not decode as the message {method} takes",
                    "UNDECODABLE_REQUEST",
                )
            check_limits(request)

        changes: dict[str, Any] = {"request_deserializer": safe_decode}
        if handler.unary_unary is not None:
            inner_uu = handler.unary_unary

            async def unary_unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                # checked in line, not through _admit_or_abort: one coroutine fewer on
                # every call (SubmitCommand's among them)
                try:
                    admit(request)
                except ServiceError as exc:
                    await abort(context, exc)
                return await inner_uu(request, context)

            changes["unary_unary"] = unary_unary
        elif handler.unary_stream is not None:
            inner_us = handler.unary_stream

            async def unary_stream(
                request: Any, context: grpc.aio.ServicerContext[Any, Any]
            ) -> Any:
                await _admit_or_abort(admit, request, context)
                async for reply in inner_us(request, context):
                    yield reply

            changes["unary_stream"] = unary_stream
        elif handler.stream_stream is not None:
            changes["stream_stream"] = _streaming(handler.stream_stream, admit)
        else:  # stream_unary: none among the public services
            inner_su = handler.stream_unary

            async def stream_unary(requests: AsyncIterator[Any], context: Any) -> Any:
                return await inner_su(_admitted(admit, requests), context)

            changes["stream_unary"] = stream_unary
        return handler._replace(**changes)


def _streaming(inner: Any, admit: Callable[[Any], None]) -> Any:
    """A stream-stream behaviour reading its requests through :func:`_admitted`, of the
    same kind as ``inner`` (gRPC tells an async generator from a coroutine function)."""
    if inspect.isasyncgenfunction(inner):

        async def replies(requests: AsyncIterator[Any], context: Any) -> Any:
            async for reply in inner(_admitted(admit, requests), context):
                yield reply

        return replies

    async def writes(requests: AsyncIterator[Any], context: Any) -> Any:
        return await inner(_admitted(admit, requests), context)

    return writes


async def _admit_or_abort(
    admit: Callable[[Any], None], request: Any, context: grpc.aio.ServicerContext[Any, Any]
) -> None:
    try:
        admit(request)
    except ServiceError as exc:
        await abort(context, exc)


async def _admitted(
    admit: Callable[[Any], None], requests: AsyncIterator[Any]
) -> AsyncIterator[Any]:
    """The stream's requests, each checked: a bad one ends the stream with its error (the
    handler turns a ServiceError into its status)."""
    async for request in requests:
        admit(request)
        yield request
