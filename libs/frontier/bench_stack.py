"""``frontier bench stack``: concurrent bot matches through a real local stack.

Reports SubmitCommand latency (p50, p99), throughput, and — measured in the same run, since
machines are noisy — the *floor*: one bare gRPC unary call plus one JetStream publish-ack,
the least any accepted command must cost.  ``ratio_p50`` = p50 / floor p50.  Memory per
match is the growth of the services' resident memory divided by the matches they hold.

``--think-ms`` gives every player a think time before each command.  Without it each match
submits as soon as the last reply arrives, so N matches keep N requests queued at all times
and the latency measured is mostly queueing (Little's law: p50 ~ N / throughput); with it,
the run measures the latency the stack gives N matches played at a human or bot pace, which
is how many matches one stack *holds*.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import grpc
import nats
from grpc_health.v1 import health_pb2, health_pb2_grpc
from nats.js.api import StorageType, StreamConfig

from frontier.load import play_many
from frontier.stack import DOMAINS, Stack, StackConfig

FLOOR_SAMPLES = 300


@dataclass
class StackBench:
    matches: int
    think_ms: float
    orchestrators: int
    lineup: str
    sync: str
    commands: int
    seconds: float
    commands_per_s: float
    p50_ms: float
    p99_ms: float
    floor_p50_ms: float
    ratio_p50: float
    retries: int
    memory_per_match_kb: float


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


async def measure_floor(config: StackConfig, samples: int = FLOOR_SAMPLES) -> float:
    """p50 of (one unary gRPC call + one JetStream publish acknowledged), in ms."""
    nc = await nats.connect(config.nats_url)
    js = nc.jetstream()
    await js.add_stream(
        StreamConfig(
            name="FRONTIER_BENCH_FLOOR", subjects=["frontier.bench.floor"], storage=StorageType.FILE
        )
    )
    timings: list[float] = []
    async with grpc.aio.insecure_channel(config.address("orchestrator")) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest(service="")
        payload = b"x" * 512
        for _ in range(samples):
            started = time.perf_counter()
            await health.Check(request, timeout=5)  # type: ignore[attr-defined]
            await js.publish("frontier.bench.floor", payload)
            timings.append((time.perf_counter() - started) * 1000)
    await js.delete_stream("FRONTIER_BENCH_FLOOR")
    await nc.close()
    return statistics.median(timings)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def services_rss(stack: Stack) -> int:
    names = (*stack.config.orchestrator_names, *DOMAINS)
    return sum(rss_kb(stack.procs[n].pid) for n in names)


def run(
    matches: int,
    lineup: str,
    sync: str,
    seed: int = 1000,
    orchestrators: int = 1,
    think_ms: float = 0.0,
) -> StackBench:
    workdir = Path(tempfile.mkdtemp(prefix="frontier-bench-"))
    config = StackConfig.ephemeral(workdir, orchestrators=orchestrators, sync=sync)
    with Stack(config) as stack:
        floor = asyncio.run(measure_floor(config))
        before = services_rss(stack)
        started = time.perf_counter()
        runs = asyncio.run(
            play_many(
                [config.address(n) for n in config.orchestrator_names],
                list(range(seed, seed + matches)),
                lineup,
                think_s=think_ms / 1000,
            )
        )
        seconds = time.perf_counter() - started
        after = services_rss(stack)
    latencies = [ms for r in runs for ms in r.latencies_ms]
    commands = sum(r.commands for r in runs)
    p50 = percentile(latencies, 0.5)
    return StackBench(
        matches=matches,
        think_ms=think_ms,
        orchestrators=orchestrators,
        lineup=lineup,
        sync=sync,
        commands=commands,
        seconds=round(seconds, 3),
        commands_per_s=round(commands / seconds, 1),
        p50_ms=round(p50, 3),
        p99_ms=round(percentile(latencies, 0.99), 3),
        floor_p50_ms=round(floor, 3),
        ratio_p50=round(p50 / floor, 2),
        retries=sum(r.retries for r in runs),
        memory_per_match_kb=round(max(after - before, 0) / matches, 1),
    )


def add_bench_stack(targets: Any) -> None:
    parser = targets.add_parser("stack", help="concurrent bot matches through a local stack")
    parser.add_argument("--matches", type=int, default=20, help="concurrent matches (20)")
    parser.add_argument("--lineup", default="A=marquise;B=marquise", help="lineup")
    parser.add_argument("--sync", default="always", help="JetStream sync_interval (always)")
    parser.add_argument(
        "--orchestrators", type=int, default=1, help="orchestrators sharing the matches (1)"
    )
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="mean time each player thinks before a command (0: submit at once, which "
        "saturates the stack; a real bot or person takes time to choose)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=_main)


def _main(args: argparse.Namespace) -> int:
    if args.think_ms < 0:
        raise SystemExit("--think-ms must be >= 0")
    result = run(
        args.matches,
        args.lineup,
        args.sync,
        orchestrators=args.orchestrators,
        think_ms=args.think_ms,
    )
    if args.json:
        print(json.dumps(asdict(result)))
    else:
        for key, value in asdict(result).items():
            print(f"{key:<20} {value}")
    return 0
