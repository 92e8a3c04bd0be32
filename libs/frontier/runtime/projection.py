"""Per-match projections kept by the stateless domain services.

Each service follows every match's committed batches on NATS (an ordered JetStream
consumer) and folds them with the engine's ``evolve``.  A request names the version it
expects: a projection that lags waits briefly for NATS, then catches up from JetStream; one
that is ahead means the caller is stale (ABORTED).  After a restart a projection is rebuilt
lazily from the match's snapshot and stream on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import grpc

from frontier.engine.state import State
from frontier.v1 import events_pb2

from .bus import Bus
from .errors import ServiceError, not_found
from .matches import apply_batch, load_match

log = logging.getLogger("frontier.projection")


@dataclass(slots=True)
class Projection:
    state: State
    stream_seq: int
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Projections:
    def __init__(self, bus: Bus, wait_s: float) -> None:
        self.bus = bus
        self.wait_s = wait_s
        self._by_match: dict[str, Projection] = {}
        self._loading: dict[str, asyncio.Lock] = {}

    async def on_batch(self, stream_seq: int, batch: events_pb2.EventBatch) -> None:
        p = self._by_match.get(batch.match_id)
        if p is None or not batch.envelopes:
            return
        first = batch.envelopes[0].seq
        if first > p.state.version + 1:
            return  # a gap: the next request catches up from the stream
        async with p.changed:
            if batch.envelopes[-1].seq > p.state.version:
                apply_batch(p.state, batch)
                p.stream_seq = stream_seq
            p.changed.notify_all()

    async def _get(self, match_id: str) -> Projection:
        p = self._by_match.get(match_id)
        if p is not None:
            return p
        lock = self._loading.setdefault(match_id, asyncio.Lock())
        async with lock:
            p = self._by_match.get(match_id)
            if p is None:
                loaded = await load_match(self.bus, match_id)
                if loaded is None:
                    raise not_found(match_id)
                p = Projection(loaded.state, loaded.stream_seq)
                self._by_match[match_id] = p
        return p

    async def at(
        self,
        match_id: str,
        version: int,
        tail: Sequence[events_pb2.EventEnvelope] = (),
        tail_stream_seq: int = 0,
    ) -> State:
        """The committed state of ``match_id`` at exactly ``version`` (do not mutate it).

        ``tail`` holds the caller's last committed events: when this projection lags by no
        more than that, it applies them at once rather than waiting for NATS.
        """
        p = await self._get(match_id)
        if tail and p.state.version < version and tail[0].seq <= p.state.version + 1:
            async with p.changed:
                if tail[0].seq <= p.state.version + 1 <= tail[-1].seq:
                    apply_batch(p.state, events_pb2.EventBatch(envelopes=tail))
                    p.stream_seq = max(p.stream_seq, tail_stream_seq)
                p.changed.notify_all()
        if p.state.version < version and self.wait_s > 0:
            async with p.changed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        p.changed.wait_for(lambda: p.state.version >= version), self.wait_s
                    )
        if p.state.version < version:
            async with p.changed:
                async for stored in self.bus.iter_batches(match_id, p.stream_seq):
                    apply_batch(p.state, stored.batch)
                    p.stream_seq = stored.stream_seq
                    if p.state.version >= version:
                        break
                p.changed.notify_all()
        if p.state.version < version:
            raise ServiceError(
                grpc.StatusCode.UNAVAILABLE,
                f"match {match_id} is at version {p.state.version} here, caller expects {version}",
            )
        if p.state.version > version:
            raise ServiceError(
                grpc.StatusCode.ABORTED,
                f"stale request: match {match_id} is already at version {p.state.version}",
            )
        return p.state

    def known(self) -> dict[str, State]:
        return {m: p.state for m, p in self._by_match.items()}
