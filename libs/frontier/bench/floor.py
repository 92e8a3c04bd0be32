"""The floor of ``frontier bench stack``: one bare gRPC unary call plus one JetStream
publish-ack, the least any accepted command must cost on this machine, right now.

Its latency is measured in two ways, both in the same run as the matches:

* *hot*: samples back to back, before the matches start.  Every process involved is awake
  and its code and data are in the caches: the best the machine can do.
* *paced*: while the matches play, a probe takes one sample after each think time, as a
  player does.  On a machine that idles between requests, every hop then pays for waking a
  sleeping process (on the reference machine, a virtual one, the hot floor is ~1.1 ms and
  the paced one ~2.9 ms, measured alike with a gap of 20 ms or of 100 ms).  A paced command
  pays that too, so comparing it with the hot floor would blame the server for the idle
  machine; ``bench stack --think-ms`` reports its ratio against the paced floor and also
  gives the hot one.

Its CPU cost (:func:`cpu_floor`, the denominator of ``cpu_ratio``) is taken in a phase of its
own before the matches, paced like them (as many probers as matches, each waiting a think
time between samples), so that the processes wake up as often as they do for the commands:
the CPU the orchestrator, a domain service and nats-server spend on one call to the
orchestrator, one call to the domain service and one JetStream publish-ack; plus what the
*caller* of the last two pays (in the server the orchestrator makes them; here the probe
does, so its CPU for them is measured as the difference between the probe's CPU with and
without them); plus the engine's own work per command, timed in-process.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType

import grpc
import nats
from grpc_health.v1 import health_pb2, health_pb2_grpc
from nats.aio.client import Client as NatsClient
from nats.js.api import StorageType, StreamConfig

from frontier.bench.cpu import Sample
from frontier.bench.engine import configs
from frontier.bots import make_bot
from frontier.engine import initial_state
from frontier.engine.rng import below, seed_state
from frontier.ops.stack import StackConfig
from frontier.play.load import RETRYABLE, think_time
from frontier.play.match_runner import play, seat_bots
from frontier.runtime.tls import aio_channel

HOT_SAMPLES = 300
STREAM = "FRONTIER_BENCH_FLOOR"
SUBJECT = "frontier.bench.floor"
PAYLOAD = b"x" * 512  # about one command's batch
FLOOR_PROCESSES = ("orchestrator", "map", "nats")  # the processes a floor sample wakes
ENGINE_MATCHES = 2  # in-process matches timed for the engine's share of the floor


class FloorProbe:
    """A connection to the stack's orchestrator (health checks) and NATS (a file stream of
    its own, on the same server as the events, so with the same fsync policy)."""

    def __init__(self, config: StackConfig) -> None:
        self.config = config
        self._nc: NatsClient | None = None
        self._channel: grpc.aio.Channel | None = None

    async def __aenter__(self) -> FloorProbe:
        self._nc = await nats.connect(self.config.nats_url)
        self._js = self._nc.jetstream()
        await self._js.add_stream(
            StreamConfig(name=STREAM, subjects=[SUBJECT], storage=StorageType.FILE)
        )
        self._channel = aio_channel(self.config.address("orchestrator"))
        self._health = health_pb2_grpc.HealthStub(self._channel)
        self._domain_channel = aio_channel(self.config.address("map"))
        self._domain = health_pb2_grpc.HealthStub(self._domain_channel)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._channel is not None:
            await self._channel.close()
            await self._domain_channel.close()
        if self._nc is not None:
            await self._js.delete_stream(STREAM)
            await self._nc.close()

    async def sample(self) -> float:
        """One floor, in ms."""
        started = time.perf_counter()
        await self._health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)  # type: ignore[attr-defined]
        await self._js.publish(SUBJECT, PAYLOAD)
        return (time.perf_counter() - started) * 1000

    async def hops(self, full: bool) -> None:
        """The floor's hops for its CPU cost (see :func:`cpu_floor`): the call to the
        orchestrator, then (``full``) one to a domain service and a publish-ack."""
        await self._health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)  # type: ignore[attr-defined]
        if full:
            await self._domain.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)  # type: ignore[attr-defined]
            await self._js.publish(SUBJECT, PAYLOAD)


async def hot_floor(config: StackConfig, samples: int = HOT_SAMPLES) -> float:
    """p50 of ``samples`` floors taken back to back."""
    async with FloorProbe(config) as probe:
        return statistics.median([await probe.sample() for _ in range(samples)])


async def paced_floor(config: StackConfig, think_s: float, done: asyncio.Event) -> list[float]:
    """Floors taken one per think time (the players' spread: 0.5x to 1.5x) until ``done``."""
    timings: list[float] = []
    pace = seed_state(int(think_s * 1000))
    async with FloorProbe(config) as probe:
        while not done.is_set():
            pause, pace = think_time(pace, think_s)
            try:
                await asyncio.wait_for(done.wait(), pause)
            except TimeoutError:
                try:
                    timings.append(await probe.sample())
                except grpc.aio.AioRpcError as exc:
                    # an overloaded machine (DEADLINE_EXCEEDED) costs this sample, not the
                    # whole run: the matches' own calls are retried the same way
                    if exc.code() not in RETRYABLE:
                        raise
    return timings


@dataclass(frozen=True, slots=True)
class FloorCpu:
    """The floor's CPU per command, in ms, by part."""

    servers_ms: float  # the orchestrator, the domain service and nats-server
    caller_ms: float  # the caller's side of the domain call and of the publish
    engine_ms: float  # decide, evolve and the legal commands, in-process

    @property
    def total_ms(self) -> float:
        return self.servers_ms + self.caller_ms + self.engine_ms


async def cpu_floor(
    config: StackConfig,
    pids: Mapping[str, int],
    probers: int,
    think_s: float,
    lineup: str,
    seed: int,
) -> FloorCpu:
    """The floor's CPU per command at the players' pace (see the module's docstring)."""
    seconds = max(3.0, 2.5 * think_s)
    watched = {name: pids[name] for name in FLOOR_PROCESSES}
    full, full_client, full_servers = await _probe_phase(
        config, watched, probers, think_s, seconds, True
    )
    bare, bare_client, _ = await _probe_phase(config, watched, probers, think_s, seconds, False)
    caller = max(0.0, full_client / max(full, 1) - bare_client / max(bare, 1))
    return FloorCpu(full_servers / max(full, 1), caller, engine_cpu_ms_per_command(lineup, seed))


async def _probe_phase(
    config: StackConfig,
    pids: Mapping[str, int],
    probers: int,
    think_s: float,
    seconds: float,
    full: bool,
) -> tuple[int, float, float]:
    """``probers`` paced probers for ``seconds``: (samples, the probe's CPU ms, the watched
    processes' CPU ms)."""
    samples = 0

    async def prober(index: int, probe: FloorProbe, until: float) -> None:
        nonlocal samples
        pace = seed_state(index + 1)
        if think_s > 0:
            start, pace = below(pace, 1001)
            await asyncio.sleep(think_s * start / 1000)
        while time.monotonic() < until:
            if think_s > 0:
                pause, pace = think_time(pace, think_s)
                await asyncio.sleep(pause)
            await probe.hops(full)
            samples += 1

    async with FloorProbe(config) as probe:
        await probe.hops(full)  # connected and warm before the clock starts
        before, client = Sample.take(pids), time.process_time()
        until = time.monotonic() + seconds
        await asyncio.gather(*(prober(i, probe, until) for i in range(probers)))
        used = sum(Sample.take(pids).cpu_since(before).values())
        client = (time.process_time() - client) * 1000
    return samples, client, used


def engine_cpu_ms_per_command(lineup: str, seed: int, matches: int = ENGINE_MATCHES) -> float:
    """The engine's CPU per command, in-process (random bots, like the load's players)."""
    commands = 0
    used = 0.0
    for config in configs(matches, lineup, seed):
        state = initial_state(config)
        bots = seat_bots(config, lambda s: make_bot("random", s))
        started = time.process_time()
        result = play(state, bots, config=config, record=False, summaries=False)
        used += time.process_time() - started
        commands += result.command_count
    return used * 1000 / max(commands, 1)
