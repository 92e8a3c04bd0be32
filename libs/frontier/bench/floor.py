"""The floor of ``frontier bench stack``: one bare gRPC unary call plus one JetStream
publish-ack, the least any accepted command must cost on this machine, right now.

It is measured in two ways, both in the same run as the matches:

* *hot*: samples back to back, before the matches start.  Every process involved is awake
  and its code and data are in the caches: the best the machine can do.
* *paced*: while the matches play, a probe takes one sample after each think time, as a
  player does.  On a machine that idles between requests, every hop then pays for waking a
  sleeping process (on the reference machine, a virtual one, the hot floor is ~1.1 ms and
  the paced one ~2.9 ms, measured alike with a gap of 20 ms or of 100 ms).  A paced command
  pays that too, so comparing it with the hot floor would blame the server for the idle
  machine; ``bench stack --think-ms`` reports its ratio against the paced floor and also
  gives the hot one.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from types import TracebackType

import grpc
import nats
from grpc_health.v1 import health_pb2, health_pb2_grpc
from nats.aio.client import Client as NatsClient
from nats.js.api import StorageType, StreamConfig

from frontier.engine.rng import seed_state
from frontier.ops.stack import StackConfig
from frontier.play.load import think_time
from frontier.runtime.tls import aio_channel

HOT_SAMPLES = 300
STREAM = "FRONTIER_BENCH_FLOOR"
SUBJECT = "frontier.bench.floor"
PAYLOAD = b"x" * 512  # about one command's batch


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
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._channel is not None:
            await self._channel.close()
        if self._nc is not None:
            await self._js.delete_stream(STREAM)
            await self._nc.close()

    async def sample(self) -> float:
        """One floor, in ms."""
        started = time.perf_counter()
        await self._health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)  # type: ignore[attr-defined]
        await self._js.publish(SUBJECT, PAYLOAD)
        return (time.perf_counter() - started) * 1000


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
                timings.append(await probe.sample())
    return timings
