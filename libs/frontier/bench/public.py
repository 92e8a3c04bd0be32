"""``frontier bench public``: what a public server's crowds cost the players of a match.

A public host is read far more than it is played: thousands watch a final, bots fill
seats, a finished match's replay is fetched by everyone at once.  Each scenario starts a
local stack (:mod:`frontier.ops.stack`) and plays a *canary* match through MatchService at a
human-ish pace (:mod:`frontier.bench.canary`): first with nothing else going on (the
baseline), then with the scenario's load, in the same run, because the machine is noisy and
only the ratio of the two says what the load did:

* ``watchers``: N ``WatchEvents`` spectator streams on the canary match itself, from a
  process of their own (:mod:`frontier.bench.watch_load`); besides the canary's latency, the
  watchers' event delay (an event's receipt minus the submit time of the canary command
  that produced it) and the orchestrator's CPU and memory per watcher, to extrapolate to
  10,000.  The caps per match and per address are raised for the run (every stream comes
  from loopback).
* ``gateway-watchers``: the same through the web gateway's server-sent events (the gateway
  reads the match once from the orchestrator and shares it, see :mod:`frontier.web.feeds`).
* ``bots``: N matches whose seats are all built-in ``search`` bots (they think in the
  orchestrator's worker processes, :mod:`frontier.orchestrator.bot_pool`) beside the canary;
  the bots' CPU seconds (``frontier_bot_cpu_seconds_total``) and the orchestrator's own.
* ``replays``: rounds of N concurrent ``ExportReplay`` of one finished match while the canary
  plays; the orchestrator's resident memory before, at its peak and after, and how the
  replays were answered (``frontier_replay_exports_total{source}``).

A canary of some 60 commands has a p99 that is close to its largest latency: read the p99
ratio as "the worst a player saw", and the p50 ratio as the typical cost.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frontier.bench import canary as canary_match
from frontier.bench import public_loads
from frontier.bench.cpu import Sample
from frontier.bench.public_loads import Run
from frontier.bench.stack import percentile
from frontier.engine import COMPILED
from frontier.ops.stack import Stack, StackConfig, free_port
from frontier.runtime.tls import aio_channel
from frontier.v1 import match_pb2_grpc

SCENARIOS = ("watchers", "gateway-watchers", "bots", "replays")
DEFAULT_N = {"watchers": 2000, "gateway-watchers": 2000, "bots": 10, "replays": 200}
LINEUP = "A=marquise;B=marquise"
CANARY_SEED = 4242


@dataclass
class PublicBench:
    scenario: str
    n: int
    engine: str  # "compiled" (mypyc) or "pure-python": the same for the stack and the bench
    think_ms: float
    baseline_commands: int
    loaded_commands: int
    baseline_p50_ms: float
    baseline_p99_ms: float
    loaded_p50_ms: float
    loaded_p99_ms: float
    ratio_p50: float
    ratio_p99: float
    load_1m: float
    figures: dict[str, Any] = field(default_factory=dict)  # the scenario's own


def run(
    scenario: str,
    n: int | None = None,
    seconds: float = 60.0,
    think_ms: float = 200.0,
    commands: int = 60,
) -> PublicBench:
    """One scenario on a fresh local stack (see the module)."""
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {', '.join(SCENARIOS)}, not {scenario!r}")
    count = DEFAULT_N[scenario] if n is None else n
    workdir = Path(tempfile.mkdtemp(prefix="frontier-bench-public-"))
    with Stack(_config(scenario, count, workdir)) as stack:
        return asyncio.run(_run(stack, scenario, count, seconds, think_ms, commands))


def _config(scenario: str, n: int, workdir: Path) -> StackConfig:
    room = str(n + 16)
    extra = {
        "FRONTIER_WATCHERS_PER_MATCH": room,
        "FRONTIER_WATCHERS_PER_ADDRESS": room,
        "FRONTIER_MAX_MATCHES": str(n + 100),
    }
    if scenario != "gateway-watchers":
        return StackConfig.ephemeral(workdir, extra_env=extra)
    web = {"FRONTIER_WEB_SSE_PER_MATCH": room, "FRONTIER_WEB_SSE_PER_ADDRESS": room}
    return StackConfig.ephemeral(workdir, extra_env=extra, web_port=free_port(), web_env=web)


async def _run(
    stack: Stack, scenario: str, n: int, seconds: float, think_ms: float, commands: int
) -> PublicBench:
    think_s = think_ms / 1000
    async with aio_channel(stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)

        def play_canary(
            created: Callable[[str, int], Awaitable[None]] | None,
        ) -> Awaitable[canary_match.Canary]:
            # the same seed as the baseline's: the same deal, commands and events, loaded
            return canary_match.play(stub, CANARY_SEED, LINEUP, think_s, commands, seconds, created)

        pids = {"orchestrator": stack.procs["orchestrator"].pid}
        if "web" in stack.procs:
            pids["web"] = stack.procs["web"].pid
        before, started = Sample.take(pids), asyncio.get_running_loop().time()
        baseline = await canary_match.play(stub, CANARY_SEED, LINEUP, think_s, commands, seconds)
        elapsed = asyncio.get_running_loop().time() - started
        used = Sample.take(pids).cpu_since(before)
        baseline_rate = {name: ms / elapsed for name, ms in used.items()}
        events_per_s = sum(last - first for _, first, last in baseline.submits) / elapsed
        load = Run(stack, stub, n, seconds, play_canary, baseline_rate, events_per_s)
        loaded, figures = await LOADS[scenario](load)
    return _report(scenario, n, think_ms, baseline, loaded, figures)


def _report(
    scenario: str,
    n: int,
    think_ms: float,
    baseline: canary_match.Canary,
    loaded: canary_match.Canary,
    figures: dict[str, Any],
) -> PublicBench:
    base, under = baseline.latencies_ms, loaded.latencies_ms
    b50, b99 = percentile(base, 0.5), percentile(base, 0.99)
    l50, l99 = percentile(under, 0.5), percentile(under, 0.99)
    return PublicBench(
        scenario=scenario,
        n=n,
        engine="compiled" if COMPILED else "pure-python",
        think_ms=think_ms,
        baseline_commands=len(base),
        loaded_commands=len(under),
        baseline_p50_ms=round(b50, 2),
        baseline_p99_ms=round(b99, 2),
        loaded_p50_ms=round(l50, 2),
        loaded_p99_ms=round(l99, 2),
        ratio_p50=round(l50 / b50, 2) if b50 else 0.0,
        ratio_p99=round(l99 / b99, 2) if b99 else 0.0,
        load_1m=round(os.getloadavg()[0], 2),
        figures=figures,
    )


def table(result: PublicBench) -> str:
    """The result as a readable two-column table."""
    rows: list[tuple[str, object]] = [
        ("scenario", f"{result.scenario} (n={result.n}, engine {result.engine})"),
        ("canary think time", f"{result.think_ms:g} ms"),
        (
            "canary p50 (ms)",
            f"{result.baseline_p50_ms} -> {result.loaded_p50_ms}  x{result.ratio_p50}",
        ),
        (
            "canary p99 (ms)",
            f"{result.baseline_p99_ms} -> {result.loaded_p99_ms}  x{result.ratio_p99}",
        ),
        ("canary commands", f"{result.baseline_commands} -> {result.loaded_commands}"),
        *result.figures.items(),
        ("load average (1 min)", result.load_1m),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


LOADS: dict[str, Callable[[Run], Awaitable[tuple[canary_match.Canary, dict[str, Any]]]]] = {
    "watchers": public_loads.grpc_watchers,
    "gateway-watchers": public_loads.gateway_watchers,
    "bots": public_loads.bots,
    "replays": public_loads.replays,
}
