"""The loads of ``frontier bench public`` (see :mod:`frontier.bench.public`): each starts its
load, plays the loaded canary beside it, and returns the canary and the load's own figures."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
import time
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from frontier.bench import watch_load
from frontier.bench.canary import Canary
from frontier.bench.cpu import Sample, rss_kb
from frontier.ops.stack import Stack
from frontier.play.load import play_match
from frontier.runtime.tls import aio_channel
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2

# Plays the canary; its argument runs once the match exists (see canary.play's ``created``).
PlayCanary = Callable[[Callable[[str, int], Awaitable[None]] | None], Awaitable[Canary]]
Figures = dict[str, Any]
BOT_LINEUP = "A=marquise;B=marquise"  # the bots' matches: two seats, both the search bot
BOT_SEATS = (types_pb2.SEAT_A1, types_pb2.SEAT_B1)
RSS_EVERY_S = 0.01  # how often the replays scenario samples the orchestrator's memory
EXTRAPOLATE_TO = 10_000  # watchers the per-watcher figures are scaled to


@dataclass
class Run:
    """What a scenario's load gets: the stack, a stub, and how to play the loaded canary."""

    stack: Stack
    stub: match_pb2_grpc.MatchServiceAsyncStub
    n: int
    seconds: float
    play_canary: PlayCanary
    baseline_cpu_ms_per_s: dict[str, float]  # per process, over the baseline canary
    baseline_events_per_s: float  # the unloaded canary's pace: the rate extrapolated at

    def metrics(self) -> dict[str, float]:
        """The orchestrator's metrics now, as ``name{label=value,...}`` -> value."""
        url = self.stack.config.metrics_url("orchestrator")
        with urllib.request.urlopen(url, timeout=10) as reply:
            text = reply.read().decode()
        out: dict[str, float] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
                out[f"{sample.name}{{{labels}}}"] = sample.value
        return out

    def pids(self) -> dict[str, int]:
        names = ("orchestrator", "web") if "web" in self.stack.procs else ("orchestrator",)
        return {name: self.stack.procs[name].pid for name in names}


def grown(before: dict[str, float], after: dict[str, float], prefix: str) -> dict[str, float]:
    """How much each metric named ``prefix...`` grew between two scrapes."""
    return {
        key.removeprefix(prefix): round(value - before.get(key, 0.0), 3)
        for key, value in after.items()
        if key.startswith(prefix)
    }


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def grpc_watchers(run: Run) -> tuple[Canary, Figures]:
    return await _watched(run, "grpc", run.stack.config.address("orchestrator"))


async def gateway_watchers(run: Run) -> tuple[Canary, Figures]:
    address = run.stack.config.web_url.removeprefix("http://").rstrip("/")
    return await _watched(run, "sse", address)


async def _watched(run: Run, kind: str, address: str) -> tuple[Canary, Figures]:
    """N watchers on the canary match, opened before its first command."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    pids = run.pids()
    samples: dict[str, Any] = {"before": Sample.take(pids)}

    async def created(match_id: str, version: int) -> None:
        order = watch_load.WatchOrder(kind, address, match_id, version, run.n, run.seconds)
        proc = context.Process(target=watch_load.serve, args=(order, child), daemon=True)
        proc.start()
        samples["proc"] = proc
        await asyncio.to_thread(parent.recv)  # "ready": every stream admitted or refused
        samples["opened"], samples["at"] = Sample.take(pids), time.monotonic()

    canary = await run.play_canary(created)
    played, elapsed = Sample.take(pids), time.monotonic() - samples["at"]
    scrape = run.metrics()
    parent.send(canary.submits[-1][2] if canary.submits else 0)  # the last event's seq
    result: watch_load.WatchResult = await asyncio.to_thread(parent.recv)
    samples["proc"].join(30)
    figures = _watch_figures(run, canary, result, samples, played, elapsed)
    figures["orchestrator watch streams (spectator)"] = scrape.get(
        "frontier_watch_streams{kind=spectator}", 0.0
    )
    return canary, figures


def _watch_figures(
    run: Run,
    canary: Canary,
    result: watch_load.WatchResult,
    samples: dict[str, Any],
    played: Sample,
    elapsed: float,
) -> Figures:
    """Delays from the canary's submits, and each process's cost per watcher: its CPU beyond
    the baseline's per event delivered to one watcher (a rate that stays put whether the
    load slowed the match or not), its memory per open stream, and both scaled to
    EXTRAPOLATE_TO watchers of a match played at the unloaded canary's pace."""
    submitted = canary.submitted_at()
    delays = [
        (at - submitted[seq]) * 1000
        for seq, times in result.receipts.items()
        if seq in submitted
        for at in times
    ]
    events = len(submitted)
    admitted = max(result.admitted, 1)
    opened: Sample = samples["opened"]
    figures: Figures = {
        "watchers admitted": result.admitted,
        "watchers refused": result.refused,
        "watchers ended early": result.ended,
        "events produced / received": f"{events} / {len(delays)} (of {events * admitted})",
        "event delay p50 (ms)": round(percentile(delays, 0.5), 2),
        "event delay p99 (ms)": round(percentile(delays, 0.99), 2),
    }
    delivered, rate = max(len(delays), 1), run.baseline_events_per_s
    for name in opened.cpu:
        extra = played.cpu[name] - opened.cpu[name] - run.baseline_cpu_ms_per_s[name] * elapsed
        rss = (opened.rss[name] - samples["before"].rss[name]) / admitted
        per_event = max(extra, 0.0) * 1000 / delivered  # CPU µs per event to one watcher
        figures[f"{name} CPU us per watcher-event"] = round(per_event, 2)
        figures[f"{name} RSS KiB per watcher"] = round(rss, 2)
        figures[f"{name} at {EXTRAPOLATE_TO:,} watchers"] = (
            f"{per_event * rate * EXTRAPOLATE_TO / 1e6:.2f} cores at {rate:.1f} events/s, "
            f"{rss * EXTRAPOLATE_TO / 1024:.0f} MiB"
        )
    return figures


