"""The arena's leaderboard for the browser: ``GET /api/arena/leaderboard`` answers
``ArenaService.GetLeaderboard`` as JSON (proto field names, defaults included), which the
``/arena`` page draws.

The gateway reaches the arena at ``FRONTIER_ARENA_URL``; a gateway without one answers
503 ``arena_not_configured``, so the page can say the server runs no arena rather than
fail.  The board is public (GetLeaderboard needs no key): no header is forwarded.  The
arena's own refusal keeps its reason; a failure gRPC itself reports (the arena
unreachable, too slow) is logged and the page gets a fixed sentence, never gRPC's text,
which names internal addresses.
"""

from __future__ import annotations

import grpc
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from frontier.runtime.errors import error_info_in, hide
from frontier.v1 import arena_pb2, arena_pb2_grpc
from frontier.web.inputs import HTTP_OF_GRPC, HttpError, grpc_error, to_json

# What the page is told when the arena's answer is gRPC's own, not the arena's.
ARENA_AWAY = {
    grpc.StatusCode.UNAVAILABLE: "the arena is unavailable; try again",
    grpc.StatusCode.DEADLINE_EXCEEDED: "the arena did not answer in time; try again",
    grpc.StatusCode.UNIMPLEMENTED: "the server named as the arena offers no arena",
}


def not_configured() -> HttpError:
    """The answer of a gateway without an arena."""
    return HttpError(
        503,
        "arena_not_configured",
        "this server runs no arena (its gateway has no FRONTIER_ARENA_URL)",
    )


def arena_error(exc: grpc.aio.AioRpcError) -> HttpError:
    """The arena's failed answer as HTTP: its reason when it gave one, else
    ``arena_unavailable`` with a sentence and the status of the code."""
    reason, _ = error_info_in(exc.trailing_metadata())
    if reason:
        return grpc_error(exc)
    code = exc.code()
    hide(exc, "a call to the arena")
    detail = ARENA_AWAY.get(code, "the arena's answer was not understood")
    return HttpError(HTTP_OF_GRPC.get(code, 502), "arena_unavailable", detail)


class ArenaRoutes:
    """The arena's route over one ArenaService stub (None: the gateway has no arena)."""

    def __init__(self, stub: arena_pb2_grpc.ArenaServiceAsyncStub | None, timeout_s: float) -> None:
        self.stub = stub
        self.timeout_s = timeout_s

    async def leaderboard(self, request: Request) -> Response:
        """GetLeaderboardResponse as JSON; never cached, as every finished match moves it."""
        if self.stub is None:
            raise not_configured()
        try:
            reply = await self.stub.GetLeaderboard(
                arena_pb2.GetLeaderboardRequest(), timeout=self.timeout_s
            )
        except grpc.aio.AioRpcError as exc:
            raise arena_error(exc) from None
        return JSONResponse(to_json(reply), headers={"Cache-Control": "no-store"})
