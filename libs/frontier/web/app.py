"""The gateway's ASGI application: the page, its static files, the browser API, health.

``create_app`` takes the orchestrator's address (or a ready stub, in tests) and the limits
it enforces (``frontier.web.protect``).  Requests are logged by ``AccessLog`` here, not by
uvicorn, so that what a log line holds is decided in one place: method, path, the query's
known keys without any value, and status; never a header, so never a seat token.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from starlette.applications import Starlette
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from frontier.runtime.tls import aio_channel
from frontier.v1 import arena_pb2_grpc, match_pb2_grpc
from frontier.web.api import Api, Handler
from frontier.web.arena_routes import ArenaRoutes
from frontier.web.inputs import HttpError, redacted_query, refuse_tokens_in_url
from frontier.web.protect import Gatekeeper, Protection, SecurityHeaders
from frontier.web.watchers import Watchers

STATIC = Path(__file__).parent / "static"
PAGES = ("/", "/match", "/play", "/join")
access_log = logging.getLogger("frontier.web.access")


class AccessLog:
    """One line per request: ``GET /api/matches?status=*** 200 3.1ms``; no query value is
    logged, nor a key the API does not read (``***``); a path with control characters is
    escaped, so one request is always one line."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.monotonic()
        status = 0

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            query = redacted_query(scope.get("query_string", b"").decode("latin-1"))
            path = str(scope["path"])
            if not path.isprintable():
                path = path.encode("unicode_escape").decode("ascii")
            url = path + (f"?{query}" if query else "")
            elapsed = (time.monotonic() - started) * 1000
            access_log.info("%s %s %s %.1fms", scope["method"], url, status, elapsed)


def _guard(handler: Handler) -> Handler:
    async def guarded(request: Request) -> Response:
        try:
            refuse_tokens_in_url(request)
            return await handler(request)
        except HttpError as exc:
            return exc.response()

    return guarded


# The browser API: (path, the Api method that answers it, HTTP methods).
API_ROUTES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("/api/game-data", "get_game_data", ("GET",)),
    ("/api/matches", "list_matches", ("GET",)),
    ("/api/matches", "create_match", ("POST",)),
    ("/api/matches/{match_id}/info", "match_info", ("GET",)),
    ("/api/matches/{match_id}/claim", "claim_seat", ("POST",)),
    ("/api/matches/{match_id}/seats/{seat}/bot", "assign_bot", ("POST",)),
    ("/api/matches/{match_id}/seats/{seat}/return", "return_seat", ("POST",)),
    ("/api/matches/{match_id}/reissue", "reissue", ("POST",)),
    ("/api/matches/{match_id}/abandon", "abandon", ("POST",)),
    ("/api/matches/{match_id}/view", "view", ("GET",)),
    ("/api/matches/{match_id}/legal", "legal", ("GET",)),
    ("/api/matches/{match_id}/turn", "turn", ("GET",)),
    ("/api/matches/{match_id}/commands", "submit", ("POST",)),
    ("/api/matches/{match_id}/standing-answers", "get_standing", ("GET",)),
    ("/api/matches/{match_id}/standing-answers", "set_standing", ("PUT",)),
    ("/api/matches/{match_id}/events", "events", ("GET",)),
)


def create_app(
    orchestrator_url: str,
    *,
    bot_kind: str = "greedy",
    timeout_s: float = 5.0,
    host_key: str = "",
    stubs: tuple[Any, Any] | None = None,
    protection: Protection | None = None,
    arena_url: str = "",
    arena_stub: Any = None,
) -> Starlette:
    """The app; ``bot_kind`` is the orchestrator's built-in bot that plays the lobby's bot
    seats; ``host_key`` the key sent on host calls when the browser sends none; ``stubs`` =
    (MatchService stub, Health stub) replaces the channel to
    ``orchestrator_url`` (the unit tests' doubles); ``protection`` the limits (default:
    those of a gateway on loopback); ``arena_url`` the ArenaService the leaderboard is read
    from ("": none), replaced by ``arena_stub`` along with ``stubs``."""
    state: dict[str, Any] = {}  # "api", "health" and "arena", set when the app starts
    limits = protection or Protection()
    watchers = Watchers(limits.sse_per_match, limits.sse_per_address)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if stubs is not None:
            match, state["health"] = stubs
            state["api"] = Api(match, bot_kind, timeout_s, watchers, host_key)
            state["arena"] = ArenaRoutes(arena_stub, timeout_s)
            yield
            return
        channel = aio_channel(orchestrator_url)  # TLS when the environment says so
        stub = match_pb2_grpc.MatchServiceStub(channel)
        state["api"] = Api(stub, bot_kind, timeout_s, watchers, host_key)
        state["health"] = health_pb2_grpc.HealthStub(channel)
        arena_channel = aio_channel(arena_url) if arena_url else None
        arena = None if arena_channel is None else arena_pb2_grpc.ArenaServiceStub(arena_channel)
        state["arena"] = ArenaRoutes(arena, timeout_s)
        try:
            yield
        finally:
            await channel.close()
            if arena_channel is not None:
                await arena_channel.close()

    app = Starlette(
        routes=_routes(state),
        lifespan=lifespan,
        exception_handlers={404: _not_found, 405: _not_allowed},
    )
    # the first added runs innermost: compression sees only the routes' own replies; every
    # reply, refusals included, gets the security headers and a log line
    app.add_middleware(GZipMiddleware, minimum_size=500, compresslevel=6)
    app.add_middleware(Gatekeeper, protection=limits)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(AccessLog)
    app.state.watchers = watchers
    return app


def _routes(state: dict[str, Any]) -> list[Route | Mount]:
    """The pages, the health check, the API (answered by ``state["api"]``) and the static
    files."""

    def route(name: str) -> Handler:
        async def handle(request: Request) -> Response:
            handler: Handler = getattr(state["api"], name)
            return await handler(request)

        return _guard(handle)

    async def health(request: Request) -> Response:
        """200 when the orchestrator answers SERVING, else 503 (docker's health check)."""
        try:
            reply = await state["health"].Check(
                health_pb2.HealthCheckRequest(service=""), timeout=2
            )
            serving = reply.status == health_pb2.HealthCheckResponse.SERVING
        except grpc.aio.AioRpcError:
            serving = False
        body = {"status": "ok" if serving else "orchestrator unavailable"}
        return JSONResponse(body, 200 if serving else 503)

    async def arena_leaderboard(request: Request) -> Response:
        routes: ArenaRoutes = state["arena"]
        return await routes.leaderboard(request)

    return [
        *(Route(path, _page) for path in PAGES),
        Route("/arena", _arena_page),
        Route("/api/arena/leaderboard", _guard(arena_leaderboard), methods=["GET"]),
        Route("/healthz", health),
        Route("/favicon.ico", _favicon),
        *(Route(path, route(name), methods=list(verbs)) for path, name, verbs in API_ROUTES),
        Mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static"),
    ]


async def _page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})


async def _arena_page(request: Request) -> Response:
    """The leaderboard's page: a page of its own with its own script (arena.js)."""
    return FileResponse(STATIC / "arena.html", headers={"Cache-Control": "no-store"})


async def _favicon(request: Request) -> Response:
    """The page links its SVG icon; browsers and crawlers still ask for /favicon.ico first,
    so it gets the same icon rather than a 404 in every log."""
    return FileResponse(
        STATIC / "favicon.svg",
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=86400"},
    )


async def _not_found(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": "not_found", "detail": f"no route {request.url.path}"}, 404)


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return JSONResponse(
        {"error": "method_not_allowed", "detail": f"{request.method} is not served here"},
        405,
    )