async def bots(run: Run) -> tuple[Canary, Figures]:
    """N matches of search-bot seats (created just before the canary) beside it."""
    pids = run.pids()
    before, scrape = Sample.take(pids), run.metrics()
    setup = [
        match_pb2.SeatSetup(seat=s, mode=match_pb2.SEAT_MODE_BOT, bot="search") for s in BOT_SEATS
    ]
    config = match_pb2.MatchConfig(lineup=BOT_LINEUP)
    await asyncio.gather(
        *(
            run.stub.CreateMatch(
                match_pb2.CreateMatchRequest(config=config, seat_setup=setup), timeout=30
            )
            for _ in range(run.n)
        )
    )
    started = time.monotonic()
    canary = await run.play_canary(None)
    elapsed = time.monotonic() - started
    used, after = Sample.take(pids).cpu_since(before), run.metrics()
    bot_cpu = sum(grown(scrape, after, "frontier_bot_cpu_seconds_total").values())
    return canary, {
        "bot matches": run.n,
        "bot CPU seconds": round(bot_cpu, 2),
        "orchestrator CPU seconds": round(used["orchestrator"] / 1000, 2),
        "bot matches finished": sum(
            grown(scrape, after, "frontier_matches_finished_total").values()
        ),
        "loaded phase seconds": round(elapsed, 1),
    }


async def replays(run: Run) -> tuple[Canary, Figures]:
    """Rounds of N concurrent exports of one finished match while the canary plays."""
    finished = await play_match(run.stub, CANARY_REPLAY_SEED, BOT_LINEUP)
    pid = run.pids()["orchestrator"]
    scrape = run.metrics()
    await asyncio.sleep(1.0)
    before = rss_kb(pid)
    peak = [before]
    sampling = threading.Event()
    sampler = threading.Thread(target=_sample_peak, args=(pid, peak, sampling), daemon=True)
    sampler.start()
    done = asyncio.Event()
    request = match_pb2.ExportReplayRequest(match_id=finished.match_id)
    rounds = 0

    async def export() -> None:
        # the exporters are other clients than the canary: their connection closes when they
        # are done, as a crowd's would, so what stays after is what the server itself kept
        nonlocal rounds
        async with aio_channel(run.stack.config.address("orchestrator")) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            while not done.is_set():
                await asyncio.gather(
                    *(stub.ExportReplay(request, timeout=60) for _ in range(run.n))
                )
                rounds += 1

    exporting = asyncio.ensure_future(export())
    canary = await run.play_canary(None)
    done.set()
    await exporting
    sampling.set()
    sampler.join()
    await asyncio.sleep(1.0)  # what the exports left behind is what stays
    after = rss_kb(pid)
    return canary, {
        "export rounds (concurrent exports each)": f"{rounds} ({run.n})",
        "orchestrator RSS KiB before / peak / after": f"{before} / {peak[0]} / {after}",
        "RSS after/before": round(after / before, 3) if before else 0.0,
        "RSS peak/before": round(peak[0] / before, 3) if before else 0.0,
        "replay exports by source": grown(scrape, run.metrics(), "frontier_replay_exports_total"),
    }


CANARY_REPLAY_SEED = 77


def _sample_peak(pid: int, peak: list[int], stop: threading.Event) -> None:
    """Keep ``peak[0]`` the largest resident size of ``pid`` seen until ``stop``."""
    while not stop.wait(RSS_EVERY_S):
        peak[0] = max(peak[0], rss_kb(pid))
