"""Whether this orchestrator can write its event stream, told honestly and healed by itself.

Why: with the JetStream store full (or JetStream disabled, or a cluster without quorum)
NATS still answers reads and the gRPC servers still run, so a health check that only asks
"is the process up" says SERVING while every command waits out the JetStream timeout.
:class:`WritePath` is the one place that knows better:

* a JetStream write that fails (a batch's publish, or the probe) marks the path **down**:
  the health status :data:`WRITE_HEALTH` turns NOT_SERVING, the gauge
  ``frontier_write_path_up`` drops to 0, and ONE warning line says why (never one per
  failure; ``frontier_write_path_failures_total{reason}`` counts each);
* while it is down, new commands and match creations fail at once with UNAVAILABLE and the
  reason ``WRITE_PATH_DOWN`` instead of each waiting for NATS;
* a probe (one tiny message to a probe stream in the same JetStream store, see
  :meth:`frontier.runtime.bus.Bus.probe_write`) runs every ``interval_s`` while up and every
  ``down_interval_s`` while down; the first one that is stored brings the path back **up**
  (health SERVING, gauge 1, one info line) with no restart of anything;
* only a write *begun* while the path is down can bring it up (:meth:`WritePath.begin`): a
  write begun before was already in flight when another one failed, and a nearly full store
  may still take it (a probe's tiny message fits in the last page while a batch does not),
  so its success says nothing of the store now and would only make the path flap.

Reads are not affected: the overall health ("" and the MatchService entry) stays SERVING,
since views, lists and replays still work and a readiness probe must not take every
replica of the orchestrator out of its Service because their shared store is full.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import grpc
import nats.errors
from grpc_health.v1 import health, health_pb2
from nats.js.errors import APIError, NoStreamResponseError, ServiceUnavailableError

from frontier.runtime.errors import ServiceError
from frontier.runtime.metrics import WRITE_PATH_FAILURES, WRITE_PATH_UP

log = logging.getLogger("frontier.write_path")

# The grpc.health.v1 service name whose status is the write path's (see the module).
WRITE_HEALTH = "frontier.v1.MatchService.writes"

# What JetStream answers when its store cannot take a message (server or account limit).
INSUFFICIENT_RESOURCES = 10023

HINTS = {
    "storage_full": "JetStream's store is full (insufficient resources)",
    "no_answer": (
        "JetStream did not answer a write in time (a full store disk shows this way: "
        "nats-server logs 'no space left on device'; so do a stalled server and a cluster "
        "without quorum)"
    ),
    "jetstream_unavailable": "JetStream answered 'service unavailable' (no quorum or leader)",
    "jetstream_disabled": "nobody serves JetStream (disabled, or no stream leader)",
    "disconnected": "the connection to NATS is lost",
    "refused": "JetStream refused the write",
    "other": "the write failed",
}


def failure_reason(exc: BaseException) -> str:
    """The ``reason`` label of a failed JetStream write (a key of :data:`HINTS`)."""
    if isinstance(exc, ServiceUnavailableError):
        if exc.err_code == INSUFFICIENT_RESOURCES:
            return "storage_full"
        return "jetstream_unavailable"
    if isinstance(exc, (nats.errors.NoRespondersError, NoStreamResponseError)):
        return "jetstream_disabled"
    if isinstance(exc, TimeoutError):  # nats.errors.TimeoutError and asyncio's
        return "no_answer"
    if isinstance(
        exc,
        (
            ConnectionError,
            nats.errors.ConnectionClosedError,
            nats.errors.ConnectionReconnectingError,
            nats.errors.NoServersError,
            nats.errors.StaleConnectionError,
        ),
    ):
        return "disconnected"
    if isinstance(exc, APIError):
        return "refused"
    return "other"


class WritePath:
    """The write path's state (see the module).  Without a ``probe`` (tests of other
    things) it is up until a write fails and never comes back by itself."""

    def __init__(
        self,
        probe: Callable[[], Awaitable[None]] | None = None,
        interval_s: float = 2.0,
        down_interval_s: float = 0.5,
    ) -> None:
        self.probe = probe
        self.interval_s = interval_s
        self.down_interval_s = down_interval_s
        self.up = True
        self.reason = ""  # why it is down (a key of HINTS); "" while up
        self.downs = 0  # times the path went down (see begin)
        self._health: health.aio.HealthServicer | None = None
        WRITE_PATH_UP.set(1)

    async def attach(self, servicer: health.aio.HealthServicer) -> None:
        """Report through ``servicer`` from now on (the server's health service)."""
        self._health = servicer
        await self._report()

    def check(self) -> None:
        """Refuse a write at once while the path is down (UNAVAILABLE, WRITE_PATH_DOWN)."""
        if not self.up:
            raise ServiceError(
                grpc.StatusCode.UNAVAILABLE,
                f"the server cannot write to its event store now: {HINTS[self.reason]}; "
                "nothing was changed: retry later with the same command id",
                "WRITE_PATH_DOWN",
            )

    def begin(self) -> int:
        """A JetStream write starts: hand the result to :meth:`succeeded` once it is stored."""
        return self.downs

    async def failed(self, exc: BaseException) -> None:
        """A JetStream write failed with ``exc``: counted, and the path is down."""
        reason = failure_reason(exc)
        WRITE_PATH_FAILURES.labels(reason).inc()
        if not self.up:
            return
        self.up, self.reason = False, reason
        self.downs += 1
        WRITE_PATH_UP.set(0)
        log.warning(
            "write path DOWN: %s (%s: %s); commands answer UNAVAILABLE WRITE_PATH_DOWN and a "
            "probe write runs every %g s until one is stored (see 'Write path down' in the "
            "operations runbook)",
            HINTS[reason],
            type(exc).__name__,
            exc,
            self.down_interval_s,
        )
        await self._report()

    async def succeeded(self, begun: int) -> None:
        """A JetStream write begun at ``begun`` (:meth:`begin`) was stored: the path is up
        (logged once, on the change), unless the write began before the path went down."""
        if self.up or begun != self.downs:
            return
        log.warning("write path UP again: a write was stored (it was down: %s)", self.reason)
        self.up, self.reason = True, ""
        WRITE_PATH_UP.set(1)
        await self._report()

    async def run(self) -> None:
        """Probe for as long as the server lives (a task of the orchestrator's); the first
        probe runs at once, so that the probe stream exists before the store can fill."""
        if self.probe is None:
            return
        while True:
            begun = self.begin()
            try:
                await self.probe()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                await self.failed(exc)
            else:
                await self.succeeded(begun)
            await asyncio.sleep(self.interval_s if self.up else self.down_interval_s)

    async def _report(self) -> None:
        if self._health is None:
            return
        status = health_pb2.HealthCheckResponse
        await self._health.set(WRITE_HEALTH, status.SERVING if self.up else status.NOT_SERVING)
