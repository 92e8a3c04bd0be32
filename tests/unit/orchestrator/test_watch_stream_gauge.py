"""``frontier_watch_streams{kind}`` counts the open watch streams of the orchestrator's
watcher table by kind, every stream given back when it closes (how an operator, and the
gateway's integration test, see that a web gateway holds one spectator stream per match)."""

from __future__ import annotations

import contextlib

from prometheus_client import REGISTRY

from frontier.orchestrator.spectators import Watchers
from frontier.runtime.metrics import watch_streams

from .test_spectators import LiveMatch


def _gauge(kind: str) -> float | None:
    return REGISTRY.get_sample_value("frontier_watch_streams", {"kind": kind})


def test_open_streams_are_counted_by_kind_while_open() -> None:
    match, other = LiveMatch(), LiveMatch()
    other.hosted.match_id = "ef" * 16
    watchers = Watchers()
    unwatch = watch_streams(watchers)
    try:
        with contextlib.ExitStack() as held:
            for port in range(3):
                held.enter_context(watchers.admit(match.hosted, f"ipv4:10.0.0.1:{port}", True))
            held.enter_context(watchers.admit(other.hosted, "ipv4:10.0.0.2:1", True))
            held.enter_context(watchers.admit(match.hosted, "ipv4:10.0.0.3:1", False))
            assert watchers.streams() == {"spectator": 4, "seat": 1}
            assert (_gauge("spectator"), _gauge("seat")) == (4.0, 1.0)
            # two matches watched by spectators, the busier by three (a seat's watch is no
            # spectator)
            assert REGISTRY.get_sample_value("frontier_watched_matches") == 2.0
            assert REGISTRY.get_sample_value("frontier_spectators_busiest_match") == 3.0
        assert watchers.streams() == {"spectator": 0, "seat": 0}
        assert (_gauge("spectator"), _gauge("seat")) == (0.0, 0.0)
        assert REGISTRY.get_sample_value("frontier_watched_matches") == 0.0
        assert REGISTRY.get_sample_value("frontier_spectators_busiest_match") == 0.0
    finally:
        unwatch()
    assert _gauge("spectator") == 0.0  # no table left: the gauge stays, at zero
