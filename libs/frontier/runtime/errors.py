"""One mapping from failures to gRPC status codes, used by every service.

Why central: clients (bots in any language) branch on the status code, so the same failure
must give the same code whichever service noticed it.
"""

from __future__ import annotations

import grpc
import nats.errors
import nats.js.errors

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
    """A failure that already knows its status code and message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def status_for(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    if isinstance(exc, ServiceError):
        return exc.code, exc.message
    if isinstance(exc, (WireError, InvalidConfig)):
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc)
    if isinstance(exc, WrongSeat):
        return grpc.StatusCode.FAILED_PRECONDITION, f"not your turn: {exc}"
    if isinstance(exc, IllegalCommand):
        return grpc.StatusCode.FAILED_PRECONDITION, f"illegal command: {exc}"
    if isinstance(exc, GameOver):
        return grpc.StatusCode.FAILED_PRECONDITION, str(exc)
    if isinstance(exc, grpc.aio.AioRpcError):
        code = exc.code()
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            return grpc.StatusCode.UNAVAILABLE, f"a domain service is unavailable: {exc.details()}"
        return code, exc.details() or code.name
    if isinstance(exc, NATS_UNREACHABLE):
        return grpc.StatusCode.UNAVAILABLE, f"{NATS_RETRY} ({type(exc).__name__})"
    return grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}"


# How much of a client's value an error message repeats: enough to recognise it, never so
# much that the message outgrows what a client accepts in a status (8 KB for some).
ECHO_CHARS = 64


def shown(value: str) -> str:
    """``value`` quoted for an error message, cut to ECHO_CHARS characters with an ellipsis."""
    if len(value) <= ECHO_CHARS:
        return repr(value)
    return repr(value[:ECHO_CHARS]) + "..."


def not_found(match_id: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.NOT_FOUND, f"unknown match {shown(match_id)}")
