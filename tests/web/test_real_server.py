"""The gateway's refusals through a real uvicorn on loopback, as a client on the internet
meets them: an endless body is cut off with 413 while it is still being sent, and no log line
of the process (the access log, uvicorn's own) ever holds a secret sent in a URL, whatever
the spelling of its key."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn

from frontier.web.app import create_app
from frontier.web.inputs import CLIENT_HEADER, TOKEN_HEADER
from frontier.web.main import server_config
from frontier.web.protect import Protection
from frontier.web.settings import WebSettings
from tests.web.fakes import FakeHealth, FakeMatch

LIMIT = 8192
SECRET = "s3cr3t-5eat-t0ken-4242"
# A secret under every spelling of a key a client might try: listed, encoded, unlisted, none.
ODD_QUERIES = [
    f"token={SECRET}",
    f"%74oken={SECRET}",
    f"TOKEN={SECRET}",
    f"seat%5Ftoken={SECRET}",
    f"t={SECRET}",
    f"x=1&auth={SECRET}",
    f"{SECRET}",
    f"{SECRET}=1",
    f"status={SECRET}",
    f"from={SECRET}",
    f"a%5Bb%5D={SECRET}",
    f"%00token={SECRET}",
    f"tok%65n={SECRET}&page_token={SECRET}",
]


@pytest.fixture
async def server() -> AsyncIterator[tuple[int, FakeMatch]]:
    """The gateway on a socket bound here first, so it takes connections from the start."""
    match = FakeMatch()
    app = create_app(
        "unused:0", stubs=(match, FakeHealth()), protection=Protection(max_body_bytes=LIMIT)
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections queue from now on, before the server accepts them
    serving = uvicorn.Server(server_config(app, WebSettings()))
    task = asyncio.create_task(serving.serve(sockets=[sock]))
    try:
        yield sock.getsockname()[1], match
    finally:
        serving.should_exit = True
        await task
        sock.close()


async def exchange(port: int, head: str, body: bytes = b"") -> tuple[str, bytes]:
    """Send a request's head and body; the response's head and body, read to the close."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head.encode("latin-1") + b"\r\n" + body)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head_out, _, body_out = raw.partition(b"\r\n\r\n")
    return head_out.decode("latin-1").lower(), body_out


async def test_an_endless_chunked_body_is_refused_while_it_is_being_sent(server: Any):
    port, match = server
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        "POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"{CLIENT_HEADER}: tests\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    writer.write(head.encode())
    chunk = b"%x\r\n%s\r\n" % (1024, b" " * 1024)
    for _ in range(3 * LIMIT // 1024):  # three times the limit, and never the last chunk
        writer.write(chunk)
    await writer.drain()
    raw = await reader.read()  # the gateway answers and closes: the body never ended
    writer.close()
    assert raw.startswith(b"HTTP/1.1 413 ") and b"connection: close" in raw.lower()
    assert b'"error":"body_too_large"' in raw and match.calls == []


async def test_a_declared_length_past_the_limit_is_refused_before_any_byte_of_it(server: Any):
    port, match = server
    head, body = await exchange(
        port,
        "POST /api/matches HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        f"{CLIENT_HEADER}: tests\r\nContent-Length: 134217728\r\n",  # 128 MiB, never sent
    )
    assert head.startswith("http/1.1 413") and b"body_too_large" in body and match.calls == []


async def test_the_real_server_sends_the_security_headers_and_gzip(server: Any):
    port, _ = server
    head, body = await exchange(
        port,
        "GET /api/game-data HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n"
        "Connection: close\r\n",
    )
    assert head.startswith("http/1.1 200") and "content-encoding: gzip" in head
    assert "x-content-type-options: nosniff" in head and "referrer-policy: no-referrer" in head
    assert "content-security-policy: default-src 'self'" in head and body[:2] == b"\x1f\x8b"


async def test_no_log_line_holds_a_secret_sent_in_a_url(
    server: Any, caplog: pytest.LogCaptureFixture
):
    port, _ = server
    caplog.set_level(logging.DEBUG)
    for query in ODD_QUERIES:
        for method in ("GET", "POST"):
            await exchange(
                port,
                f"{method} /api/matches/m-1/view?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"{TOKEN_HEADER}: {SECRET}\r\nContent-Length: 0\r\nConnection: close\r\n",
            )
    await exchange(
        port, f"GET /api/matches?{SECRET} HTTP/1.1\r\nHost: evil\r\nConnection: close\r\n"
    )
    access = [r for r in caplog.records if r.name == "frontier.web.access"]
    assert len(access) == 2 * len(ODD_QUERIES) + 1
    assert any("/view?status=***" in r.getMessage() for r in access)
    leaked = [r.getMessage() for r in caplog.records if SECRET in r.getMessage()]
    assert leaked == []
    assert not [r for r in caplog.records if r.exc_text and SECRET in r.exc_text]
