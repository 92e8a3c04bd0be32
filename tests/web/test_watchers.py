"""Live event-stream watchers: capped per match and per address with a JSON refusal and a
Retry-After, and a watcher that leaves gives back its slot and its orchestrator stream at
once, even when no further event comes to notice the broken connection."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

import pytest
from starlette.applications import Starlette

from frontier.web.app import create_app
from frontier.web.inputs import HttpError
from frontier.web.protect import Protection
from frontier.web.watchers import Watchers
from tests.web.fakes import FakeHealth, FakeMatch


def test_watchers_are_counted_per_match_and_per_address_and_released_once():
    watchers = Watchers(per_match=2, per_address=2)
    first = watchers.admit("m-1", "10.0.0.1")
    watchers.admit("m-1", "10.0.0.2")
    with pytest.raises(HttpError) as full:
        watchers.admit("m-1", "10.0.0.3")
    assert full.value.status == 503 and full.value.error == "match_watchers_full"
    assert full.value.headers["Retry-After"].isdigit()
    watchers.admit("m-2", "10.0.0.1")
    with pytest.raises(HttpError) as busy:
        watchers.admit("m-3", "10.0.0.1")
    assert busy.value.status == 429 and busy.value.error == "too_many_streams"
    assert busy.value.headers["Retry-After"].isdigit()
    first()
    first()  # a second release gives nothing back twice
    assert watchers.matches == {"m-1": 1, "m-2": 1} and watchers.addresses["10.0.0.1"] == 1
    watchers.admit("m-1", "10.0.0.3")
    assert watchers.live() == 3


class Client:
    """One ASGI request from 127.0.0.1, with its own hand on when it leaves."""

    def __init__(self, app: Starlette, path: str, query: bytes = b"") -> None:
        self.app, self.path, self.query = app, path, query
        self.sent: list[MutableMapping[str, Any]] = []
        self.leave = asyncio.Event()
        self.got_event = asyncio.Event()
        self.asked = False  # the request (no body) was handed over

    async def receive(self) -> dict[str, Any]:
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        self.sent.append(message)
        if b"id: 2" in message.get("body", b""):
            self.got_event.set()

    async def run(self) -> None:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": self.path,
            "raw_path": self.path.encode(),
            "root_path": "",
            "query_string": self.query,
            "headers": [(b"host", b"127.0.0.1:8080"), (b"accept-encoding", b"gzip")],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8080),
        }
        await self.app(scope, self.receive, self.send)

    def status(self) -> int:
        return int(self.sent[0]["status"])

    def header(self, name: bytes) -> bytes | None:
        return dict(self.sent[0]["headers"]).get(name)


@pytest.fixture
async def app() -> Any:
    match = FakeMatch()
    limits = Protection(sse_per_match=3, sse_per_address=2)
    application = create_app("unused:0", stubs=(match, FakeHealth()), protection=limits)
    async with application.router.lifespan_context(application):
        yield application, match


async def test_a_watcher_that_leaves_a_quiet_match_frees_its_slot_and_stream(app: Any):
    application, match = app
    client = Client(application, "/api/matches/m-1/events")
    running = asyncio.create_task(client.run())
    await client.got_event.wait()  # both events arrived, uncompressed; the match goes quiet
    assert client.status() == 200 and client.header(b"content-encoding") is None
    assert application.state.watchers.live() == 1
    client.leave.set()
    await running
    assert application.state.watchers.live() == 0
    assert application.state.watchers.addresses == {}
    assert match.streams[0].cancelled.is_set()


async def test_past_the_address_cap_a_watcher_gets_a_429_with_retry_after(app: Any):
    application, match = app
    clients = [Client(application, "/api/matches/m-1/events") for _ in range(3)]
    tasks = [asyncio.create_task(c.run()) for c in clients[:2]]
    await asyncio.gather(*(c.got_event.wait() for c in clients[:2]))
    await clients[2].run()
    assert clients[2].status() == 429 and clients[2].header(b"retry-after") == b"10"
    assert b"too_many_streams" in clients[2].sent[1]["body"]
    for client in clients[:2]:
        client.leave.set()
    await asyncio.gather(*tasks)
    # the two watchers of m-1 shared one orchestrator stream, closed when the last left
    assert application.state.watchers.live() == 0 and len(match.streams) == 1
    assert all(stream.cancelled.is_set() for stream in match.streams)


async def test_past_the_match_cap_a_watcher_gets_a_503_and_a_bad_match_keeps_no_slot(app: Any):
    application, match = app
    application.state.watchers.matches["m-1"] = 3  # three watchers from elsewhere
    full = Client(application, "/api/matches/m-1/events")
    await full.run()
    assert full.status() == 503 and full.header(b"retry-after") == b"30"
    assert b"match_watchers_full" in full.sent[1]["body"] and match.streams == []
    del application.state.watchers.matches["m-1"]
    missing = Client(application, "/api/matches/m-404/events")
    await missing.run()
    assert missing.status() == 404 and application.state.watchers.live() == 0
    assert application.state.watchers.addresses == {}


async def test_a_watcher_whose_match_ends_frees_its_slot(app: Any):
    application, match = app
    client = Client(application, "/api/matches/m-1/events")
    running = asyncio.create_task(client.run())
    await client.got_event.wait()
    match.streams[0].end("MATCH_STATUS_ABANDONED")  # the orchestrator ends the stream
    await running  # ... and the gateway ends the client's, though the client is still there
    body = b"".join(m.get("body", b"") for m in client.sent)
    assert body.endswith(b'event: end\ndata: {"status": "MATCH_STATUS_ABANDONED"}\n\n')
    assert application.state.watchers.live() == 0 and not client.leave.is_set()


async def test_a_watcher_that_leaves_before_the_first_event_frees_its_slot_and_stream(app: Any):
    """Headers go as soon as the orchestrator lets the stream in (a bad match id is a clean
    404 before them); a watcher that gives up before any event is noticed at once, not at
    the match's next event."""
    application, match = app
    client = Client(application, "/api/matches/m-quiet/events")
    running = asyncio.create_task(client.run())
    while not match.streams:  # the gateway has opened the orchestrator's stream
        await asyncio.sleep(0)
    assert application.state.watchers.live() == 1
    client.leave.set()
    await running
    assert application.state.watchers.live() == 0 and match.streams[0].cancelled.is_set()
    assert client.status() == 200
