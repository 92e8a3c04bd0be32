"""The gateway's seat-link routes against a double of the orchestrator: a seat reissues its
own link, the host reissues any seat, lets a bot play a person's seat and gives it back;
bad input is a 4xx that reaches no call, and no logged URL holds a token."""

from __future__ import annotations

import logging
from typing import Any

import grpc
import pytest
from starlette.testclient import TestClient

from frontier.runtime.errors import details_metadata
from frontier.v1 import match_pb2, types_pb2
from frontier.web.app import create_app
from frontier.web.inputs import CLIENT_HEADER, HOST_HEADER, TOKEN_HEADER
from tests.web.fakes import HOST, SECRET, FakeHealth, FakeMatch, FakeRpcError

PROGRAM = {CLIENT_HEADER: "tests", "Content-Type": "application/json"}
DRAWN = "d" * 43


class SeatsMatch(FakeMatch):
    """FakeMatch with the seat-link calls: one held seat, A1, whose token is SECRET."""

    def __init__(self) -> None:
        super().__init__()
        self.token = SECRET
        self.standin = ""

    async def ReissueSeatToken(self, request: Any, timeout: float) -> Any:
        self._record("ReissueSeatToken", request)
        if request.seat_token not in ("", self.token) or request.host_token not in ("", HOST):
            code, message = grpc.StatusCode.PERMISSION_DENIED, "replaced by a newer token"
            raise FakeRpcError(code, message, details_metadata(code, message, "TOKEN_REISSUED"))
        self.token = request.new_token or "server-drawn-token"
        seat = match_pb2.SeatToken(seat=types_pb2.SEAT_A1, token=self.token)
        return match_pb2.ReissueSeatTokenResponse(seat=seat)

    def _entries(self) -> list[Any]:
        if self.standin:
            return [
                match_pb2.SeatStatusEntry(
                    seat=types_pb2.SEAT_A1,
                    status=match_pb2.SEAT_STATUS_BOT_FOR_PLAYER,
                    bot=self.standin,
                    holder=match_pb2.SEAT_STATUS_CLAIMED,
                )
            ]
        return [
            match_pb2.SeatStatusEntry(seat=types_pb2.SEAT_A1, status=match_pb2.SEAT_STATUS_CLAIMED)
        ]

    async def GetMatchInfo(self, request: Any, timeout: float) -> Any:
        self._record("GetMatchInfo", request)
        return match_pb2.GetMatchInfoResponse(seats=self._entries())

    async def AssignSeatBot(self, request: Any, timeout: float, metadata: Any = ()) -> Any:
        self._record("AssignSeatBot", request)
        self.standin = request.bot if request.replace_player else ""
        return match_pb2.AssignSeatBotResponse(seats=self._entries())

    async def ReturnSeat(self, request: Any, timeout: float, metadata: Any = ()) -> Any:
        self._record("ReturnSeat", request)
        if not self.standin:
            code, message = grpc.StatusCode.FAILED_PRECONDITION, "its person plays it"
            raise FakeRpcError(
                code, message, details_metadata(code, message, "SEAT_NOT_PLAYED_BY_BOT")
            )
        self.standin = ""
        return match_pb2.ReturnSeatResponse(seats=self._entries())


@pytest.fixture
def gateway() -> Any:
    match = SeatsMatch()
    app = create_app("unused:0", bot_kind="random", stubs=(match, FakeHealth()))
    with TestClient(app, headers=dict(PROGRAM)) as client:
        yield client, match


def test_a_seat_reissues_its_own_link_with_the_token_it_drew(gateway: Any) -> None:
    client, match = gateway
    reply = client.post(
        "/api/matches/m-1/reissue", json={"new_token": DRAWN}, headers={TOKEN_HEADER: SECRET}
    )
    assert reply.status_code == 200 and reply.headers["cache-control"] == "no-store"
    assert reply.json() == {"seat": "A1", "token": DRAWN, "link": f"/play?match=m-1#seat={DRAWN}"}
    sent = match.calls[-1][1]
    assert (sent.seat_token, sent.host_token, sent.new_token) == (SECRET, "", DRAWN)
    old = client.post("/api/matches/m-1/reissue", json={}, headers={TOKEN_HEADER: SECRET})
    assert old.status_code == 403 and old.json()["error"] == "token_reissued"


