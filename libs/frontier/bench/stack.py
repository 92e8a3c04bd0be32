"""``frontier bench stack``: concurrent bot matches through a real local stack.

Reports SubmitCommand latency (p50, p99), throughput, and — measured in the same run, since
machines are noisy — the *floor*: one bare gRPC unary call plus one JetStream publish-ack,
the least any accepted command must cost (see :mod:`frontier.bench.floor`: ``floor_p50_ms``
is taken in the same conditions as the commands, back to back or paced like them, and
``floor_hot_p50_ms`` always back to back).  ``ratio_p50`` = p50 / floor p50.  Memory per
match is the growth of the resident memory of every server process (nats-server included)
over the play phase, divided by the matches they hold then (``memory_of`` says whether those
are matches in play or finished ones: not the same figure), signed per process so that the
processes add up to the total.

CPU, which a shared machine disturbs far less than latency (:mod:`frontier.bench.cpu`): each
server process's CPU time over the play phase divided by the commands
(``server_cpu_ms_per_command_by_process`` and the total ``server_cpu_ms_per_command``); the
floor's CPU per command at the same pace (``floor_cpu_ms_per_command``, see
:func:`frontier.bench.floor.cpu_floor`); ``cpu_ratio`` = server / floor.  After the matches,
``idle_cpu_ms_per_match_s``: the extra CPU per second that one more hosted, unfinished match
nobody plays costs (fresh matches created for it, compared with a window without them).
``client_cpu_ms_per_command`` is the benchmark's own CPU (its players), and ``load_1m`` the
machine's load average at the end: the context for the latencies.

The command line is in :mod:`frontier.cli.bench`.

``--think-ms`` gives every player a think time before each command.  Without it each match
submits as soon as the last reply arrives, so N matches keep N requests queued at all times
and the latency measured is mostly queueing (Little's law: p50 ~ N / throughput); with it,
the run measures the latency the stack gives N matches played at a human or bot pace, which
is how many matches one stack *holds*.

``--commands-per-match K`` stops every match after K commands, unfinished: a paced match
lasts far longer than a benchmark can (some 80 commands, at 5 s each nearly 7 minutes), and
the capacity at a human pace is about matches *in play*; the memory per match is then that
of playing matches rather than finished ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvloop

from frontier.bench.cpu import Sample, per_unit
from frontier.bench.floor import FloorCpu, cpu_floor, hot_floor, paced_floor
from frontier.bench.nats_traffic import Traffic
from frontier.ops.stack import DOMAINS, Stack, StackConfig, free_port
from frontier.play.load import MatchRun, create_idle, play_many
from frontier.runtime import gc_policy

IDLE_WINDOW_S = 5.0  # each of the two windows of the idle measurement
IDLE_MATCHES = 200  # idle matches created for it (enough for a 10 ms CPU tick to be small)


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
    commands_per_match: int = 0  # 0: played to the end (memory of finished matches)
    client_loop: str = "uvloop"  # the play phase's event loop (CLIENT_LOOPS)
    # how late the players' loop ran a timer over the play phase (see loop_lag): p50, p99, max
    client_loop_lag_ms: dict[str, float] = field(default_factory=dict)
    server_cpu_ms_per_command: float = 0.0
    floor_cpu_ms_per_command: float = 0.0
    cpu_ratio: float = 0.0
    idle_cpu_ms_per_match_s: float = 0.0
    client_cpu_ms_per_command: float = 0.0
    load_1m: float = 0.0
    server_cpu_ms_per_command_by_process: dict[str, float] = field(default_factory=dict)
    floor_cpu_ms_by_part: dict[str, float] = field(default_factory=dict)
    memory_per_match_kb_by_process: dict[str, float] = field(default_factory=dict)
    # nats-server's messages, bytes and JetStream API requests per command over the play
    # phase, in total and per client connection (see frontier.bench.nats_traffic)
    nats_per_command: dict[str, Any] = field(default_factory=dict)
    # what the memory figure is of: "playing" (every match stopped unfinished), "finished"
    # (every match played to its end) or "mixed"
    memory_of: str = ""


LAG_EVERY_S = 0.05  # how often the players' loop lag is sampled
# The players' young-generation threshold (frontier.runtime.gc_policy, the services' own).
# At 1,500 paced matches CPython's defaults collected 647 times over the play phase, 2.5 s of
# CPU (7% of the client's), the four full passes ~110 ms each, inside the players' latencies.
CLIENT_GC_YOUNG_THRESHOLD: int = gc_policy.YOUNG_THRESHOLD

# The play phase's event loop (the players and the paced floor probe share it): uvloop, as the
# servers run, or the standard library's.  The floor's CPU phase keeps the standard loop
# whatever this says, so ``floor_cpu_ms_per_command`` is measured as before.
CLIENT_LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop] | None] = {
    "uvloop": uvloop.new_event_loop,
    "asyncio": None,
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def server_pids(stack: Stack) -> dict[str, int]:
    """Every server process of the stack by name: orchestrators, domains, nats-server."""
    names = (*stack.config.orchestrator_names, *DOMAINS, "nats")
    return {n: stack.procs[n].pid for n in names}


@dataclass
class _Phase:
    """What the play phase measured, before it is divided into a report."""

    hot: float  # ms, the hot floor
    floor_cpu: FloorCpu
    runs: list[MatchRun]
    paced: list[float]  # ms, the floors probed alongside the matches
    lags: list[float]  # ms, the players' loop lag
    seconds: float
    client_ms: float  # the players' CPU
    before: Sample
    after: Sample
    traffic: dict[str, Any]  # nats-server's counters per command over the phase
    idle: float  # ms of server CPU per idle match-second


def run(
    matches: int,
    lineup: str,
    sync: str,
    seed: int = 1000,
    orchestrators: int = 1,
    think_ms: float = 0.0,
    commands_per_match: int = 0,
    client_loop: str = "uvloop",
) -> StackBench:
    if client_loop not in CLIENT_LOOPS:
        raise ValueError(f"client loop must be one of {sorted(CLIENT_LOOPS)}, not {client_loop!r}")
    workdir = Path(tempfile.mkdtemp(prefix="frontier-bench-"))
    # room for the played matches and the idle ones (the default limit is 1,000)
    room = {"FRONTIER_MAX_MATCHES": str(matches + IDLE_MATCHES + 10)}
    config = StackConfig.ephemeral(
        workdir, orchestrators=orchestrators, sync=sync, extra_env=room, monitor_port=free_port()
    )
    seeds = list(range(seed, seed + matches))
    with Stack(config) as stack:
        phase = _measure(stack, seeds, lineup, think_ms, commands_per_match, client_loop)
    return _report(
        phase, matches, think_ms, orchestrators, lineup, sync, commands_per_match, client_loop
    )


def _measure(
    stack: Stack,
    seeds: list[int],
    lineup: str,
    think_ms: float,
    commands_per_match: int,
    client_loop: str,
) -> _Phase:
    """The floors, then the matches with every process's CPU and memory around them, then
    the idle matches' cost."""
    config = stack.config
    monitor = f"http://{config.host}:{config.monitor_port}"
    pids = server_pids(stack)
    hot = asyncio.run(hot_floor(config))
    floor_cpu = asyncio.run(cpu_floor(config, pids, len(seeds), think_ms / 1000, lineup, seeds[0]))
    before, traffic_before = Sample.take(pids), Traffic.take(monitor)
    client_before = time.process_time()
    started = time.perf_counter()
    # the players' collector tuned as the services' (after the floor's CPU phase, so
    # that floor_cpu_ms_per_command is measured as before)
    with (
        tuned_collector(CLIENT_GC_YOUNG_THRESHOLD),
        asyncio.Runner(loop_factory=CLIENT_LOOPS[client_loop]) as runner,
    ):
        runs, paced, lags = runner.run(
            _play(config, seeds, lineup, think_ms / 1000, commands_per_match)
        )
    seconds = time.perf_counter() - started
    client_ms = (time.process_time() - client_before) * 1000
    after, traffic_after = Sample.take(pids), Traffic.take(monitor)
    commands = sum(r.commands for r in runs)
    return _Phase(
        hot=hot,
        floor_cpu=floor_cpu,
        runs=runs,
        paced=paced,
        lags=lags,
        seconds=seconds,
        client_ms=client_ms,
        before=before,
        after=after,
        traffic=traffic_after.per_unit_since(traffic_before, commands),
        idle=asyncio.run(_idle_cost(config, pids, IDLE_MATCHES, lineup)),
    )


