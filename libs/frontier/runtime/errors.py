"""One mapping from failures to gRPC status codes and reasons, used by every service.

Why central: clients (bots in any language) branch on the status code, so the same failure
must give the same code whichever service noticed it.  Each status also carries a
machine-readable reason, a ``google.rpc.ErrorInfo`` (domain ``frontier.v1``) in the
standard ``grpc-status-details-bin`` trailer (:func:`abort`), for clients that must tell
apart failures sharing a code (a stale version from another writer's, say).
"""

from __future__ import annotations

from typing import Any, NoReturn

import grpc
import nats.errors
import nats.js.errors
from google.protobuf import any_pb2
from google.rpc.error_details_pb2 import ErrorInfo
from google.rpc.status_pb2 import Status

from frontier.engine.errors import GameOver, IllegalCommand, InvalidConfig, WrongSeat
from frontier.wire.convert import WireError

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


class ServiceError(Exception):
    """A failure that already knows its status code, message and reason."""

    def __init__(self, code: grpc.StatusCode, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason or code.name


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
        code = exc.code()
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            message = f"a domain service is unavailable: {exc.details()}; retry with the same id"
            return grpc.StatusCode.UNAVAILABLE, message, "DOMAIN_UNAVAILABLE"
        return code, exc.details() or code.name, reason_in(exc.trailing_metadata()) or code.name
    if isinstance(exc, NATS_UNREACHABLE):
        message = f"{NATS_RETRY} ({type(exc).__name__})"
        return grpc.StatusCode.UNAVAILABLE, message, "NATS_UNAVAILABLE"
    return grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}", "INTERNAL"


# google.rpc.Status in the trailing metadata, as grpcio-status and every gRPC library read
# it: the code and message again, and one ErrorInfo with the reason.
DETAILS_KEY = "grpc-status-details-bin"
DOMAIN = "frontier.v1"


def details_metadata(code: grpc.StatusCode, message: str, reason: str) -> tuple[tuple[str, bytes]]:
    """The trailing metadata carrying ``reason`` as a google.rpc.ErrorInfo detail."""
    detail = any_pb2.Any()
    detail.Pack(ErrorInfo(reason=reason, domain=DOMAIN))
    status = Status(code=code.value[0], message=message, details=[detail])
    return ((DETAILS_KEY, status.SerializeToString()),)


def reason_in(metadata: object) -> str:
    """The ErrorInfo reason in a call's trailing metadata ("" if none)."""
    for key, value in metadata or ():  # type: ignore[attr-defined]
        if key == DETAILS_KEY and isinstance(value, bytes):
            status = Status.FromString(value)
            for detail in status.details:
                info = ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


async def abort(context: grpc.aio.ServicerContext[Any, Any], exc: BaseException) -> NoReturn:
    """End the call with the failure's status, message and reason (never returns)."""
    code, message, reason = classify(exc)
    await context.abort(code, message, details_metadata(code, message, reason))
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
        grpc.StatusCode.NOT_FOUND, f"unknown match {shown(match_id)}", "MATCH_NOT_FOUND"
    )
