"""The arena's leaderboard through the gateway: a gateway without an arena says so with a
JSON 503 ``arena_not_configured``; with one it answers GetLeaderboard as the proto's JSON
(proto field names, history included, never cached); the arena's refusals keep their
reason, and gRPC's own failures become ``arena_unavailable`` without gRPC's text."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from starlette.testclient import TestClient

from frontier.runtime.errors import details_metadata
from frontier.v1 import arena_pb2
from frontier.web.app import STATIC, create_app
from frontier.web.settings import WebSettings
from tests.web.fakes import FakeHealth, FakeMatch, FakeRpcError
from tests.web.test_gateway import PROGRAM

INTERNAL_ADDRESS = "10.1.2.3:50057"


def board() -> arena_pb2.GetLeaderboardResponse:
    point = arena_pb2.RatingPoint(
        sequence=4, match_id="m-4", finished_unix_ms=1_700_000_000_000, mu=27.5, sigma=7.0
    )
    point.ordinal = point.mu - 3 * point.sigma
    entry = arena_pb2.LeaderboardEntry(
        bot_id="0123456789ab",
        name="alpha",
        rating=arena_pb2.SkillRating(mu=27.5, sigma=7.0, ordinal=6.5, matches=4),
        matches_played=4,
        factions=[arena_pb2.FactionRating(faction="eyrie")],
        history=[point],
    )
    match = arena_pb2.ArenaMatch(
        match_id="m-4", state=arena_pb2.ARENA_MATCH_STATE_RATED, winner="A", sequence=4
    )
    return arena_pb2.GetLeaderboardResponse(
        entries=[entry], recent_matches=[match], ranked_after=10
    )


class FakeArena:
    def __init__(self, failure: Exception | None = None) -> None:
        self.failure = failure
        self.calls = 0

    async def GetLeaderboard(self, request: Any, timeout: float) -> Any:
        self.calls += 1
        if self.failure is not None:
            raise self.failure
        return board()


def client_of(arena: FakeArena | None) -> TestClient:
    app = create_app("unused:0", stubs=(FakeMatch(), FakeHealth()), arena_stub=arena, timeout_s=1.0)
    return TestClient(app)


def test_without_an_arena_the_route_says_so():
    with client_of(None) as client:
        reply = client.get("/api/arena/leaderboard")
    assert reply.status_code == 503
    assert reply.json()["error"] == "arena_not_configured"
    assert "FRONTIER_ARENA_URL" in reply.json()["detail"]


def test_the_board_is_the_protos_json_with_its_history():
    arena = FakeArena()
    with client_of(arena) as client:
        reply = client.get("/api/arena/leaderboard")
    assert reply.status_code == 200 and arena.calls == 1
    assert reply.headers["cache-control"] == "no-store"
    body = reply.json()
    entry = body["entries"][0]
    assert entry["name"] == "alpha" and entry["matches_played"] == 4
    assert entry["ranked"] is False and entry["matches_left"] == 0  # defaults included
    assert entry["history"] == [
        {
            "sequence": "4",
            "match_id": "m-4",
            "finished_unix_ms": "1700000000000",
            "mu": 27.5,
            "sigma": 7.0,
            "ordinal": 6.5,
        }
    ]
    assert body["recent_matches"][0]["state"] == "ARENA_MATCH_STATE_RATED"
    assert body["ranked_after"] == 10


def test_only_get_is_served():
    with client_of(FakeArena()) as client:
        reply = client.post("/api/arena/leaderboard", headers=PROGRAM, json={})
    assert reply.status_code == 405 and reply.json()["error"] == "method_not_allowed"


def test_the_arenas_refusal_keeps_its_reason():
    code, message = grpc.StatusCode.RESOURCE_EXHAUSTED, "too many readers; try in 1 s"
    refusal = FakeRpcError(code, message, details_metadata(code, message, "RATE_LIMITED"))
    with client_of(FakeArena(refusal)) as client:
        reply = client.get("/api/arena/leaderboard")
    assert reply.status_code == 429
    assert reply.json()["error"] == "rate_limited" and reply.json()["detail"] == message


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (grpc.StatusCode.UNAVAILABLE, 503),
        (grpc.StatusCode.DEADLINE_EXCEEDED, 504),
        (grpc.StatusCode.UNIMPLEMENTED, 502),
        (grpc.StatusCode.INTERNAL, 502),
    ],
)
def test_grpcs_own_failure_is_arena_unavailable_without_its_text(
    code: grpc.StatusCode, status: int
):
    failure = FakeRpcError(code, f"failed to connect to all addresses; {INTERNAL_ADDRESS}")
    with client_of(FakeArena(failure)) as client:
        reply = client.get("/api/arena/leaderboard")
    assert reply.status_code == status
    assert reply.json()["error"] == "arena_unavailable"
    assert "arena" in reply.json()["detail"] and INTERNAL_ADDRESS not in reply.text


def test_the_page_is_served_under_the_pages_policy():
    with client_of(None) as client:
        reply = client.get("/arena")
    assert reply.status_code == 200 and reply.headers["cache-control"] == "no-store"
    assert '<script type="module" src="/static/arena.js">' in reply.text
    assert "<style" not in reply.text and "<script>" not in reply.text
    assert "script-src 'self'" in reply.headers["content-security-policy"]
    assert (STATIC / "arena.html").is_file()


def test_the_arena_address_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FRONTIER_ARENA_URL", "arena.internal:50057")
    assert WebSettings().arena_url == "arena.internal:50057"
    monkeypatch.delenv("FRONTIER_ARENA_URL")
    assert WebSettings().arena_url == ""
