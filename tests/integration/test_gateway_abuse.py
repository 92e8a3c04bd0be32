"""What anyone could do to the web gateway, against the real stack: a body with no end, a
cross-origin POST, and a seat token under a spelling the API does not read.  Each is refused
before it costs anything or reaches a log (the mechanisms are unit-tested in
``tests/web/test_protection.py``; here the real uvicorn, gateway and orchestrator run)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from frontier.ops.stack import Stack, StackConfig, free_port

from .stack_logs import stack_logs, wait_logged

pytestmark = pytest.mark.integration

LIMIT = 64 * 1024  # the gateway's body limit in this stack
CHUNK = 16 * 1024


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    config = StackConfig.ephemeral(
        tmp_path_factory.mktemp("gateway"),
        web_port=free_port(),
        web_env={"FRONTIER_WEB_MAX_BODY_BYTES": str(LIMIT)},
        log_level="INFO",  # every request's access line is written
    )
    with Stack(config) as running:
        yield running


def _base(stack: Stack) -> str:
    return f"http://{stack.config.host}:{stack.config.web_port}"


def _call(
    stack: Stack, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(
        _base(stack) + path, data=body, headers=headers or {}, method="POST" if body else "GET"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def _match_count(stack: Stack) -> int:
    status, body = _call(stack, "/api/matches")
    assert status == 200
    matches = body["matches"]
    assert isinstance(matches, list)
    return len(matches)


async def test_a_body_that_never_ends_is_refused_once_past_the_limit(gateway: Stack) -> None:
    """A chunked body declares no length: the gateway counts it as it arrives and answers 413
    once past the limit, while the client is still sending (it never sent an end)."""
    host, port = gateway.config.host, gateway.config.web_port
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"POST /api/matches HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Content-Type: application/json\r\nX-Frontier-Client: test\r\n"
        "Transfer-Encoding: chunked\r\n\r\n".encode()
    )
    sent = 0
    while sent <= LIMIT + CHUNK:  # past the limit, and then no end at all
        writer.write(f"{CHUNK:x}\r\n".encode() + b" " * CHUNK + b"\r\n")
        sent += CHUNK
        await writer.drain()
    status = await asyncio.wait_for(reader.readline(), timeout=30)
    writer.close()
    assert status.split()[1] == b"413", status


def test_a_cross_origin_post_creates_nothing(gateway: Stack) -> None:
    before = _match_count(gateway)
    body = json.dumps({"config": {"max_rounds": 1}}).encode()
    status, refused = _call(
        gateway,
        "/api/matches",
        body,
        {"Content-Type": "application/json", "Origin": "http://elsewhere.example"},
    )
    assert (status, refused["error"]) == (403, "cross_origin")
    # a form a page of any site could post (no Origin from an old browser, a text body)
    status, refused = _call(gateway, "/api/matches", body, {"Content-Type": "text/plain"})
    assert (status, refused["error"]) == (403, "csrf_header_required")
    assert _match_count(gateway) == before


@pytest.mark.parametrize(
    "query", ["%73eat_token={}", "seat%5Ftoken={}", "x={}", "match={}&%54OKEN={}"]
)
def test_no_spelling_of_a_token_in_a_url_reaches_a_log(gateway: Stack, query: str) -> None:
    secret = "s3cr3t" + "7" * 20 + str(abs(hash(query)))
    urllib_query = query.replace("{}", secret)
    path = "/api/matches/unknown-match/view"
    before = stack_logs(gateway).count(path)
    status, _ = _call(gateway, f"{path}?{urllib_query}")
    assert status in (400, 404)
    logged = wait_logged(gateway, path, before)  # the request was logged, ...
    assert secret not in logged  # ... without the secret
