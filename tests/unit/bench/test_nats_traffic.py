"""nats-server's counters per command (frontier.bench.nats_traffic), from fixed samples."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

from frontier.bench.nats_traffic import UNNAMED, Traffic


@contextlib.contextmanager
def _monitor(pages: dict[str, Any]) -> Iterator[str]:
    """A stand-in for nats-server's monitoring endpoint serving ``pages`` by path."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps(pages[self.path.split("?")[0]]).encode()
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _pages(msgs: int, api: int, events: int, leases: int) -> dict[str, Any]:
    conn = {"in_msgs": msgs, "out_msgs": msgs // 2, "in_bytes": 10 * msgs, "out_bytes": msgs}
    return {
        "/varz": {
            "in_msgs": 2 * msgs,
            "out_msgs": msgs,
            "in_bytes": 20 * msgs,
            "out_bytes": 2 * msgs,
            "subscriptions": 7,
            "jetstream": {"stats": {"api": {"total": api}}},
        },
        "/connz": {
            "connections": [
                {"name": "frontier-orchestrator", **conn},
                {"name": "frontier-orchestrator", **conn},
                {"name": "", **conn},
            ]
        },
        "/jsz": {
            "account_details": [
                {
                    "stream_detail": [
                        {"name": "FRONTIER_EVENTS", "state": {"last_seq": events}},
                        {"name": "KV_frontier-leases", "state": {"last_seq": leases}},
                    ]
                }
            ]
        },
    }


@pytest.fixture
def samples() -> tuple[Traffic, Traffic]:
    with _monitor(_pages(100, 5, 40, 3)) as url:
        before = Traffic.take(url)
    with _monitor(_pages(500, 9, 240, 5)) as url:
        after = Traffic.take(url)
    return before, after


def test_counts_are_per_command_in_total_per_stream_and_per_connection_name(
    samples: tuple[Traffic, Traffic],
) -> None:
    before, after = samples
    per = after.per_unit_since(before, 200)
    assert per["in_msgs"] == 4.0 and per["out_msgs"] == 2.0 and per["in_bytes"] == 40.0
    assert per["js_api_requests"] == 0.02 and per["subscriptions"] == 7
    assert per["stream_writes"] == {"FRONTIER_EVENTS": 1.0, "KV_frontier-leases": 0.01}
    # two connections of one name add up; an unnamed one is the benchmark's own
    assert per["by_connection"]["frontier-orchestrator"]["in_msgs"] == 4.0
    assert per["by_connection"][UNNAMED]["in_msgs"] == 2.0


def test_no_commands_divides_by_one_rather_than_failing(samples: tuple[Traffic, Traffic]) -> None:
    before, after = samples
    assert after.per_unit_since(before, 0)["stream_writes"]["FRONTIER_EVENTS"] == 200.0
