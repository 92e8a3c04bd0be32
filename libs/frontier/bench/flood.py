"""``frontier bench flood``: one host key floods ``CreateMatch``; what another key sees.

On a public server (``FRONTIER_ACCESS=keys``) every creation is counted against its host
key's quotas, and past one the call is refused ``QUOTA_EXCEEDED`` at once, before anything
is written: a flood from one key must cost the others nothing.  This bench starts a local
stack in keys mode, makes two keys in its NATS (as ``frontier keys create`` does), and has
key B create matches one after another twice: alone (the baseline), then while key A keeps
``--n`` ``CreateMatch`` calls in flight as fast as they are answered.  It reports B's
creation latency both times (p50, largest, their ratios) and how A's calls were answered.
Key B's quotas are raised to fit its own creations; key A has the server's defaults.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from frontier.bench.stack import percentile
from frontier.ops.stack import Stack, StackConfig
from frontier.runtime.bus import Bus
from frontier.runtime.errors import reason_in
from frontier.runtime.settings import host_key_metadata
from frontier.runtime.tls import aio_channel
from frontier.store.host_keys import HostKeyStore, Quotas
from frontier.v1 import match_pb2, match_pb2_grpc

LINEUP = "A=marquise;B=marquise"
IN_FLIGHT = 64  # the flood's concurrent calls
TIMEOUT_S = 30.0


@dataclass
class FloodBench:
    n: int  # the flood's calls (at least; it goes on until key B is done)
    creates: int  # key B's creations in each phase
    flood_seconds: float
    flood_answers: dict[str, int] = field(default_factory=dict)  # "OK" or the reason -> calls
    baseline_p50_ms: float = 0.0
    baseline_max_ms: float = 0.0
    loaded_p50_ms: float = 0.0
    loaded_max_ms: float = 0.0
    ratio_p50: float = 0.0
    ratio_max: float = 0.0
    load_1m: float = 0.0


def run(n: int = 2000, creates: int = 20) -> FloodBench:
    """The bench on a fresh local stack in keys mode (see the module)."""
    workdir = Path(tempfile.mkdtemp(prefix="frontier-bench-flood-"))
    config = StackConfig.ephemeral(
        workdir,
        extra_env={"FRONTIER_ACCESS": "keys", "FRONTIER_MAX_MATCHES": str(n + 4 * creates + 100)},
    )
    with Stack(config) as stack:
        return asyncio.run(_run(stack, n, creates))


async def _keys(stack: Stack, creates: int) -> tuple[str, str]:
    """Key A (the server's default quotas) and key B (room for its own creations)."""
    bus = await Bus.connect(stack.config.nats_url, timeout_s=10.0)
    try:
        store = HostKeyStore(await bus.host_keys_bucket())
        _, flooding = await store.create("flood", Quotas())
        room = 2 * creates + 10
        _, other = await store.create("other", Quotas(matches_hosted=room, creates_per_minute=room))
    finally:
        await bus.close()
    return flooding, other


async def _run(stack: Stack, n: int, creates: int) -> FloodBench:
    flooding, other = await _keys(stack, creates)
    async with aio_channel(stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        baseline = [await _create(stub, other) for _ in range(creates)]
        answers: Counter[str] = Counter()
        done = asyncio.Event()
        started = time.monotonic()
        flood = asyncio.ensure_future(_flood(stub, flooding, n, answers, done))
        await asyncio.sleep(0.2)  # the flood under way first
        loaded = [await _create(stub, other) for _ in range(creates)]
        done.set()
        await flood
        seconds = time.monotonic() - started
    b50, l50 = percentile(baseline, 0.5), percentile(loaded, 0.5)
    bmax, lmax = max(baseline), max(loaded, default=0.0)
    return FloodBench(
        n=n,
        creates=creates,
        flood_seconds=round(seconds, 2),
        flood_answers=dict(answers),
        baseline_p50_ms=round(b50, 2),
        baseline_max_ms=round(bmax, 2),
        loaded_p50_ms=round(l50, 2),
        loaded_max_ms=round(lmax, 2),
        ratio_p50=round(l50 / b50, 2) if b50 else 0.0,
        ratio_max=round(lmax / bmax, 2) if bmax else 0.0,
        load_1m=round(os.getloadavg()[0], 2),
    )


def _request() -> match_pb2.CreateMatchRequest:
    return match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(lineup=LINEUP, max_rounds=1))


async def _create(stub: match_pb2_grpc.MatchServiceAsyncStub, key: str) -> float:
    """One creation by ``key`` that must succeed; its latency in ms."""
    started = time.perf_counter()
    await stub.CreateMatch(_request(), metadata=host_key_metadata(key), timeout=TIMEOUT_S)
    return (time.perf_counter() - started) * 1000


async def _flood(
    stub: match_pb2_grpc.MatchServiceAsyncStub,
    key: str,
    n: int,
    answers: Counter[str],
    done: asyncio.Event,
) -> None:
    """Creations by ``key``, IN_FLIGHT at a time, at least ``n`` and until ``done`` (key B's
    creations all ran under the flood); each answer counted by its reason."""
    metadata = host_key_metadata(key)

    async def caller() -> None:
        while sum(answers.values()) + IN_FLIGHT <= n or not done.is_set():
            try:
                await stub.CreateMatch(_request(), metadata=metadata, timeout=TIMEOUT_S)
                answers["OK"] += 1
            except grpc.aio.AioRpcError as exc:
                answers[reason_in(exc.trailing_metadata()) or exc.code().name] += 1

    await asyncio.gather(*(caller() for _ in range(IN_FLIGHT)))


def table(result: FloodBench) -> str:
    """The result as a readable two-column table."""
    rows: list[tuple[str, object]] = [
        (
            "key A's calls",
            f"{sum(result.flood_answers.values())} in {result.flood_seconds} s",
        ),
        ("key A's answers", result.flood_answers),
        (
            "key B creation p50 (ms)",
            f"{result.baseline_p50_ms} -> {result.loaded_p50_ms}  x{result.ratio_p50}",
        ),
        (
            "key B creation max (ms)",
            f"{result.baseline_max_ms} -> {result.loaded_max_ms}  x{result.ratio_max}",
        ),
        ("key B creations per phase", result.creates),
        ("load average (1 min)", result.load_1m),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)
