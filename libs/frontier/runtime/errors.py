"""One mapping from failures to gRPC status codes and reasons, used by every service.

Why central: clients (bots in any language) branch on the status code, so the same failure
must give the same code whichever service noticed it.  Each status also carries a
machine-readable reason, a ``google.rpc.ErrorInfo`` (domain ``frontier.v1``) in the
standard ``grpc-status-details-bin`` trailer (:func:`abort`), for clients that must tell
apart failures sharing a code (a stale version from another writer's, say).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NoReturn, TypeVar

import grpc
import nats.errors
import nats.js.errors
from google.protobuf import any_pb2, duration_pb2
from google.rpc.error_details_pb2 import ErrorInfo, RetryInfo
from google.rpc.status_pb2 import Status

from frontier.engine.errors import GameOver, IllegalCommand, InvalidConfig, WrongSeat
from frontier.runtime.failure_log import FailureLog
from frontier.v1 import errors_pb2
from frontier.wire.convert import WireError

log = logging.getLogger("frontier.errors")

# NATS failures after which nothing is known to have happened, or to have failed: no answer
# in time (a stalled or unreachable server), a lost connection, nobody serving JetStream
# yet.  A request is then answered UNAVAILABLE, and a publish is tried again until it is
# settled (see orchestrator/commit.py).  A JetStream API error is a definite answer and is
# not among them, except "service unavailable".
NATS_UNREACHABLE: tuple[type[Exception], ...] = (
    TimeoutError,  # nats.errors.TimeoutError and asyncio's
    ConnectionError,
    nats.errors.ConnectionClosedError,
    nats.errors.ConnectionReconnectingError,
    nats.errors.ConnectionDrainingError,
    nats.errors.NoRespondersError,
    nats.errors.NoServersError,
    nats.errors.StaleConnectionError,
    nats.errors.OutboundBufferLimitError,
    nats.errors.FlushTimeoutError,
    nats.js.errors.NoStreamResponseError,
    nats.js.errors.ServiceUnavailableError,
)

NATS_RETRY = "NATS (the event store) did not answer in time; retry with the same command id"

# What a client does after WRITER_CONFLICT (docs/operations.md, "Errors"): this command was
# not applied, and the match is reloaded from its stream (orchestrator/commit.py), so the
# same request again is answered from the truth.  Its command id is checked first: the
# first result if another orchestrator applied this very command (the client's own retry
# sent there), else the command is checked against the match as it now is (with
# ``expected_version`` set that is STALE_VERSION, the match having moved on: then read the
# view and choose again).
WRITER_CONFLICT_MESSAGE = (
    "another orchestrator, which took the match over, wrote the match first; this command "
    "was not applied and the match is reloaded: retry with the same command id (checked "
    "against the match as it is now)"
)


# The reasons a status may carry: the names of ``frontier.v1.ErrorReason`` (errors.proto)
# without their prefix, so the proto is the one list a client reads.
REASON_PREFIX = "ERROR_REASON_"
REASONS = frozenset(
    value.name.removeprefix(REASON_PREFIX)
    for value in errors_pb2.ErrorReason.DESCRIPTOR.values
    if value.number != 0
)

# The reason of a failure that names none: the one reason its code has in most cases.
DEFAULT_REASON: dict[grpc.StatusCode, str] = {
    grpc.StatusCode.NOT_FOUND: "MATCH_NOT_FOUND",
    grpc.StatusCode.UNAUTHENTICATED: "TOKEN_REQUIRED",
    grpc.StatusCode.PERMISSION_DENIED: "UNKNOWN_TOKEN",
    grpc.StatusCode.INVALID_ARGUMENT: "MALFORMED",
    grpc.StatusCode.ABORTED: "STALE_VERSION",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "TOO_MANY_MATCHES",
    grpc.StatusCode.UNAVAILABLE: "SERVER_UNAVAILABLE",
}


def reason_for(code: grpc.StatusCode, reason: str = "") -> str:
    """``reason``, or the code's default one; ValueError for a reason errors.proto lacks
    (so a new reason cannot reach a client undocumented), and for a FAILED_PRECONDITION
    without one (each of those has its own reason)."""
    if not reason:
        if code is grpc.StatusCode.FAILED_PRECONDITION:
            raise ValueError("a FAILED_PRECONDITION needs a reason of its own")
        reason = DEFAULT_REASON.get(code, "INTERNAL")
    if reason not in REASONS:
        raise ValueError(f"reason {reason!r} is not in frontier.v1.ErrorReason (errors.proto)")
    return reason


# ErrorInfo.metadata keys (errors.proto documents which reason carries which): ``field``,
# the request field the failure is about; ``current_version``, the match's version now;
# ``match_id``.  A value over METADATA_CHARS is left out rather than cut: a client's own
# unbounded input is never echoed, and a cut id would name another.
FIELD = "field"
CURRENT_VERSION = "current_version"
MATCH_ID = "match_id"
METADATA_CHARS = 64


def bounded(metadata: Mapping[str, str] | None) -> dict[str, str]:
    """``metadata`` without its empty values and those over METADATA_CHARS characters."""
    return {k: v for k, v in (metadata or {}).items() if v and len(v) <= METADATA_CHARS}


class ServiceError(Exception):
    """A failure that already knows its status code, message, reason and ErrorInfo
    metadata (``field`` and the like, see errors.proto)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str = "",
        metadata: Mapping[str, str] | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason_for(code, reason)
        self.metadata = bounded(metadata)
        # sent as a google.rpc.RetryInfo detail: when trying again may succeed (quotas)
        self.retry_after_s = retry_after_s