def test_the_host_reissues_a_seat_it_names(gateway: Any) -> None:
    client, match = gateway
    reply = client.post(
        "/api/matches/m-1/reissue", json={"seat": "A1"}, headers={HOST_HEADER: HOST}
    )
    assert reply.status_code == 200 and reply.json()["token"] == "server-drawn-token"
    sent = match.calls[-1][1]
    assert (sent.host_token, sent.seat) == (HOST, types_pb2.SEAT_A1)


@pytest.mark.parametrize(
    ("body", "headers", "status", "error"),
    [
        ({}, {}, 401, "token_required"),
        ({"seat": "C9"}, {HOST_HEADER: HOST}, 400, "bad_seat"),
        ({"new_token": "x" * 129}, {TOKEN_HEADER: SECRET}, 400, "bad_request"),
        ({"colour": "red"}, {TOKEN_HEADER: SECRET}, 400, "bad_request"),
    ],
)
def test_a_bad_reissue_is_a_4xx_and_reaches_no_call(
    gateway: Any, body: Any, headers: Any, status: int, error: str
) -> None:
    client, match = gateway
    reply = client.post("/api/matches/m-1/reissue", json=body, headers=headers)
    assert reply.status_code == status and reply.json()["error"] == error
    assert match.calls == []


def test_the_host_gives_a_persons_seat_to_a_bot_and_back(gateway: Any) -> None:
    client, match = gateway
    host = {HOST_HEADER: HOST}
    given = client.post(
        "/api/matches/m-1/seats/A1/bot", json={"replace_player": True}, headers=host
    )
    assert given.status_code == 200 and match.calls[-1][1].replace_player
    assert given.json()["seats"] == [
        {"seat": "A1", "status": "bot_for_player", "bot": "random", "holder": "claimed"}
    ]
    back = client.post("/api/matches/m-1/seats/A1/return", headers=host)
    assert back.status_code == 200
    assert back.json()["seats"] == [{"seat": "A1", "status": "claimed", "bot": ""}]
    again = client.post("/api/matches/m-1/seats/A1/return", headers=host)
    assert again.status_code == 409 and again.json()["error"] == "seat_not_played_by_bot"
    assert client.post("/api/matches/m-1/seats/A1/return").status_code == 401
    assert client.post("/api/matches/m-1/seats/Z1/return", headers=host).status_code == 400


def test_a_matchs_info_lists_who_plays_each_seat(gateway: Any) -> None:
    client, match = gateway
    assert client.get("/api/matches/m-1/info").json()["seats"][0]["status"] == "claimed"
    client.post(
        "/api/matches/m-1/seats/A1/bot", json={"replace_player": True}, headers={HOST_HEADER: HOST}
    )
    info = client.get("/api/matches/m-1/info").json()
    assert info["seats"] == [
        {"seat": "A1", "status": "bot_for_player", "bot": "random", "holder": "claimed"}
    ]
    assert [name for name, _ in match.calls].count("GetMatchInfo") == 2


def test_create_hands_out_the_host_link(gateway: Any) -> None:
    client, _ = gateway
    created = client.post("/api/matches", json={"bots": ["B1", "A2", "B2", "A3", "B3"]}).json()
    assert created["host_link"] == f"/match?match=m-1#host={HOST}"


def test_no_logged_url_holds_a_seat_link_token(
    gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    client, _ = gateway
    caplog.set_level(logging.INFO, logger="frontier.web.access")
    client.post(
        "/api/matches/m-1/reissue", json={"new_token": DRAWN}, headers={TOKEN_HEADER: SECRET}
    )
    client.post(
        "/api/matches/m-1/seats/A1/bot", json={"replace_player": True}, headers={HOST_HEADER: HOST}
    )
    client.post("/api/matches/m-1/seats/A1/return", headers={HOST_HEADER: HOST})
    lines = [r.getMessage() for r in caplog.records if r.name == "frontier.web.access"]
    assert len(lines) == 3 and all(" 200 " in line for line in lines)
    assert not [line for line in lines if SECRET in line or DRAWN in line or HOST in line]
