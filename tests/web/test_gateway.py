"""The browser gateway's own rules, against doubles of the orchestrator's stubs: bad input
gets a 4xx with a JSON body and reaches no RPC that changes anything; the lobby's seats are
declared to the orchestrator (open with an invite, or its built-in bots); seat tokens,
invite codes and the host token travel in a header or a body only, and never appear in a
logged URL."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from starlette.testclient import TestClient

from frontier.v1 import match_pb2, types_pb2
from frontier.web.app import create_app
from frontier.web.inputs import CLIENT_HEADER, HOST_HEADER, TOKEN_HEADER, filled_seats
from frontier.web.settings import WebSettings
from tests.web.fakes import HOST, INVITE, SECRET, FakeHealth, FakeMatch

# What a program (not a browser: no Origin) sends to be let change anything.
PROGRAM = {CLIENT_HEADER: "tests", "Content-Type": "application/json"}


@pytest.fixture
def gateway() -> Any:
    match = FakeMatch()
    app = create_app("unused:0", bot_kind="random", stubs=(match, FakeHealth()))
    with TestClient(app, headers=dict(PROGRAM)) as client:
        yield client, match


CHANGING = {
    "CreateMatch",
    "SubmitCommand",
    "SetStandingAnswers",
    "ClaimSeat",
    "AssignSeatBot",
    "AbandonMatch",
}
FIVE_BOTS = ["B1", "A2", "B2", "A3", "B3"]


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
    client, match = gateway
    reply = client.post("/api/matches", json=body)
    assert reply.status_code == 400
    assert reply.json()["error"] == error and reply.json()["detail"]
    assert changed(match) == [] and match.setup == []


def test_a_body_that_is_not_json_is_a_400(gateway: Any):
    client, match = gateway
    reply = client.post("/api/matches", content=b"{not json")
    assert reply.status_code == 400 and reply.json()["error"] == "bad_request"
    reply = client.post("/api/matches/m-1/commands", content=b"[]", headers={TOKEN_HEADER: SECRET})
    assert reply.status_code == 400
    assert changed(match) == []


def test_create_declares_bot_and_open_seats_to_the_orchestrator(gateway: Any):
    client, match = gateway
    reply = client.post("/api/matches", json={"bots": FIVE_BOTS})
    assert reply.status_code == 201 and reply.headers["cache-control"] == "no-store"
    created = reply.json()
    assert created["invites"] == [{"seat": "A1", "invite_code": f"{INVITE}-SEAT_A1"}]
    assert created["host_token"] == HOST and created["bot_seats"] == sorted(FIVE_BOTS)
    setup = {types_pb2.Seat.Name(s.seat): (s.mode, s.bot) for s in match.setup}
    assert setup["SEAT_A1"] == (match_pb2.SEAT_MODE_OPEN, "")
    assert all(setup[f"SEAT_{s}"] == (match_pb2.SEAT_MODE_BOT, "random") for s in FIVE_BOTS)
    # the lobby reads who plays each seat from the orchestrator, not from the gateway
    listed = client.get("/api/matches").json()["matches"][0]
    assert listed["bot_seats"] == ["A2", "A3", "B1", "B2", "B3"]
    assert listed["seats"][0] == {"seat": "A1", "status": "open", "bot": ""}
    assert listed["seats"][1] == {"seat": "B1", "status": "bot", "bot": "random"}


def test_a_short_lineup_declares_only_its_filled_seats(gateway: Any):
    client, match = gateway
    reply = client.post("/api/matches", json={"lineup": "A=marquise;B=marquise", "bots": ["B1"]})
    assert reply.status_code == 201
    assert [types_pb2.Seat.Name(s.seat) for s in match.setup] == ["SEAT_A1", "SEAT_B1"]


def test_an_invite_code_claims_its_seat_once(gateway: Any):
    client, match = gateway
    client.post("/api/matches", json={"bots": FIVE_BOTS})
    code = f"{INVITE}-SEAT_A1"
    claimed = client.post("/api/matches/m-1/claim", json={"invite_code": code})
    assert claimed.status_code == 200 and claimed.headers["cache-control"] == "no-store"
    assert claimed.json() == {"seat": "A1", "token": f"{SECRET}-SEAT_A1"}
    listed = client.get("/api/matches").json()["matches"][0]
    assert listed["seats"][0]["status"] == "claimed"
    again = client.post("/api/matches/m-1/claim", json={"invite_code": code})
    assert again.status_code == 409 and again.json()["error"] == "seat_already_claimed"
    wrong = client.post("/api/matches/m-1/claim", json={"invite_code": "guess"})
    assert wrong.status_code == 403 and wrong.json() == {
        "error": "unknown_invite",
        "detail": "this invite code opens no seat",
        "metadata": {"field": "invite_code"},
    }
    assert match.claimed == {code}


def test_a_claim_from_the_hosts_tab_sends_its_host_token_and_its_choice(gateway: Any):
    client, match = gateway
    client.post("/api/matches", json={"bots": FIVE_BOTS})
    body = {"invite_code": f"{INVITE}-SEAT_A1", "allow_host_claim": True}
    client.post("/api/matches/m-1/claim", json=body, headers={HOST_HEADER: HOST})
    sent = match.calls[-1][1]
    assert (sent.host_token, sent.allow_host_claim) == (HOST, True)
    # a claim from any other page sends neither
    client.post("/api/matches/m-1/claim", json={"invite_code": f"{INVITE}-SEAT_A1"})
    assert (match.calls[-1][1].host_token, match.calls[-1][1].allow_host_claim) == ("", False)


@pytest.mark.parametrize(
    "body", [{}, {"invite_code": ""}, {"invite_code": "x" * 129}, {"code": "x"}, []]
)
def test_a_bad_claim_is_a_400_and_claims_nothing(gateway: Any, body: Any):
    client, match = gateway
    reply = client.post("/api/matches/m-1/claim", json=body)
    assert reply.status_code == 400 and reply.json()["error"] == "bad_request"
    assert changed(match) == []


def test_the_host_gives_an_open_seat_to_a_bot_or_abandons(gateway: Any):
    client, match = gateway
    client.post("/api/matches", json={"bots": FIVE_BOTS})
    url = "/api/matches/m-1/seats/A1/bot"
    assert client.post(url, json={}).status_code == 401  # no host token
    assert client.post(url, json={}, headers={HOST_HEADER: "nope"}).status_code == 403
    reply = client.post(url, json={}, headers={HOST_HEADER: HOST})
    assert reply.status_code == 200
    assert reply.json()["seats"][0] == {"seat": "A1", "status": "bot", "bot": "random"}
    bad = client.post("/api/matches/m-1/seats/C9/bot", json={}, headers={HOST_HEADER: HOST})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_seat"
    ended = client.post("/api/matches/m-1/abandon", headers={HOST_HEADER: HOST})
    assert ended.status_code == 200 and ended.json() == {"version": 12}
    assert [n for n in changed(match) if n != "CreateMatch"] == ["AssignSeatBot"] * 2 + [
        "AbandonMatch"
    ]


def test_a_command_needs_a_token_and_a_legal_id(gateway: Any):
    client, match = gateway
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


def test_the_turn_is_the_seats_first_turn_notice(gateway: Any):
    client, match = gateway
    assert client.get("/api/matches/m-1/turn").status_code == 401
    reply = client.get("/api/matches/m-1/turn", headers={TOKEN_HEADER: SECRET})
    assert reply.status_code == 200 and reply.headers["cache-control"] == "no-store"
    turn = reply.json()
    assert turn["decision_id"] == "7" and turn["deadline_unix_ms"] == "1000030000"
    assert match.calls[-1][1].seat_token == SECRET
    missing = client.get("/api/matches/m-9/turn", headers={TOKEN_HEADER: SECRET})
    assert missing.status_code == 404


def test_orchestrator_errors_become_http_errors(gateway: Any):
    client, _ = gateway
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
    client, match = gateway
    page = client.get("/api/matches?status=finished&page_token=p1").json()
    assert [m["match_id"] for m in page["matches"]] == ["m-1"]
    assert page["matches"][0]["status"] == "MATCH_STATUS_FINISHED"
    assert page["next_page_token"] == "p2"
    assert match.calls[-1][1].page_token == "p1"
    assert client.get("/api/matches?status=in_progress").json()["matches"] == []


def test_unknown_routes_methods_and_policies_are_json_errors(gateway: Any):
    client, match = gateway
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
    client, match = gateway
    view = client.get("/api/matches/m-1/view", headers={TOKEN_HEADER: SECRET}).json()["view"]
    assert view["viewer"] == "SEAT_A1" and view["json"] == ""
    assert match.calls[-1][1].seat_token == SECRET
    spectator = client.get("/api/matches/m-1/view").json()["view"]
    assert spectator["viewer"] == "SEAT_UNSPECIFIED" and match.calls[-1][1].seat_token == ""


@pytest.mark.parametrize("key", ["token", "seat_token", "Token", "invite", "host_token"])
def test_a_token_in_a_url_is_refused_and_not_used(gateway: Any, key: str):
    client, match = gateway
    reply = client.get(f"/api/matches/m-1/view?{key}={SECRET}")
    assert reply.status_code == 400 and reply.json()["error"] == "token_in_url"
    claim = client.post(f"/api/matches/m-1/claim?{key}={INVITE}", json={"invite_code": "x"})
    assert claim.status_code == 400 and claim.json()["error"] == "token_in_url"
    assert match.calls == []


def test_no_logged_url_ever_holds_a_seat_token(gateway: Any, caplog: pytest.LogCaptureFixture):
    client, _ = gateway
    caplog.set_level(logging.INFO, logger="frontier.web.access")
    created = client.post("/api/matches", json={"bots": FIVE_BOTS}).json()
    code = created["invites"][0]["invite_code"]
    claim = client.post("/api/matches/m-1/claim", json={"invite_code": code})
    token = claim.json()["token"]
    headers = {TOKEN_HEADER: token}
    client.get("/api/matches/m-1/view", headers=headers)
    client.get("/api/matches/m-1/legal", headers=headers)
    client.post("/api/matches/m-1/commands", json={"legal_id": "c1"}, headers=headers)
    client.post("/api/matches/m-1/seats/B1/bot", json={}, headers={HOST_HEADER: HOST})
    client.get(f"/api/matches/m-1/view?token={token}")
    client.get(f"/api/matches/m-1/view?invite={code}&host_token={HOST}")
    lines = [r.getMessage() for r in caplog.records if r.name == "frontier.web.access"]
    assert len(lines) >= 8 and any("/api/matches/m-1/legal 200" in line for line in lines)
    assert any("/api/matches/m-1/claim 200" in line for line in lines)
    assert not [line for line in lines if SECRET in line or INVITE in line or HOST in line]
    assert any("/view?*** 400" in line for line in lines)
    assert any("/view?***&*** 400" in line for line in lines)


def test_health_and_the_pages_are_served(gateway: Any):
    client, _ = gateway
    assert client.get("/healthz").json() == {"status": "ok"}
    for page in ("/", "/match", "/play", "/join"):
        reply = client.get(page)
        assert reply.status_code == 200 and '<main id="app">' in reply.text


def test_the_icon_is_served_at_its_link_and_at_favicon_ico(gateway: Any):
    client, _ = gateway
    assert 'href="/static/favicon.svg"' in client.get("/").text
    for path in ("/static/favicon.svg", "/favicon.ico"):
        reply = client.get(path)
        assert reply.status_code == 200, path
        assert reply.headers["content-type"].startswith("image/svg+xml")
        assert reply.text.startswith("<svg")


def test_filled_seats_reads_the_lineup_form():
    assert filled_seats("") == ["A1", "B1", "A2", "B2", "A3", "B3"]
    assert filled_seats("A=marquise,,thief;B=marquise") == ["A1", "A3", "B1"]


def test_the_bot_kind_setting_must_name_a_built_in_bot(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FRONTIER_WEB_BOT_KIND", "random")
    assert WebSettings().web_bot_kind == "random"
    monkeypatch.setenv("FRONTIER_WEB_BOT_KIND", "cheater")
    with pytest.raises(ValueError, match="'cheater' is no built-in bot"):
        WebSettings()
