"""One mapping from failures to gRPC status codes, used by every service.

Why central: clients (bots in any language) branch on the status code, so the same failure
must give the same code whichever service noticed it.
"""

from __future__ import annotations

import grpc

from frontier.engine.errors import GameOver, IllegalCommand, InvalidConfig, WrongSeat
from frontier.wire.convert import WireError


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
    return grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}"


def not_found(match_id: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.NOT_FOUND, f"unknown match {match_id!r}")
