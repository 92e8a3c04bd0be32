"""Domain services that do not follow NATS get the batches they missed with each request,
even when a domain has several replicas behind one target.

Two map services on loopback share the orchestrator's map target (round_robin spreads the
calls over both), with a real nats-server; neither follows the event stream.  The
orchestrator learns from each reply which replica answered at which version and sends the
next request every batch since the older of the two: so each replica, called for about
every other map command, applies what it missed from the request.  Without that (the last
batch only), a replica that missed a command would read the stream on nearly
every call.  The matches' events must equal the in-process engine's.
"""

from __future__ import annotations

import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from frontier.ops.stack import Stack, StackConfig, free_port
from frontier.play.remote_match import play_remote

pytestmark = pytest.mark.integration

MIRROR = "A=marquise;B=marquise"
# a generous bound on the matches played: play stops as soon as both replicas have had
# their share (usually within the first few matches)
SEEDS = tuple(range(41, 65))
MAPS = ("map", "map-2")
DECIDE = "/frontier.v1.MapService/DecideMapCommand"


def decide_calls(stack: Stack, name: str) -> float:
    return counter(stack, name, "frontier_rpc_duration_seconds_count", method=DECIDE)


def play_until_both_replicas_are_called(stack: Stack) -> list[int]:
    """Play matches of SEEDS, each checked event for event against the in-process engine
    (play_remote), until each replica has answered more than two map decisions a match
    played; their seeds.

    The orchestrator's first streams to a service live 1 s, 2 s, 4 s... (call_streams.py),
    and the first ones may all have been opened to one replica: how many matches that takes
    depends on the machine, so play goes on until the calls have spread (an event), not for
    a fixed time."""
    address = stack.config.address("orchestrator")
    played: list[int] = []
    for seed in SEEDS:
        play_remote(address, seed, MIRROR)
        played.append(seed)
        if len(played) >= 2 and all(decide_calls(stack, n) > 2 * len(played) for n in MAPS):
            break
    return played


@pytest.fixture
def two_maps(tmp_path: Path) -> Iterator[Stack]:
    config = StackConfig.ephemeral(tmp_path, sync="2m")
    config.ports["map-2"] = free_port()
    config.metrics_ports["map-2"] = free_port()
    both = ",".join(config.address(name) for name in MAPS)
    config.extra_env["FRONTIER_MAP_URL"] = f"ipv4:{both}"
    with Stack(config) as stack:
        env = stack.service_env("map")
        env["FRONTIER_PORT"] = str(config.ports["map-2"])
        env["FRONTIER_METRICS_PORT"] = str(config.metrics_ports["map-2"])
        stack._spawn("map-2", [sys.executable, "-m", "services.map"], env)
        stack.wait_serving("map-2")
        yield stack


def counter(stack: Stack, name: str, metric: str, **labels: str) -> float:
    port = stack.config.metrics_ports[name]
    url = f"http://{stack.config.host}:{port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    wanted = set(labels.items())
    return sum(
        s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == metric and wanted <= set(s.labels.items())
    )


def test_each_map_replica_gets_the_batches_it_missed(two_maps: Stack) -> None:
    played = play_until_both_replicas_are_called(two_maps)
    for name in MAPS:
        calls = decide_calls(two_maps, name)
        catch_ups = counter(two_maps, name, "frontier_projection_catch_ups_total")
        # a replica called a few times after the other took commands in between has had to
        # apply the batches it missed: from the request, or else by a catch-up (counted below)
        assert calls > 2 * len(played), f"{name} was hardly called ({calls:g}) in {played}"
        # at most the first call of each match (before the orchestrator knew the replica)
        # reads the stream; every later one applies the batches the request brings
        assert catch_ups <= len(played), f"{name} read the stream {catch_ups:g} times"
