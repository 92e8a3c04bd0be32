"""CPU per orchestrator -> domain call: a unary RPC against a DomainCallService message.

Why a benchmark of its own: ``frontier bench stack`` gives each process's CPU per command,
in which the domain hop is one part among many.  Here the orchestrator's real client
(``DomainClients.decide``, DomainCallService messages) or a plain unary stub calls a map
service in another process whose servers are the real ones (``MapServicer`` and
``DomainCallServicer`` over the same handler table), with
a handler that does no engine work (answering synchronously, as a service whose projection
is at hand does) and answers ``reply_bytes`` of payload, so what is
measured is the per-call machinery on both sides: gRPC, asyncio, the multiplexer.  Both
processes run uvloop, as the services do.  CPU is read from ``/proc/<pid>/stat`` (server)
and ``time.process_time`` (client), over ``calls`` calls with ``in_flight`` at a time; the
wall-clock time per call times ``in_flight`` is the round trip a caller waits, and the
server's voluntary context switches per call (all its threads) count its wake-ups.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from typing import Any

import grpc
import uvloop

from frontier.bench.baseline import Baseline
from frontier.domain.call_service import DomainCallServicer, Method
from frontier.domain.map_service import MapServicer
from frontier.domain.service import Rpcs, by_method_name
from frontier.engine.domains import Domain
from frontier.ops.stack import free_port
from frontier.orchestrator.clients import DomainClients
from frontier.runtime.settings import OrchestratorSettings
from frontier.v1 import domain_pb2, domain_pb2_grpc, map_pb2, map_pb2_grpc, types_pb2

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _table(reply_bytes: int) -> Rpcs:
    reply = map_pb2.DecideMapCommandResponse(
        result=domain_pb2.DomainEvents(replica="r" * reply_bytes)
    )

    async def decide(request: map_pb2.DecideMapCommandRequest) -> Any:
        return reply

    def decide_now(request: map_pb2.DecideMapCommandRequest) -> Any:
        return reply  # as a real service answers a call whose projection is at hand

    return {"DecideMapCommand": Method(map_pb2.DecideMapCommandRequest, decide, decide_now)}


async def _serve(port: int, reply_bytes: int) -> None:
    table = _table(reply_bytes)
    server = grpc.aio.server()
    map_pb2_grpc.add_MapServiceServicer_to_server(MapServicer(table), server)
    calls = DomainCallServicer(by_method_name(Domain.MAP, table))
    domain_pb2_grpc.add_DomainCallServiceServicer_to_server(calls, server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print("ready", flush=True)
    await server.wait_for_termination()


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def switches(pid: int) -> int:
    """Voluntary context switches of every thread of process ``pid`` so far: each is a
    thread going to sleep, so what it woke up for (the loop, gRPC's pollers) is counted."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/status") as status:
            for line in status:
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
    return total


async def _client(port: int, pid: int, streams: bool, calls: int, in_flight: int) -> dict[str, Any]:
    settings = OrchestratorSettings(map_url=f"127.0.0.1:{port}")
    clients = DomainClients(settings)
    channel = grpc.aio.insecure_channel(settings.map_url)  # the unary calls'
    unary = map_pb2_grpc.MapServiceStub(channel).DecideMapCommand
    context = domain_pb2.DomainContext(match_id="bench", pending_events=[])
    command = types_pb2.Command()
    request = map_pb2.DecideMapCommandRequest(context=context, command=command)

    async def call() -> None:
        if streams:
            await clients.decide(Domain.MAP, context, command)
        else:
            await unary(request, timeout=settings.call_timeout_s)

    try:
        for _ in range(200):  # warm: connections, streams, caches
            await call()
        per_worker = calls // in_flight

        async def worker() -> None:
            for _ in range(per_worker):
                await call()

        server_before, client_before = cpu_s(pid), time.process_time()
        switches_before = switches(pid)
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(in_flight)))
        wall_s = time.perf_counter() - started
        server_s, client_s = cpu_s(pid) - server_before, time.process_time() - client_before
        server_switches = switches(pid) - switches_before
    finally:
        await clients.close()
        await channel.close()
    done = per_worker * in_flight
    return {
        "mode": "stream" if streams else "unary",
        "calls": done,
        "in_flight": in_flight,
        "server_us_per_call": round(server_s / done * 1e6, 1),
        "client_us_per_call": round(client_s / done * 1e6, 1),
        "server_switches_per_call": round(server_switches / done, 2),
        # with one call in flight, the round trip: how soon an answer comes back
        "wall_us_per_call": round(wall_s / done * 1e6 * in_flight, 1),
    }


def measure(
    calls: int = 4000, in_flight: int = 20, reply_bytes: int = 1500
) -> list[dict[str, Any]]:
    """Unary and stream, alternately, twice each, against one server process; each
    microsecond figure also in operations of the baseline workload timed between them."""
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "frontier.bench.domain_calls",
            "--serve",
            str(port),
            str(reply_bytes),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError("the benchmark's map server did not start")
        baseline = Baseline()
        results = []
        for streams in (False, True, False, True):
            baseline.tick()
            with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                results.append(runner.run(_client(port, server.pid, streams, calls, in_flight)))
        baseline.tick()
        return [{**r, **baseline.ratios(r), **baseline.as_json()} for r in results]
    finally:
        server.kill()
        server.wait(10)


def main(argv: list[str]) -> None:
    """``--serve PORT REPLY_BYTES``: the benchmark's map server (run by :func:`measure`)."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(_serve(int(argv[1]), int(argv[2])))


if __name__ == "__main__":
    main(sys.argv[1:])
