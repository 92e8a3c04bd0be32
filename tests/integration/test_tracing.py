"""One command is one trace: orchestrator -> domain services -> NATS publish.

The services run in this process (on loopback ports, against a real nats-server) so one
in-memory exporter sees every span.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import grpc
import pytest
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from frontier.domain.all_services import SERVICES
from frontier.domain.main import run as run_domain
from frontier.engine.domains import Domain
from frontier.ops.stack import StackConfig, _wait_port, nats_server_binary
from frontier.orchestrator.main import run as run_orchestrator
from frontier.runtime.settings import OrchestratorSettings, ServiceSettings
from frontier.runtime.telemetry import setup_tracing
from frontier.v1 import match_pb2, match_pb2_grpc
from frontier.wire.domain_rpc import STREAMED_ATTRIBUTE

pytestmark = pytest.mark.integration


async def _scenario(cfg: StackConfig) -> None:
    stops: list[asyncio.Event] = []
    tasks: list[asyncio.Task[None]] = []
    common: dict[str, object] = {
        "host": cfg.host,
        "nats_url": cfg.nats_url,
        "catch_up_wait_s": 0.05,
        "metrics_port": 0,  # in one process: no /metrics servers (they would share a registry)
    }
    for domain in Domain:
        ready, stop = asyncio.Event(), asyncio.Event()
        settings = ServiceSettings.model_validate({"port": cfg.ports[domain.value], **common})
        tasks.append(asyncio.create_task(run_domain(SERVICES[domain], settings, ready, stop)))
        stops.append(stop)
        await asyncio.wait_for(ready.wait(), 20)
    ready, stop = asyncio.Event(), asyncio.Event()
    settings = OrchestratorSettings.model_validate(
        {
            "port": cfg.ports["orchestrator"],
            "access": "local",  # anyone may host, as on a local stack
            **{f"{d.value}_url": cfg.address(d.value) for d in Domain},
            **common,
        }
    )
    tasks.append(asyncio.create_task(run_orchestrator(settings, ready, stop)))
    stops.append(stop)
    await asyncio.wait_for(ready.wait(), 20)
    try:
        async with grpc.aio.insecure_channel(cfg.address("orchestrator")) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            created = await stub.CreateMatch(
                match_pb2.CreateMatchRequest(
                    config=match_pb2.MatchConfig(seed=3, lineup="A=marquise;B=marquise")
                )
            )
            token = next(s.token for s in created.seats if s.seat == 1)
            legal = await stub.ListLegalCommands(
                match_pb2.ListLegalCommandsRequest(match_id=created.match_id, seat_token=token)
            )
            EXPORTER.clear()
            await stub.SubmitCommand(
                match_pb2.SubmitCommandRequest(
                    match_id=created.match_id, seat_token=token, legal_id=legal.commands[0].id
                )
            )
    finally:
        for stop in stops:
            stop.set()
        await asyncio.gather(*tasks)


EXPORTER = InMemorySpanExporter()


async def test_one_command_is_one_trace_across_services(tmp_path: Path) -> None:
    setup_tracing("test", ServiceSettings(), SimpleSpanProcessor(EXPORTER))
    cfg = StackConfig.ephemeral(tmp_path)
    store = tmp_path / "js"
    nats = subprocess.Popen(
        [nats_server_binary(), "-js", "-sd", str(store), "-a", cfg.host, "-p", str(cfg.nats_port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(cfg.host, cfg.nats_port, 20, nats, "nats-server")
        await _scenario(cfg)
    finally:
        nats.terminate()
        nats.wait(10)
    spans = EXPORTER.get_finished_spans()
    submit = [s for s in spans if s.name.endswith("MatchService/SubmitCommand")]
    assert len(submit) == 1, [s.name for s in spans]
    root = submit[0]
    in_trace = [s for s in spans if s.context.trace_id == root.context.trace_id]
    names = {s.name for s in in_trace}
    # the owning domain (map, for a setup placement) and turn-order, client and server side;
    # scoring is only consulted at the round limit, which a setup command never reaches
    assert "/frontier.v1.ScoringService/EvaluateMatch" not in names
    for rpc in (
        "/frontier.v1.MapService/DecideMapCommand",
        "/frontier.v1.TurnOrderService/AdvanceTurn",
    ):
        assert sum(1 for s in in_trace if s.name == rpc) == 2, (rpc, sorted(names))
        # as DomainCallService messages (how the orchestrator calls a domain), the
        # context carried in the message, not the call's metadata
        for s in in_trace:
            if s.name == rpc:
                assert s.attributes is not None and s.attributes[STREAMED_ATTRIBUTE], s.name
    publish = [s for s in in_trace if s.name == "nats.publish events"]
    assert len(publish) == 1
    by_id = {s.context.span_id: s for s in in_trace}
    for span in in_trace:
        if span is root:
            continue
        parent = span.parent
        assert parent is not None and parent.span_id in by_id, span.name
    assert publish[0].parent is not None and publish[0].parent.span_id == root.context.span_id
