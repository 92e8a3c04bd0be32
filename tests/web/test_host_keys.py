"""The gateway and host keys: the browser's key goes to the orchestrator on the host calls
only, the gateway's own (FRONTIER_WEB_HOST_KEY) stands in when the browser sends none, and
no key reaches a log line."""

from __future__ import annotations

import logging

import pytest
from starlette.testclient import TestClient

from frontier.web.app import create_app
from frontier.web.inputs import CLIENT_HEADER, HOST_HEADER, HOST_KEY_HEADER
from tests.web.fakes import HOST, FakeHealth, FakeMatch

PROGRAM = {CLIENT_HEADER: "tests", "Content-Type": "application/json"}
KEY = "fk_0123456789ab_browserbrowserbrowser"
OWN = "fk_ba9876543210_gatewaygatewaygateway"


def client_of(host_key: str = "") -> tuple[TestClient, FakeMatch]:
    match = FakeMatch()
    app = create_app("unused:0", bot_kind="random", host_key=host_key, stubs=(match, FakeHealth()))
    return TestClient(app, headers=dict(PROGRAM)), match


def test_the_browsers_key_goes_with_create_assign_and_abandon(caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.DEBUG)
    client, match = client_of()
    with client:
        keyed = {HOST_KEY_HEADER: KEY}
        assert client.post("/api/matches", json={}, headers=keyed).status_code == 201
        both = {**keyed, HOST_HEADER: HOST}
        assert client.post("/api/matches/m-1/seats/A1/bot", json={}, headers=both).is_success
        assert client.post("/api/matches/m-1/abandon", headers=both).is_success
        client.get("/api/matches", headers=keyed)  # a read: no host call, nothing forwarded
    assert match.host_keys == [KEY, KEY, KEY]
    assert KEY not in caplog.text


def test_without_a_browser_key_the_gateways_own_goes_or_none():
    own, match = client_of(OWN)
    with own:
        assert own.post("/api/matches", json={}).status_code == 201
        assert own.post("/api/matches", json={}, headers={HOST_KEY_HEADER: KEY}).is_success
    assert match.host_keys == [OWN, KEY]
    plain, bare = client_of()
    with plain:
        assert plain.post("/api/matches", json={}).status_code == 201
    assert bare.host_keys == [""]


def test_an_overlong_key_is_a_400_and_calls_nothing():
    client, match = client_of()
    with client:
        reply = client.post("/api/matches", json={}, headers={HOST_KEY_HEADER: "k" * 300})
    assert reply.status_code == 400 and reply.json()["error"] == "bad_host_key"
    assert match.host_keys == []