def _report(
    phase: _Phase,
    matches: int,
    think_ms: float,
    orchestrators: int,
    lineup: str,
    sync: str,
    commands_per_match: int,
    client_loop: str,
) -> StackBench:
    """The phase's figures per command, per match and against the floors."""
    hot, floor_cpu, runs = phase.hot, phase.floor_cpu, phase.runs
    floor = statistics.median(phase.paced) if phase.paced else hot
    latencies = [ms for r in runs for ms in r.latencies_ms]
    commands = sum(r.commands for r in runs)
    p50 = percentile(latencies, 0.5)
    used = phase.after.cpu_since(phase.before)
    server_cpu = sum(used.values()) / max(commands, 1)
    # signed: a process that shrank says so, and the processes add up to the total
    grown = {n: phase.after.rss[n] - phase.before.rss[n] for n in phase.after.rss}
    return StackBench(
        matches=matches,
        think_ms=think_ms,
        orchestrators=orchestrators,
        lineup=lineup,
        sync=sync,
        commands=commands,
        seconds=round(phase.seconds, 3),
        commands_per_s=round(commands / phase.seconds, 1),
        p50_ms=round(p50, 3),
        p99_ms=round(percentile(latencies, 0.99), 3),
        floor_p50_ms=round(floor, 3),
        ratio_p50=round(p50 / floor, 2),
        floor_hot_p50_ms=round(hot, 3),
        ratio_hot_p50=round(p50 / hot, 2),
        retries=sum(r.retries for r in runs),
        commands_per_match=commands_per_match,
        client_loop=client_loop,
        client_loop_lag_ms=lag_summary(phase.lags),
        memory_per_match_kb=round(sum(grown.values()) / matches, 1),
        server_cpu_ms_per_command=round(server_cpu, 4),
        floor_cpu_ms_per_command=round(floor_cpu.total_ms, 4),
        cpu_ratio=round(server_cpu / floor_cpu.total_ms, 2) if floor_cpu.total_ms else 0.0,
        idle_cpu_ms_per_match_s=round(phase.idle, 4),
        client_cpu_ms_per_command=round(phase.client_ms / max(commands, 1), 4),
        load_1m=round(os.getloadavg()[0], 2),
        server_cpu_ms_per_command_by_process=per_unit(used, commands),
        floor_cpu_ms_by_part={
            "servers": round(floor_cpu.servers_ms, 4),
            "caller": round(floor_cpu.caller_ms, 4),
            "engine": round(floor_cpu.engine_ms, 4),
        },
        memory_per_match_kb_by_process={n: round(kb / matches, 1) for n, kb in grown.items()},
        memory_of=memory_of(runs),
        nats_per_command=phase.traffic,
    )