def about(field: str) -> dict[str, str]:
    """The metadata of a failure about the request field ``field`` ("command.clearing")."""
    return {FIELD: field}


def status_for(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    code, message, _ = classify(exc)
    return code, message


def classify(exc: BaseException) -> tuple[grpc.StatusCode, str, str]:
    """The status code, message and machine-readable reason (ErrorInfo.reason) of a
    failure.  Reasons are stable UPPER_SNAKE names that clients may branch on; a failure
    without a reason of its own has its code's name."""
    if isinstance(exc, ServiceError):
        return exc.code, exc.message, exc.reason
    if isinstance(exc, (WireError, InvalidConfig)):
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc), "MALFORMED"
    if isinstance(exc, WrongSeat):
        return grpc.StatusCode.FAILED_PRECONDITION, f"not your turn: {exc}", "NOT_YOUR_TURN"
    if isinstance(exc, IllegalCommand):
        return grpc.StatusCode.FAILED_PRECONDITION, f"illegal command: {exc}", "ILLEGAL_COMMAND"
    if isinstance(exc, GameOver):
        return grpc.StatusCode.FAILED_PRECONDITION, str(exc), "MATCH_OVER"
    if isinstance(exc, grpc.aio.AioRpcError):
        return _domain_failure(exc)
    if isinstance(exc, NATS_UNREACHABLE):
        message = f"{NATS_RETRY} ({type(exc).__name__})"
        return grpc.StatusCode.UNAVAILABLE, message, "NATS_UNAVAILABLE"
    return grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}", "INTERNAL"


def metadata_of(exc: BaseException) -> dict[str, str]:
    """The ErrorInfo metadata of a failure: a ServiceError's own, a domain service's passed
    on with its reason, else none."""
    if isinstance(exc, ServiceError):
        return exc.metadata
    if isinstance(exc, grpc.aio.AioRpcError):
        known, metadata = error_info_in(exc.trailing_metadata())
        # only with the domain's own reason: DOMAIN_UNAVAILABLE, say, is this service's
        return bounded(metadata) if known == classify(exc)[2] else {}
    return {}


DOMAIN_RETRY = (
    "a domain service is unavailable or did not answer in time; retry with the same command id"
)

# gRPC's own reasons for a failed call (no connection, say) name the peer's address: they
# are logged here, at most once a minute per status code, and never sent to a client.
_hidden = FailureLog(log)


def _domain_failure(exc: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str, str]:
    """A domain service's answer (an AioRpcError) as this service's status.  A status with
    a Frontier reason is the domain service's own, passed on; any other is gRPC's (a lost
    connection, an unreachable address), whose text is logged instead of passed on."""
    code = exc.code()
    known = reason_in(exc.trailing_metadata())
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        if known not in REASONS:
            hide(exc, "a domain service call")
        return grpc.StatusCode.UNAVAILABLE, DOMAIN_RETRY, "DOMAIN_UNAVAILABLE"
    if known in REASONS:
        return code, exc.details() or code.name, known
    hide(exc, "a domain service call")
    return code, f"a domain service answered {code.name}", DEFAULT_REASON.get(code, "INTERNAL")


def hide(exc: grpc.aio.AioRpcError, what: str) -> None:
    """Log gRPC's own text of a failed call (it may name internal addresses), rate-limited:
    the client is told only what the failure means for it."""
    code = exc.code().name
    _hidden.failed(f"{what}: {code}", f"{what} ({code})", exc)


