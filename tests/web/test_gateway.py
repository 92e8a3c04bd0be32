"""The browser gateway's own rules, against doubles of the orchestrator's stubs: bad input
gets a 4xx with a JSON body and reaches no RPC that changes anything; seat tokens travel in a
header only, and never appear in a logged URL."""

from __future__ import annotations

import logging
from typing import Any

import grpc
import pytest
from starlette.testclient import TestClient

from frontier.runtime.errors import details_metadata
from frontier.v1 import match_pb2, types_pb2
from frontier.web.api import TOKEN_HEADER, filled_seats
from frontier.web.app import create_app

SECRET = "tok-0123456789abcdef"


class FakeRpcError(grpc.aio.AioRpcError):
    def __init__(self, code: grpc.StatusCode, details: str, trailer: Any = ()) -> None:
        super().__init__(code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailer), details)


class FakeMatch:
    """Records every call; answers like a small orchestrator."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def _record(self, name: str, request: Any) -> None:
        self.calls.append((name, request))

    async def CreateMatch(self, request: Any, timeout: float) -> Any:
        self._record("CreateMatch", request)
        seats = [
            match_pb2.SeatToken(seat=types_pb2.Seat.Value(f"SEAT_{s}"), token=f"{SECRET}-{s}")
            for s in ("A1", "B1", "A2", "B2", "A3", "B3")
        ]
        return match_pb2.CreateMatchResponse(match_id="m-1", seats=seats)

    async def GetView(self, request: Any, timeout: float) -> Any:
        self._record("GetView", request)
        if request.match_id != "m-1":
            raise FakeRpcError(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id}")
        view = types_pb2.View(round=2)
        if request.seat_token:
            view.viewer = types_pb2.SEAT_A1
        view.json = '{"secret": "engine debugging form"}'
        return match_pb2.GetViewResponse(view=view)

    async def ListLegalCommands(self, request: Any, timeout: float) -> Any:
        self._record("ListLegalCommands", request)
        return match_pb2.ListLegalCommandsResponse(
            commands=[types_pb2.LegalCommand(id="c1", label="End the phase")], version=3
        )

    async def SubmitCommand(self, request: Any, timeout: float) -> Any:
        self._record("SubmitCommand", request)
        if request.legal_id == "stale":
            raise FakeRpcError(grpc.StatusCode.ABORTED, "the match is at version 4, not 3")
        if request.legal_id == "gone":
            code, message = grpc.StatusCode.FAILED_PRECONDITION, "c9 is not legal now"
            raise FakeRpcError(code, message, details_metadata(code, message, "COMMAND_NOT_LEGAL"))
        return match_pb2.SubmitCommandResponse(version=4)

    async def ListMatches(self, request: Any, timeout: float) -> Any:
        self._record("ListMatches", request)
        summary = match_pb2.MatchSummary(match_id="m-1", status=match_pb2.MATCH_STATUS_FINISHED)
        if request.status not in (0, summary.status):
            return match_pb2.ListMatchesResponse()
        return match_pb2.ListMatchesResponse(matches=[summary], next_page_token="p2")

    async def SetStandingAnswers(self, request: Any, timeout: float) -> Any:
        self._record("SetStandingAnswers", request)
        return match_pb2.SetStandingAnswersResponse(answers=request.answers)


class FakeBots:
    def __init__(self) -> None:
        self.started: list[tuple[str, str, str]] = []

    def start(self, match_id: str, seat: str, token: str, seed: int) -> None:
        self.started.append((match_id, seat, token))

    def bot_seats(self, match_id: str) -> list[str]:
        return sorted(s for m, s, _ in self.started if m == match_id)


class FakeHealth:
    async def Check(self, request: Any, timeout: float) -> Any:
        from grpc_health.v1 import health_pb2

        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


@pytest.fixture
def gateway() -> Any:
    match, bots = FakeMatch(), FakeBots()
    app = create_app("unused:0", stubs=(match, FakeHealth(), bots))
    with TestClient(app) as client:
        yield client, match, bots


CHANGING = {"CreateMatch", "SubmitCommand", "SetStandingAnswers"}


def changed(match: FakeMatch) -> list[str]:
    return [name for name, _ in match.calls if name in CHANGING]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"max_rounds": 9}, "bad_request"),
        ({"bots": ["C7"]}, "bad_seat"),
        ({"bots": ["A1", "A1"]}, "bad_seat"),
        ({"lineup": "A=marquise;B=marquise", "bots": ["A3"]}, "bad_seat"),
        ({"lineup": "X=marquise"}, "bad_lineup"),
        ({"colour": "red"}, "bad_request"),
        ({"seed": -1}, "bad_request"),
    ],
)
def test_a_bad_create_request_is_a_400_and_creates_nothing(gateway: Any, body: Any, error: str):
    client, match, bots = gateway
    reply = client.post("/api/matches", json=body)
    assert reply.status_code == 400
    assert reply.json()["error"] == error and reply.json()["detail"]
    assert changed(match) == [] and bots.started == []


def test_a_body_that_is_not_json_is_a_400(gateway: Any):
    client, match, _ = gateway
    reply = client.post("/api/matches", content=b"{not json", headers={"X": "1"})
    assert reply.status_code == 400 and reply.json()["error"] == "bad_request"
    reply = client.post("/api/matches/m-1/commands", content=b"[]", headers={TOKEN_HEADER: SECRET})
    assert reply.status_code == 400
    assert changed(match) == []


def test_create_starts_the_bot_seats_and_returns_only_the_players_tokens(gateway: Any):
    client, _, bots = gateway
    reply = client.post("/api/matches", json={"bots": ["B1", "A2", "B2", "A3", "B3"]})
    assert reply.status_code == 201
    assert reply.json()["players"] == [{"seat": "A1", "token": f"{SECRET}-A1"}]
    assert [s for _, s, _ in bots.started] == ["B1", "A2", "B2", "A3", "B3"]
    listed = client.get("/api/matches").json()["matches"]
    assert listed[0]["bot_seats"] == ["A2", "A3", "B1", "B2", "B3"]


def test_a_command_needs_a_token_and_a_legal_id(gateway: Any):
    client, match, _ = gateway
    no_token = client.post("/api/matches/m-1/commands", json={"legal_id": "c1"})
    assert no_token.status_code == 401 and no_token.json()["error"] == "token_required"
    empty = client.post(
        "/api/matches/m-1/commands", json={"legal_id": ""}, headers={TOKEN_HEADER: SECRET}
    )
    assert empty.status_code == 400
    bad_id = client.post(
        "/api/matches/bad id!/commands", json={"legal_id": "c1"}, headers={TOKEN_HEADER: SECRET}
    )
    assert bad_id.status_code == 400 and bad_id.json()["error"] == "bad_match_id"
    assert changed(match) == []


def test_orchestrator_errors_become_http_errors(gateway: Any):
    client, _, _ = gateway
    missing = client.get("/api/matches/m-404/view")
    assert missing.status_code == 404
    assert missing.json() == {"error": "not_found", "detail": "no match m-404"}
    stale = client.post(
        "/api/matches/m-1/commands", json={"legal_id": "stale"}, headers={TOKEN_HEADER: SECRET}
    )
    assert stale.status_code == 409 and "version 4" in stale.json()["detail"]
    gone = client.post(
        "/api/matches/m-1/commands", json={"legal_id": "gone"}, headers={TOKEN_HEADER: SECRET}
    )
    assert gone.status_code == 409
    assert gone.json() == {"error": "command_not_legal", "detail": "c9 is not legal now"}


def test_the_lobby_lists_a_page_of_matches_by_status(gateway: Any):
    client, match, _ = gateway
    page = client.get("/api/matches?status=finished&page_token=p1").json()
    assert [m["match_id"] for m in page["matches"]] == ["m-1"]
    assert page["matches"][0]["status"] == "MATCH_STATUS_FINISHED"
    assert page["next_page_token"] == "p2"
    assert match.calls[-1][1].page_token == "p1"
    assert client.get("/api/matches?status=in_progress").json()["matches"] == []


def test_unknown_routes_methods_and_policies_are_json_errors(gateway: Any):
    client, match, _ = gateway
    assert client.get("/api/nothing").json()["error"] == "not_found"
    assert client.delete("/api/matches").status_code == 405
    reply = client.put(
        "/api/matches/m-1/standing-answers",
        json={"answers": {"ambush": "SOMETIMES"}},
        headers={TOKEN_HEADER: SECRET},
    )
    assert reply.status_code == 400 and reply.json()["error"] == "bad_policy"
    assert client.get("/api/matches/m-1/events?from=-3").status_code == 400
    assert client.get("/api/matches?status=lost").json()["error"] == "bad_status"
    assert changed(match) == []


def test_the_seat_token_goes_to_the_orchestrator_and_the_view_loses_its_debug_json(
    gateway: Any,
):
    client, match, _ = gateway
    view = client.get("/api/matches/m-1/view", headers={TOKEN_HEADER: SECRET}).json()["view"]
    assert view["viewer"] == "SEAT_A1" and view["json"] == ""
    assert match.calls[-1][1].seat_token == SECRET
    spectator = client.get("/api/matches/m-1/view").json()["view"]
    assert spectator["viewer"] == "SEAT_UNSPECIFIED" and match.calls[-1][1].seat_token == ""


@pytest.mark.parametrize("key", ["token", "seat_token", "Token"])
def test_a_token_in_a_url_is_refused_and_not_used(gateway: Any, key: str):
    client, match, _ = gateway
    reply = client.get(f"/api/matches/m-1/view?{key}={SECRET}")
    assert reply.status_code == 400 and reply.json()["error"] == "token_in_url"
    assert match.calls == []


def test_no_logged_url_ever_holds_a_seat_token(gateway: Any, caplog: pytest.LogCaptureFixture):
    client, _, _ = gateway
    caplog.set_level(logging.INFO, logger="frontier.web.access")
    created = client.post("/api/matches", json={"bots": ["B1", "A2", "B2", "A3", "B3"]}).json()
    token = created["players"][0]["token"]
    headers = {TOKEN_HEADER: token}
    client.get("/api/matches/m-1/view", headers=headers)
    client.get("/api/matches/m-1/legal", headers=headers)
    client.post("/api/matches/m-1/commands", json={"legal_id": "c1"}, headers=headers)
    client.get(f"/api/matches/m-1/view?token={token}")
    lines = [r.getMessage() for r in caplog.records if r.name == "frontier.web.access"]
    assert len(lines) >= 5 and any("/api/matches/m-1/legal 200" in line for line in lines)
    assert not [line for line in lines if SECRET in line]
    assert any("/view?token=*** 400" in line for line in lines)


def test_health_and_the_pages_are_served(gateway: Any):
    client, _, _ = gateway
    assert client.get("/healthz").json() == {"status": "ok"}
    for page in ("/", "/match", "/play"):
        reply = client.get(page)
        assert reply.status_code == 200 and '<main id="app">' in reply.text


def test_filled_seats_reads_the_lineup_form():
    assert filled_seats("") == ["A1", "B1", "A2", "B2", "A3", "B3"]
    assert filled_seats("A=marquise,,thief;B=marquise") == ["A1", "A3", "B1"]