@contextlib.contextmanager
def tuned_collector(young_threshold: int) -> Iterator[None]:
    """:func:`frontier.runtime.gc_policy.tune` for a phase, CPython's settings back after
    it (the benchmark also runs inside the test suite's process)."""
    thresholds = gc.get_threshold()
    gc_policy.tune(young_threshold)
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def lag_summary(lags: list[float]) -> dict[str, float]:
    """p50, p99 and the largest of the loop-lag samples (all 0 without any)."""
    if not lags:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    return {
        "p50": round(percentile(lags, 0.5), 3),
        "p99": round(percentile(lags, 0.99), 3),
        "max": round(max(lags), 3),
    }


def memory_of(runs: list[MatchRun]) -> str:
    """Whether the memory per match is that of matches in play or of finished ones."""
    finished = sum(1 for r in runs if r.winner)
    if finished == 0:
        return "playing"
    return "finished" if finished == len(runs) else "mixed"


async def _idle_cost(config: StackConfig, pids: dict[str, int], count: int, lineup: str) -> float:
    """CPU ms per second that one hosted, unfinished, unplayed match adds: the servers' CPU
    over a window with ``count`` fresh idle matches, minus a window before them."""
    before = Sample.take(pids)
    await asyncio.sleep(IDLE_WINDOW_S)
    quiet = sum(Sample.take(pids).cpu_since(before).values())
    await create_idle([config.address(n) for n in config.orchestrator_names], count, lineup)
    await asyncio.sleep(2.0)  # what creating them set off is over (projections warmed)
    before = Sample.take(pids)
    await asyncio.sleep(IDLE_WINDOW_S)
    busy = sum(Sample.take(pids).cpu_since(before).values())
    return max(busy - quiet, 0.0) / (count * IDLE_WINDOW_S) if count else 0.0


async def _play(
    config: StackConfig, seeds: list[int], lineup: str, think_s: float, max_commands: int = 0
) -> tuple[list[MatchRun], list[float], list[float]]:
    """The matches, (when paced) the floors probed alongside them at the same pace, and the
    players' loop lag over the phase (:func:`loop_lag`)."""
    targets = [config.address(n) for n in config.orchestrator_names]
    done = asyncio.Event()
    lagging = asyncio.ensure_future(loop_lag(done))
    probing = asyncio.ensure_future(paced_floor(config, think_s, done)) if think_s > 0 else None
    try:
        runs = await play_many(targets, seeds, lineup, think_s=think_s, max_commands=max_commands)
    finally:
        done.set()
    return runs, await probing if probing is not None else [], await lagging


async def loop_lag(
    done: asyncio.Event,
    every_s: float = LAG_EVERY_S,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """How late (ms) a timer of the running loop fires, once every ``every_s``, until
    ``done``: the time a player's reply or timer waits behind the rest of the loop's ready
    work, which every latency the players measure includes."""
    lags: list[float] = []
    while not done.is_set():
        due = clock() + every_s
        await asyncio.sleep(every_s)
        lags.append(max(0.0, (clock() - due) * 1000))
    return lags
