"""What nats-server handled during a phase, read from its monitoring endpoint.

Why counts: nats-server's CPU per command (~0.7-0.9 ms paced) is the sum of what every
client makes it do -- the fsynced JetStream publish and its acknowledgement, core NATS
notices, the followers' pull requests and their deliveries, KV writes -- and exact counts
per command say which of those a change removed, where CPU figures on a shared machine move
by ±10% on their own.  ``/varz`` gives the server's totals (messages and bytes in and out,
JetStream API requests), ``/connz`` the same per client connection, named after its service
(``frontier-orchestrator``, ``frontier-scoring``...; an unnamed one is the benchmark's own),
and ``/jsz`` each stream's last sequence: the messages stored in it (a KV bucket's stream is
``KV_<bucket>``), every one an fsync of its own under ``sync_interval: always``.

The stack benchmark starts nats-server with its monitoring port (``StackConfig.monitor_port``)
and samples both before and after the play phase.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

COUNTERS = ("in_msgs", "out_msgs", "in_bytes", "out_bytes")
UNNAMED = "unnamed"  # a connection that gave no name (the benchmark's probes)


def _get(base_url: str, path: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base_url}{path}", timeout=5) as reply:
        data: dict[str, Any] = json.load(reply)
    return data


@dataclass(frozen=True, slots=True)
class Traffic:
    """nats-server's counters at one moment: the totals, and per connection name (summed
    over the connections of that name)."""

    totals: dict[str, int]
    by_connection: dict[str, dict[str, int]]
    # per stream (a KV bucket is the stream KV_<bucket>): its last sequence, so the
    # difference is the messages stored meanwhile -- each an fsynced write with
    # ``sync_interval: always``
    stream_writes: dict[str, int]

    @classmethod
    def take(cls, base_url: str) -> Traffic:
        """Sample the server whose monitoring endpoint is ``base_url`` (http://host:port)."""
        varz = _get(base_url, "/varz")
        totals = {name: int(varz.get(name, 0)) for name in COUNTERS}
        api = varz.get("jetstream", {}).get("stats", {}).get("api", {})
        totals["js_api_requests"] = int(api.get("total", 0))
        totals["subscriptions"] = int(varz.get("subscriptions", 0))
        connz = _get(base_url, "/connz?limit=100000")
        by_connection: dict[str, dict[str, int]] = {}
        for conn in connz.get("connections", []):
            counts = by_connection.setdefault(
                conn.get("name") or UNNAMED, dict.fromkeys(COUNTERS, 0)
            )
            for name in COUNTERS:
                counts[name] += int(conn.get(name, 0))
        jsz = _get(base_url, "/jsz?accounts=true&streams=true")
        writes: dict[str, int] = {}
        for account in jsz.get("account_details", []):
            for stream in account.get("stream_detail", []):
                writes[stream["name"]] = int(stream.get("state", {}).get("last_seq", 0))
        return cls(totals, by_connection, writes)

    def per_unit_since(self, before: Traffic, units: int) -> dict[str, Any]:
        """What happened between ``before`` and this sample, divided by ``units`` (the
        phase's commands): the totals, ``subscriptions`` as a plain count at the end, and
        the counters of each connection name (a connection gone meanwhile is left out)."""
        scale = 1 / max(units, 1)
        out: dict[str, Any] = {
            name: round((value - before.totals.get(name, 0)) * scale, 3)
            for name, value in self.totals.items()
            if name != "subscriptions"
        }
        out["subscriptions"] = self.totals.get("subscriptions", 0)
        out["stream_writes"] = {
            stream: round((seq - before.stream_writes.get(stream, 0)) * scale, 4)
            for stream, seq in sorted(self.stream_writes.items())
        }
        out["by_connection"] = {
            conn: _diff(counts, before.by_connection.get(conn, {}), scale)
            for conn, counts in sorted(self.by_connection.items())
        }
        return out


def _diff(after: Mapping[str, int], before: Mapping[str, int], scale: float) -> dict[str, float]:
    return {name: round((after[name] - before.get(name, 0)) * scale, 3) for name in after}