# google.rpc.Status in the trailing metadata, as grpcio-status and every gRPC library read
# it: the code and message again, and one ErrorInfo with the reason.
DETAILS_KEY = "grpc-status-details-bin"
DOMAIN = "frontier.v1"


def details_metadata(
    code: grpc.StatusCode,
    message: str,
    reason: str,
    metadata: Mapping[str, str] | None = None,
    retry_after_s: float | None = None,
) -> tuple[tuple[str, bytes]]:
    """The trailing metadata carrying ``reason`` (and its ErrorInfo ``metadata``) as a
    google.rpc.ErrorInfo detail, and with ``retry_after_s`` a google.rpc.RetryInfo detail
    (what gRPC clients read to know when trying again may succeed)."""
    detail = any_pb2.Any()
    detail.Pack(ErrorInfo(reason=reason, domain=DOMAIN, metadata=bounded(metadata)))
    details = [detail]
    if retry_after_s is not None:
        delay = duration_pb2.Duration()
        delay.FromMilliseconds(max(0, round(retry_after_s * 1000)))
        retry = any_pb2.Any()
        retry.Pack(RetryInfo(retry_delay=delay))
        details.append(retry)
    status = Status(code=code.value[0], message=message, details=details)
    return ((DETAILS_KEY, status.SerializeToString()),)


def error_info_in(metadata: object) -> tuple[str, dict[str, str]]:
    """The ErrorInfo reason and metadata in a call's trailing metadata (("", {}) if none)."""
    for key, value in metadata or ():  # type: ignore[attr-defined]
        if key == DETAILS_KEY and isinstance(value, bytes):
            status = Status.FromString(value)
            for detail in status.details:
                info = ErrorInfo()
                if detail.Unpack(info):
                    return info.reason, dict(info.metadata)
    return "", {}


def reason_in(metadata: object) -> str:
    """The ErrorInfo reason in a call's trailing metadata ("" if none)."""
    return error_info_in(metadata)[0]


def trailer_of(exc: BaseException) -> tuple[tuple[str, bytes]]:
    """The failure's status as trailing metadata: code, message, reason and metadata."""
    code, message, reason = classify(exc)
    retry_after_s = exc.retry_after_s if isinstance(exc, ServiceError) else None
    return details_metadata(code, message, reason, metadata_of(exc), retry_after_s)


def retry_delay_in(metadata: object) -> float | None:
    """The RetryInfo delay (seconds) in a call's trailing metadata, None if it has none."""
    for key, value in metadata or ():  # type: ignore[attr-defined]
        if key == DETAILS_KEY and isinstance(value, bytes):
            for detail in Status.FromString(value).details:
                info = RetryInfo()
                if detail.Unpack(info):
                    return info.retry_delay.ToMilliseconds() / 1000
    return None


async def abort(context: grpc.aio.ServicerContext[Any, Any], exc: BaseException) -> NoReturn:
    """End the call with the failure's status, message, reason and metadata (never returns)."""
    code, message, _ = classify(exc)
    await context.abort(code, message, trailer_of(exc))
    raise AssertionError("unreachable: abort raises")


# How much of a client's value an error message repeats: enough to recognise it, never so
# much that the message outgrows what a client accepts in a status (8 KB for some).
ECHO_CHARS = 64


def shown(value: str) -> str:
    """``value`` quoted for an error message, cut to ECHO_CHARS characters with an ellipsis."""
    if len(value) <= ECHO_CHARS:
        return repr(value)
    return repr(value[:ECHO_CHARS]) + "..."


def not_found(match_id: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.NOT_FOUND,
        f"unknown match {shown(match_id)}",
        "MATCH_NOT_FOUND",
        {FIELD: "match_id", MATCH_ID: match_id},
    )


R = TypeVar("R")
GrpcContext = grpc.aio.ServicerContext[Any, Any]


def grpc_errors(
    method: Callable[..., Awaitable[R]],
) -> Callable[..., Awaitable[R]]:
    """Turn any failure into a gRPC status with a readable message; never crash."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: GrpcContext) -> R:
        try:
            return await method(self, request, context)
        except Exception as exc:
            code, message, _ = failure(exc, method.__name__)
            await context.abort(code, message, trailer_of(exc))
            raise AssertionError("unreachable: abort raises") from exc

    return wrapper


def failure(exc: Exception, where: str) -> tuple[grpc.StatusCode, str, str]:
    """A failed call's status code, message and reason (see errors.classify); a bug (an
    INTERNAL) is logged with its traceback, the caller's mistakes are not."""
    code, message, reason = classify(exc)
    if code is grpc.StatusCode.INTERNAL:
        log.exception("internal error in %s", where)
    return code, message, reason
