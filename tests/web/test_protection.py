"""What the gateway refuses before any route runs: a body past the limit (counted while it is
read), a Host that is not the gateway's, a state-changing request from another site; and
what every response carries: the security headers, gzip where the client takes it."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from starlette.testclient import TestClient

from frontier.web.app import create_app
from frontier.web.inputs import CLIENT_HEADER
from frontier.web.protect import (
    CONTENT_SECURITY_POLICY,
    SECURITY_HEADERS,
    Protection,
    same_origin,
    split_host,
)
from frontier.web.settings import WebSettings
from tests.web.fakes import FakeHealth, FakeMatch

LIMIT = 4096
PROGRAM = {CLIENT_HEADER: "tests", "Content-Type": "application/json"}
CHANGING = {"CreateMatch", "ClaimSeat", "SubmitCommand", "AbandonMatch", "AssignSeatBot"}


def gateway_of(protection: Protection) -> Any:
    match = FakeMatch()
    app = create_app(
        "unused:0", bot_kind="random", stubs=(match, FakeHealth()), protection=protection
    )
    return app, match


@pytest.fixture
def gateway() -> Any:
    app, match = gateway_of(
        Protection(max_body_bytes=LIMIT, allowed_origins=("https://ok.example",))
    )
    with TestClient(app) as client:
        yield client, match


def changed(match: FakeMatch) -> list[str]:
    return [name for name, _ in match.calls if name in CHANGING]


def test_a_body_declared_past_the_limit_is_a_413_and_reaches_no_route(gateway: Any):
    client, match = gateway
    reply = client.post("/api/matches", content=b"{}" + b" " * LIMIT, headers=PROGRAM)
    assert reply.status_code == 413 and reply.json()["error"] == "body_too_large"
    assert reply.headers["connection"] == "close" and str(LIMIT) in reply.json()["detail"]
    assert changed(match) == []
    assert (
        client.post("/api/matches", content=b"{}" + b" " * 100, headers=PROGRAM).status_code == 201
    )


async def test_a_body_without_a_length_is_cut_off_at_the_limit_while_it_is_read():
    """A chunked body that never ends: the gateway stops pulling chunks just past the limit
    and answers 413; nothing behind it is called."""
    app, match = gateway_of(Protection(max_body_bytes=LIMIT))
    pulled: list[int] = []

    async def receive() -> dict[str, Any]:
        pulled.append(1024)
        return {"type": "http.request", "body": b" " * 1024, "more_body": True}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = asgi_scope(
        "POST",
        "/api/matches",
        [(b"content-type", b"application/json"), (CLIENT_HEADER.encode(), b"t")],
    )
    async with app.router.lifespan_context(app):
        await app(scope, receive, send)
    assert sent[0]["status"] == 413 and sum(pulled) <= LIMIT + 1024
    assert b"body_too_large" in sent[1]["body"] and changed(match) == []


@pytest.mark.parametrize(
    ("headers", "error"),
    [
        ({"Origin": "https://evil.example"}, "cross_origin"),
        ({"Origin": "null"}, "cross_origin"),
        ({"Origin": "http://testserver.evil.example"}, "cross_origin"),
        ({"Origin": "http://testserver:8080"}, "cross_origin"),  # another port, another origin
        ({"Referer": "https://evil.example/page"}, "cross_origin"),
        ({}, "csrf_header_required"),  # a program, but without the client header
        ({CLIENT_HEADER: "x", "Content-Type": "text/plain"}, "csrf_header_required"),
        ({"Content-Type": "application/json"}, "csrf_header_required"),
    ],
)
def test_a_state_changing_request_from_elsewhere_is_a_403_and_changes_nothing(
    gateway: Any, headers: dict[str, str], error: str
):
    client, match = gateway
    for method, url in (
        ("POST", "/api/matches"),
        ("POST", "/api/matches/m-1/claim"),
        ("PUT", "/api/matches/m-1/standing-answers"),
        ("DELETE", "/api/matches"),
    ):
        reply = client.request(method, url, content=b"{}", headers=headers)
        assert reply.status_code == 403, (method, url)
        assert reply.json()["error"] == error and reply.json()["detail"]
    assert changed(match) == [] and match.calls == []


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://testserver"},
        {"Origin": "https://testserver"},  # TLS ended by a proxy in front
        {"Origin": "https://ok.example"},  # a configured origin
        {"Referer": "http://testserver/?match=m-1"},
        PROGRAM,
    ],
)
def test_the_gateways_own_page_a_configured_origin_or_a_program_may_change(
    gateway: Any, headers: dict[str, str]
):
    client, match = gateway
    reply = client.post("/api/matches", json={}, headers=headers)
    assert reply.status_code == 201 and changed(match) == ["CreateMatch"]


def test_reads_need_no_origin_check(gateway: Any):
    client, _ = gateway
    reply = client.get("/api/matches", headers={"Origin": "https://evil.example"})
    assert reply.status_code == 200 and "access-control-allow-origin" not in reply.headers


@pytest.mark.parametrize(
    "host", ["evil.example", "127.0.0.1.evil.example", "", "localhost.evil.example:80"]
)
def test_a_host_that_is_not_the_gateways_is_a_400(gateway: Any, host: str):
    client, match = gateway
    for method, url in (("GET", "/"), ("GET", "/api/matches"), ("POST", "/api/matches")):
        reply = client.request(method, url, headers={"Host": host, **PROGRAM}, content=b"{}")
        assert reply.status_code == 400 and reply.json()["error"] == "bad_host"
        assert reply.headers["x-frame-options"] == "DENY"
    assert match.calls == []


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:8080", "127.0.0.1:9", "[::1]:8080", "LOCALHOST."]
)
def test_localhost_names_are_always_served(gateway: Any, host: str):
    client, _ = gateway
    assert client.get("/healthz", headers={"Host": host}).status_code == 200


def test_the_allowed_hosts_are_the_bind_address_configured_names_and_the_connections_own():
    loopback = Protection()
    assert loopback.host_allowed("127.0.0.1", None) and loopback.host_allowed("localhost", None)
    assert not loopback.host_allowed("frontier.example", None)
    assert Protection(bind_host="10.1.2.3").host_allowed("10.1.2.3", None)
    assert not Protection(bind_host="0.0.0.0").host_allowed("0.0.0.0", None)
    named = Protection(allowed_hosts=("play.example", ".frontier.example"))
    assert named.host_allowed("play.example", None) and named.host_allowed("frontier.example", None)
    assert named.host_allowed("eu.frontier.example", None)
    assert not named.host_allowed("evilfrontier.example", None)
    assert not named.host_allowed("play.example.evil", None)
    # a probe that dials the gateway by the address it listens on
    assert Protection(bind_host="0.0.0.0").host_allowed("10.0.0.7", "10.0.0.7")
    assert Protection(allowed_hosts=("*",)).host_allowed("anything.example", None)


def test_hosts_and_origins_are_read_like_a_browser_sends_them():
    assert split_host("Example.org:8080") == ("example.org", 8080)
    assert split_host("[::1]:80") == ("::1", 80) and split_host("::1") == ("::1", None)
    assert split_host("example.org.") == ("example.org", None)
    assert same_origin("https://example.org", "example.org")
    assert same_origin("http://example.org:8080", "example.org:8080")
    assert same_origin("http://example.org", "example.org:80")
    assert not same_origin("http://example.org", "example.org:8080")
    assert not same_origin("null", "example.org") and not same_origin(
        "ftp://example.org", "example.org"
    )


def test_every_response_carries_the_security_headers(gateway: Any):
    client, _ = gateway
    replies = [
        client.get("/"),
        client.get("/static/style.css"),
        client.get("/api/matches"),
        client.get("/api/nothing"),
        client.get("/api/matches/m-1/view?token=x"),
        client.post("/api/matches", json={}, headers={"Origin": "https://evil.example"}),
        client.get("/", headers={"Host": "evil.example"}),
    ]
    assert [r.status_code for r in replies] == [200, 200, 200, 404, 400, 403, 400]
    for reply in replies:
        for name, value in SECURITY_HEADERS.items():
            assert reply.headers[name] == value
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    assert (
        "default-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe" not in CONTENT_SECURITY_POLICY
    )


def test_the_page_holds_no_inline_script_or_style(gateway: Any):
    """The policy allows no inline code: the page must load everything from files."""
    client, _ = gateway
    page = client.get("/").text
    assert "<script" in page and "<script>" not in page and "style=" not in page
    assert "<style" not in page and "javascript:" not in page


def test_json_and_static_files_are_gzipped_when_the_client_takes_it(gateway: Any):
    client, _ = gateway
    for url in ("/api/game-data", "/static/style.css"):
        plain = client.get(url, headers={"Accept-Encoding": "identity"})
        packed = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert "content-encoding" not in plain.headers
        assert (
            packed.headers["content-encoding"] == "gzip"
            and packed.headers["vary"] == "Accept-Encoding"
        )
        assert int(packed.headers["content-length"]) < len(plain.content)
        assert packed.content == plain.content  # the client decoded it


def test_the_limits_come_from_the_settings(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FRONTIER_WEB_MAX_BODY_BYTES", "8192")
    monkeypatch.setenv("FRONTIER_WEB_ALLOWED_HOSTS", "Play.Example, .frontier.example")
    monkeypatch.setenv("FRONTIER_WEB_ALLOWED_ORIGINS", "https://play.example")
    monkeypatch.setenv("FRONTIER_WEB_SSE_PER_ADDRESS", "3")
    monkeypatch.setenv("FRONTIER_HOST", "0.0.0.0")
    limits = Protection.from_settings(WebSettings())
    assert limits.max_body_bytes == 8192 and limits.sse_per_address == 3
    assert limits.allowed_hosts == ("play.example", ".frontier.example")
    assert limits.allowed_origins == ("https://play.example",) and limits.bind_host == "0.0.0.0"
    monkeypatch.setenv("FRONTIER_WEB_ALLOWED_ORIGINS", "https://play.example/lobby")
    with pytest.raises(ValueError, match="is no origin"):
        WebSettings()
    monkeypatch.setenv("FRONTIER_WEB_ALLOWED_ORIGINS", "")
    monkeypatch.setenv("FRONTIER_WEB_MAX_BODY_BYTES", "12")
    with pytest.raises(ValueError):
        WebSettings()


def asgi_scope(
    method: str, path: str, headers: list[tuple[bytes, bytes]], query: bytes = b""
) -> dict[str, Any]:
    """An HTTP request's ASGI scope, as a server on loopback hands it to the app."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": [(b"host", b"127.0.0.1:8080"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8080),
    }


def test_one_request_is_one_access_line_whatever_its_path(
    gateway: Any, caplog: pytest.LogCaptureFixture
):
    """A path with a line break (percent-encoded) cannot forge a second log line."""
    client, _ = gateway
    caplog.set_level(logging.INFO, logger="frontier.web.access")
    client.get("/api/x%0AGET%20/api/matches%20200")
    lines = [r.getMessage() for r in caplog.records if r.name == "frontier.web.access"]
    assert len(lines) == 1 and "\n" not in lines[0] and "/api/x\\nGET /api/matches" in lines[0]
