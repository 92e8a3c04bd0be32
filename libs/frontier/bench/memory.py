"""``frontier bench memory``: who holds the memory each match costs, process by process.

``frontier bench stack`` reports resident memory per match; this says where it goes.  It
starts a local stack with :mod:`frontier.runtime.memtrace` on (every Python service traces
its allocations), plays N matches to their end, has every service write a snapshot, plays
N more and snapshots again: the difference, divided by N, is what one more finished match
holds, by allocating line.  nats-server is not Python: its own figures (``/varz`` ``mem``,
the resident set, and ``/jsz`` ``memory``, the JetStream memory store) are read at the same
two moments.  With ``max_commands`` the matches stop after that many commands and stay
unfinished, which measures a *playing* match instead.

Tracing slows the services several times: the figures are bytes, never times.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from frontier.bench.cpu import Sample
from frontier.bench.stack import server_pids
from frontier.ops.stack import Stack, StackConfig, free_port
from frontier.play.load import play_many
from frontier.runtime import memtrace

SNAPSHOT_WAIT_S = 60.0  # a traced service takes seconds to write a large snapshot


@dataclass
class MemoryReport:
    matches: int  # per phase: the second phase adds as many again
    max_commands: int  # 0: played to the end
    commands: int
    rss_kb_per_match: dict[str, float] = field(default_factory=dict)  # RSS growth
    traced_bytes_per_match: dict[str, float] = field(default_factory=dict)  # tracemalloc
    top_sites: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    nats_bytes_per_match: dict[str, float] = field(default_factory=dict)  # /varz, /jsz


def run(matches: int, lineup: str, seed: int = 5000, max_commands: int = 0) -> MemoryReport:
    """Two phases of ``matches`` matches each; the growth over the second one per match."""
    if matches < 1:
        raise ValueError(f"--matches must be at least 1, got {matches}")
    workdir = Path(tempfile.mkdtemp(prefix="frontier-memory-"))
    dumps = workdir / "tracemalloc"
    config = StackConfig.ephemeral(
        workdir,
        monitor_port=free_port(),
        extra_env={memtrace.ENV: str(dumps), "FRONTIER_MAX_MATCHES": str(3 * matches + 10)},
    )
    report = MemoryReport(matches, max_commands, 0)
    with Stack(config) as stack:
        pids = server_pids(stack)
        python = {n: p for n, p in pids.items() if n != "nats"}
        target = [config.address(n) for n in config.orchestrator_names]
        # a first phase warms every cache and pool that does not grow per match
        first = list(range(seed, seed + matches))
        asyncio.run(play_many(target, first, lineup, max_commands=max_commands))
        before = _phase(dumps, python, 1)
        rss_before, nats_before = Sample.take(pids), _nats(config)
        second = list(range(seed + matches, seed + 2 * matches))
        runs = asyncio.run(play_many(target, second, lineup, max_commands=max_commands))
        after = _phase(dumps, python, 2)
        rss_after, nats_after = Sample.take(pids), _nats(config)
    report.commands = sum(r.commands for r in runs)
    for name in pids:
        grown = rss_after.rss[name] - rss_before.rss[name]
        report.rss_kb_per_match[name] = round(grown / matches, 1)
    for name in python:
        rows = memtrace.grown(before[name], after[name], matches)
        report.traced_bytes_per_match[name] = round(rows[-1][1])
        report.top_sites[name] = [(where, round(size)) for where, size in rows[:-1]]
    for key in nats_after:
        report.nats_bytes_per_match[key] = round((nats_after[key] - nats_before[key]) / matches)
    return report


def _phase(dumps: Path, pids: dict[str, int], n: int) -> dict[str, Path]:
    """Have every traced process write its ``n``-th snapshot; their paths by name."""
    for pid in pids.values():
        os.kill(pid, signal.SIGUSR2)
    deadline = time.monotonic() + SNAPSHOT_WAIT_S
    wanted = {name: dumps / f"{name}-{pid}-{n}.snap" for name, pid in pids.items()}
    sizes: dict[str, int] = {}
    while time.monotonic() < deadline:
        # written once its size stops changing between two looks
        now = {name: p.stat().st_size if p.exists() else -1 for name, p in wanted.items()}
        if all(v > 0 for v in now.values()) and now == sizes:
            return wanted
        sizes = now
        time.sleep(0.5)
    raise TimeoutError(f"no tracemalloc snapshot within {SNAPSHOT_WAIT_S:g} s in {dumps}")


def _nats(config: StackConfig) -> dict[str, float]:
    """nats-server's own memory figures: its RSS (``/varz``) and JetStream's (``/jsz``)."""
    base = f"http://{config.host}:{config.monitor_port}"
    with urllib.request.urlopen(f"{base}/varz", timeout=10) as reply:
        varz = json.load(reply)
    with urllib.request.urlopen(f"{base}/jsz", timeout=10) as reply:
        jsz = json.load(reply)
    return {
        "varz_mem": float(varz.get("mem", 0)),
        "jsz_memory": float(jsz.get("memory", 0)),
        "jsz_storage": float(jsz.get("storage", 0)),
    }


def text(report: MemoryReport) -> str:
    """The report for a person: per process, the RSS and traced growth, then the top sites."""
    lines = [
        f"{report.matches} matches per phase, "
        + (f"{report.max_commands} commands each" if report.max_commands else "played out")
        + f", {report.commands} commands in the measured phase",
        "per match:  process        RSS KB   traced KB",
    ]
    for name, kb in report.rss_kb_per_match.items():
        traced = report.traced_bytes_per_match.get(name)
        shown = f"{traced / 1024:9.1f}" if traced is not None else "        -"
        lines.append(f"            {name:<14}{kb:7.1f}   {shown}")
    for key, value in report.nats_bytes_per_match.items():
        lines.append(f"  nats {key}: {value / 1024:.1f} KB per match")
    for name, rows in report.top_sites.items():
        lines.append(f"{name}: bytes per match by allocating line")
        lines.extend(f"  {size:9.0f}  {where}" for where, size in rows)
    return "\n".join(lines)
