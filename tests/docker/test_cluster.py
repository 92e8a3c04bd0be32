"""The compose stack on a three-node JetStream cluster (deploy/docker-compose.cluster.yml):
SIGKILL the node that leads the event stream while several matches are being played.  No
acknowledged command is lost, every match finishes, the matches go on while the node is
down, and the node catches up once it is back."""

from __future__ import annotations

import functools
import json
import threading
import time
import urllib.request
import uuid
from typing import Any

import grpc
import pytest

from frontier.runtime.bus import Bus
from frontier.v1 import match_pb2_grpc
from tests.integration.bot_helpers import wait_for
from tests.integration.client import Match
from tests.integration.stream_check import check_stream, stored_batches

from .support import MIRROR, ComposeStack
from .test_compose import _retry

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]

NODES = ("nats", "nats-2", "nats-3")  # compose service name = server_name of the node


async def _stream_cluster(nats_url: str) -> tuple[int, str, list[Any]]:
    bus = await Bus.connect(nats_url)
    try:
        info = await bus.js.stream_info(bus.stream)
        cluster = info.cluster
        assert cluster is not None
        leases = await (await bus.leases_bucket()).status()
        assert leases.stream_info.config.num_replicas == 3
        return int(info.config.num_replicas or 0), str(cluster.leader), list(cluster.replicas or [])
    finally:
        await bus.close()


def _last_seq_on(stack: ComposeStack, node: str) -> int:
    """The event stream's last sequence in the node's own store (its monitoring endpoint)."""
    url = f"{stack.monitoring(node)}/jsz?streams=true"
    with urllib.request.urlopen(url, timeout=5) as reply:
        jsz = json.load(reply)
    for account in jsz.get("account_details", []):
        for stream in account.get("stream_detail", []):
            if stream["name"] == "FRONTIER_EVENTS":
                return int(stream["state"]["last_seq"])
    return 0


class Player(threading.Thread):
    """Plays one match to its end through one orchestrator, retrying a failed call with the
    same command id; ``acked`` holds the id of every command the server acknowledged."""

    def __init__(self, address: str, seed: int) -> None:
        super().__init__(daemon=True)
        self.address = address
        self.seed = seed
        self.acked: list[str] = []
        self.match: Match | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with grpc.insecure_channel(self.address) as channel:
                stub = match_pb2_grpc.MatchServiceStub(channel)
                match = _retry(lambda: Match.create(stub, self.seed, MIRROR))
                self.match = match
                n = 0
                while match.to_act is not None:
                    options = _retry(match.legal)
                    command_id = uuid.uuid4().hex
                    pick = options[n % len(options)].id
                    _retry(functools.partial(match.submit, pick, command_id))
                    self.acked.append(command_id)
                    n += 1
        except BaseException as exc:
            self.error = exc


def _wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.5)


async def test_a_killed_nats_node_loses_no_acknowledged_command(
    cluster_stack: ComposeStack,
) -> None:
    stack = cluster_stack
    replicas, leader, _ = await _stream_cluster(stack.nats_url)
    assert replicas == 3
    assert leader in NODES
    orchestrators = ("orchestrator-1", "orchestrator-2")
    players = [Player(stack.address(orchestrators[i % 2]), 61 + i) for i in range(4)]
    for player in players:
        player.start()
    try:
        _wait_for(
            lambda: all(len(p.acked) >= 20 or p.error for p in players), 240, "matches started"
        )
        assert not [p.error for p in players if p.error]
        # the node that leads the event stream now: its loss forces an election
        _, victim, _ = await _stream_cluster(stack.nats_url)
        stack.run("kill", "-s", "SIGKILL", victim)
        at_kill = sum(len(p.acked) for p in players)
        _wait_for(
            lambda: (
                sum(len(p.acked) for p in players) >= at_kill + 40
                or not any(p.is_alive() for p in players)
            ),
            180,
            "no progress on two nodes",
        )
        moved = sum(len(p.acked) for p in players) - at_kill
        stack.run("start", victim)
        for player in players:
            player.join(600)
    finally:
        stack.run("start", *NODES)  # a no-op for running nodes
    assert not [p for p in players if p.is_alive()], "a match did not finish"
    assert not [p.error for p in players if p.error]
    assert moved > 0, "the matches stood still while a node was down"
    for player in players:
        match = player.match
        assert match is not None and match.to_act is None
        # every event exactly once, in order, equal to the in-process engine's, to the end
        assert (
            await check_stream(stack.nats_url, match.match_id, player.seed, MIRROR) == match.version
        )
        stored = await _command_ids(stack.nats_url, match.match_id)
        assert sorted(stored) == sorted(set(stored)), "a command committed twice"
        assert set(player.acked) <= set(stored), "an acknowledged command was lost"
    stack.wait_healthy(victim)

    async def caught_up() -> bool:
        _, _, peers = await _stream_cluster(stack.nats_url)
        current = {p.name: bool(p.current) and not p.lag for p in peers}
        seqs = {node: _last_seq_on(stack, node) for node in NODES}
        return all(current.values()) and len(current) == 2 and len(set(seqs.values())) == 1

    await wait_for(caught_up, 120, 0.5, f"{victim} did not catch up with the stream")


async def _command_ids(nats_url: str, match_id: str) -> list[str]:
    return [batch.command_id for batch in await stored_batches(nats_url, match_id)]
