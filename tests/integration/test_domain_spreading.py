"""The orchestrator's domain clients spread their calls over every replica a domain's target
names (round_robin), rather than staying on the first one (gRPC's default, pick_first).

Two MapService replicas on loopback count the calls they get; the orchestrator's
DomainClients, given a target that lists both, must reach each of them.  A target naming one
DNS name that resolves to several addresses (compose ``--scale``, a Kubernetes headless
Service) goes through the same load-balancing policy.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from frontier.orchestrator.clients import DomainClients
from frontier.runtime.settings import OrchestratorSettings
from frontier.v1 import map_pb2, map_pb2_grpc

pytestmark = pytest.mark.integration


class CountingMap(map_pb2_grpc.MapServiceServicer):
    def __init__(self) -> None:
        self.calls = 0

    async def ListMapCommands(
        self, request: map_pb2.ListMapCommandsRequest, context: Any
    ) -> map_pb2.ListMapCommandsResponse:
        self.calls += 1
        return map_pb2.ListMapCommandsResponse()

    async def DecideMapCommand(
        self, request: map_pb2.DecideMapCommandRequest, context: Any
    ) -> map_pb2.DecideMapCommandResponse:
        self.calls += 1
        return map_pb2.DecideMapCommandResponse()


async def _replica(servicer: CountingMap) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    map_pb2_grpc.add_MapServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


def test_calls_reach_every_map_replica() -> None:
    async def run() -> tuple[list[int], list[int]]:
        replicas = [CountingMap(), CountingMap()]
        servers = [await _replica(r) for r in replicas]
        target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for _, port in servers)
        clients = DomainClients(OrchestratorSettings(map_url=target))
        request = map_pb2.ListMapCommandsRequest()
        try:
            # round_robin connects to every address at once and picks among the READY ones:
            # within a few calls both are READY (bounded: 200 calls at most)
            for _ in range(200):
                await clients.map.ListMapCommands(request, timeout=5)
                if all(r.calls for r in replicas):
                    break
            warm = [r.calls for r in replicas]
            for _ in range(20):
                await clients.map.ListMapCommands(request, timeout=5)
        finally:
            await clients.close()
            for server, _ in servers:
                await server.stop(None)
        return warm, [r.calls - w for r, w in zip(replicas, warm, strict=True)]

    warm, spread = asyncio.run(run())
    assert all(warm), f"a replica got no call: {warm}"
    assert spread == [10, 10]  # with both ready, strictly one after the other
