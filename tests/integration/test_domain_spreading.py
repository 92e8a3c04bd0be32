"""The orchestrator's domain clients spread their calls over every replica a domain's target
names (round_robin), rather than staying on the first one (gRPC's default, pick_first).

Two MapService replicas on loopback count the calls they get; calls on the channel the
orchestrator's DomainClients open for a target that lists both must reach each of them.  A
target naming one DNS name that resolves to several addresses (compose ``--scale``, a
Kubernetes headless Service) goes through the same load-balancing policy.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from frontier.engine.domains import Domain
from frontier.ops.stack import free_port
from frontier.orchestrator.clients import DomainClients
from frontier.runtime.server import serve
from frontier.runtime.settings import OrchestratorSettings, ServiceSettings
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


async def test_calls_reach_every_map_replica() -> None:
    async def run() -> tuple[list[int], list[int]]:
        replicas = [CountingMap(), CountingMap()]
        servers = [await _replica(r) for r in replicas]
        target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for _, port in servers)
        clients = DomainClients(OrchestratorSettings(map_url=target))
        # unary calls on the clients' own channel: each picks a replica, as each stream does
        stub = map_pb2_grpc.MapServiceStub(clients.streams[Domain.MAP].channel)
        request = map_pb2.ListMapCommandsRequest()
        try:
            # round_robin connects to every address at once and picks among the READY ones:
            # within a few calls both are READY (bounded: 200 calls at most)
            for _ in range(200):
                await stub.ListMapCommands(request, timeout=5)
                if all(r.calls for r in replicas):
                    break
            warm = [r.calls for r in replicas]
            for _ in range(20):
                await stub.ListMapCommands(request, timeout=5)
        finally:
            await clients.close()
            for server, _ in servers:
                await server.stop(None)
        return warm, [r.calls - w for r, w in zip(replicas, warm, strict=True)]

    warm, spread = await run()
    assert all(warm), f"a replica got no call: {warm}"
    assert spread == [10, 10]  # with both ready, strictly one after the other


async def test_servers_close_old_connections_so_that_clients_resolve_again() -> None:
    """FRONTIER_MAX_CONNECTION_AGE_S: the server closes an idle client connection after that
    long; the channel goes back to IDLE (where gRPC resolves the name again on the next call,
    and a scaled-up domain's new replicas join the round), and the next call reconnects."""
    settings = ServiceSettings(
        host="127.0.0.1", port=free_port(), metrics_port=0, max_connection_age_s=0.5
    )

    async def run() -> list[grpc.ChannelConnectivity]:
        ready, stop = asyncio.Event(), asyncio.Event()
        server = asyncio.ensure_future(
            serve("map", settings, lambda s: None, [], ready=ready, stop=stop)
        )
        await ready.wait()
        seen = []
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{settings.port}") as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)  # type: ignore[attr-defined]
                seen.append(channel.get_state())
                # bounded: the age is half a second; give up after 20 changes or 10 s
                for _ in range(20):
                    state = channel.get_state()
                    if state is not grpc.ChannelConnectivity.READY:
                        break
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(channel.wait_for_state_change(state), 10)
                seen.append(channel.get_state())
                await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)  # type: ignore[attr-defined]
                seen.append(channel.get_state())
        finally:
            stop.set()
            await server
        return seen

    first, after_age, again = await run()
    assert first is grpc.ChannelConnectivity.READY
    assert after_age is not grpc.ChannelConnectivity.READY
    assert again is grpc.ChannelConnectivity.READY
