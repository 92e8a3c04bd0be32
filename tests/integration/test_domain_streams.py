"""The orchestrator's domain calls over DomainCallService streams, against real services.

Two map replicas on loopback behind one round_robin target, each serving the stream with
the real dispatcher (frontier.domain.call_service): the orchestrator's DomainClients must
reach both with its streamed calls, as its channel does with unary ones
(test_domain_spreading.py), and a replica that goes away costs only the calls that were on
it.  Then the real five domain
services and the orchestrator (a Stack of processes, with a real nats-server) play matches
over streams; play_remote checks every event against the in-process engine, and the domain
services' metrics show the calls came over the stream, under their own methods' labels.
"""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from frontier.domain.call_service import DomainCallServicer, Method
from frontier.engine.domains import Domain
from frontier.ops.stack import Stack, StackConfig
from frontier.orchestrator.clients import DomainClients
from frontier.play.remote_match import play_remote
from frontier.runtime.settings import OrchestratorSettings
from frontier.v1 import domain_pb2, domain_pb2_grpc, map_pb2, types_pb2
from frontier.wire.domain_rpc import method_name

pytestmark = pytest.mark.integration

DECIDE = method_name(Domain.MAP, "DecideMapCommand")
EXCHANGE = "/frontier.v1.DomainCallService/Exchange"


async def _replica(name: str, calls: list[str]) -> tuple[grpc.aio.Server, int]:
    async def decide(request: map_pb2.DecideMapCommandRequest) -> Any:
        calls.append(request.context.match_id)
        return map_pb2.DecideMapCommandResponse(result=domain_pb2.DomainEvents(replica=name))

    server = grpc.aio.server()
    servicer = DomainCallServicer({DECIDE: Method(map_pb2.DecideMapCommandRequest, decide)})
    domain_pb2_grpc.add_DomainCallServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


async def test_streamed_calls_reach_every_map_replica_and_survive_one_going_away() -> None:
    async def run() -> tuple[set[str], list[str]]:
        calls: dict[str, list[str]] = {"a": [], "b": []}
        servers = [await _replica(name, calls[name]) for name in ("a", "b")]
        target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for _, port in servers)
        clients = DomainClients(OrchestratorSettings(map_url=target))
        ctx = domain_pb2.DomainContext(match_id="m")
        replicas: set[str] = set()
        after: list[str] = []
        try:
            # the slots' first streams live 1 s, 2 s...: within a few of them (bounded:
            # 15 s of calls) each replica holds a stream
            for _ in range(1500):
                answer = await clients.decide(Domain.MAP, ctx, types_pb2.Command())
                replicas.add(answer.replica)
                if len(replicas) == 2:
                    break
                await asyncio.sleep(0.01)
            # replica "a" dies: the calls on its stream fail UNAVAILABLE (retryable), the
            # others go on; retried as the commit path's callers do, every call is answered
            await servers[0][0].stop(None)
            for _ in range(20):
                for _attempt in range(50):
                    try:
                        answer = await clients.decide(Domain.MAP, ctx, types_pb2.Command())
                    except grpc.aio.AioRpcError as exc:
                        assert exc.code() is grpc.StatusCode.UNAVAILABLE
                        await asyncio.sleep(0.02)
                        continue
                    after.append(answer.replica)
                    break
        finally:
            await clients.close()
            for server, _ in servers:
                await server.stop(None)
        return replicas, after

    replicas, after = await run()
    assert replicas == {"a", "b"}
    assert after == ["b"] * 20


def _samples(stack: Stack, name: str, metric: str) -> list[Any]:
    port = stack.config.metrics_ports[name]
    url = f"http://{stack.config.host}:{port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    return [
        s
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == metric
    ]


def _ok_calls(stack: Stack) -> dict[str, float]:
    samples = _samples(stack, "map", "frontier_rpc_duration_seconds_count")
    return {s.labels["method"]: s.value for s in samples if s.labels["code"] == "OK"}


def test_a_stack_plays_over_streams_with_the_same_events_and_metrics(tmp_path: Path) -> None:
    config = StackConfig.ephemeral(tmp_path, sync="2m")
    # streams renewed every half second, so that some end (and are counted) during the match
    config.extra_env["FRONTIER_DOMAIN_STREAM_MAX_AGE_S"] = "0.5"
    with Stack(config) as stack:
        # played until some stream has reached its age and ended (counted by the service):
        # how many matches that takes depends on the machine (a match alone may take less
        # than the age on a quiet one), so it is an event awaited, not a time played
        for seed in range(5, 45):
            play_remote(stack.config.address("orchestrator"), seed, "A=marquise;B=marquise")
            if _ok_calls(stack).get(EXCHANGE, 0) > 0:
                break
        by_method = _ok_calls(stack)
    # the decides came as stream messages (a few Exchange streams, renewed as they aged),
    # and are counted under DecideMapCommand as unary calls would be
    exchange = by_method.get(EXCHANGE, 0)
    assert by_method[DECIDE] > 20
    assert 0 < exchange < by_method[DECIDE] / 4
