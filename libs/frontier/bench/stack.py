"""``frontier bench stack``: concurrent bot matches through a real local stack.

Reports SubmitCommand latency (p50, p99), throughput, and — measured in the same run, since
machines are noisy — the *floor*: one bare gRPC unary call plus one JetStream publish-ack,
the least any accepted command must cost (see :mod:`frontier.bench.floor`: ``floor_p50_ms``
is taken in the same conditions as the commands, back to back or paced like them, and
``floor_hot_p50_ms`` always back to back).  ``ratio_p50`` = p50 / floor p50.  Memory per
match is the growth of the services' resident memory divided by the matches they hold.

The command line is in :mod:`frontier.cli.bench`.

``--think-ms`` gives every player a think time before each command.  Without it each match
submits as soon as the last reply arrives, so N matches keep N requests queued at all times
and the latency measured is mostly queueing (Little's law: p50 ~ N / throughput); with it,
the run measures the latency the stack gives N matches played at a human or bot pace, which
is how many matches one stack *holds*.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from frontier.bench.floor import hot_floor, paced_floor
from frontier.ops.stack import DOMAINS, Stack, StackConfig
from frontier.play.load import MatchRun, play_many


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
    floor_hot_p50_ms: float
    ratio_hot_p50: float
    retries: int
    memory_per_match_kb: float


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


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
        hot = asyncio.run(hot_floor(config))
        before = services_rss(stack)
        started = time.perf_counter()
        runs, paced = asyncio.run(
            _play(config, list(range(seed, seed + matches)), lineup, think_ms / 1000)
        )
        seconds = time.perf_counter() - started
        after = services_rss(stack)
    floor = statistics.median(paced) if paced else hot
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
        floor_hot_p50_ms=round(hot, 3),
        ratio_hot_p50=round(p50 / hot, 2),
        retries=sum(r.retries for r in runs),
        memory_per_match_kb=round(max(after - before, 0) / matches, 1),
    )


async def _play(
    config: StackConfig, seeds: list[int], lineup: str, think_s: float
) -> tuple[list[MatchRun], list[float]]:
    """The matches, and (when paced) the floors probed alongside them at the same pace."""
    targets = [config.address(n) for n in config.orchestrator_names]
    if think_s <= 0:
        return await play_many(targets, seeds, lineup), []
    done = asyncio.Event()
    probing = asyncio.ensure_future(paced_floor(config, think_s, done))
    try:
        runs = await play_many(targets, seeds, lineup, think_s=think_s)
    finally:
        done.set()
    return runs, await probing
