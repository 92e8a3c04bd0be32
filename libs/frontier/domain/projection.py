"""Per-match projections kept by the stateless domain services.

A service folds each match's committed batches with the engine's ``evolve``.  They come
with the requests: the orchestrator sends, in ``committed_tail``, every batch since the
version at which a replica of this service last answered for the match (it learns which
replica from ``DomainEvents.replica``), so a service called for one command in twenty gets
the nineteen it missed with the twentieth, and does no work for the others.  Following
every batch on NATS instead would cost every service CPU for each batch, mostly for batches
it is never asked about; only scoring follows (its scoreboard counts every match, so it
must see every batch anyway).  A request names the version it expects: a projection that
lags by more than the tail (a replica the orchestrator has not heard from, a restart) waits
briefly for NATS when it follows, then catches up from JetStream; one that is ahead means
the caller is stale (ABORTED).

A new match costs a service nothing until it is first asked about it: until a replica of
the service has answered for the match, the orchestrator's requests bring the match's
start (``DomainContext.start``: its configuration, secret seed included) and every batch
from the first on, from which the projection is built on the spot, reading nothing from
NATS.  Starting every projection when the lobby announces the match would cost each
service a read of the match's record per new match: with many matches created at once
that keeps every service busy, and each match's first command waits behind those reads.
A service that follows the stream (scoring) still starts the projection when the lobby
announces the match (or, missing that, when its first batch goes by), as the batches it
follows need it; so does one whose request brings no start (another replica answered
already, the orchestrator restarted since, or the match is past what the orchestrator
keeps): it reads the match's snapshot and stream then.
A finished match's projection is dropped, once the lobby says it ended (nothing asks about
it any more; if something does, it is rebuilt), and after a restart a projection is rebuilt
from the match's snapshot and stream on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import grpc

from frontier.engine.state import State
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError, not_found
from frontier.runtime.failure_log import FailureLog
from frontier.runtime.metrics import CATCH_UPS, PROJECTION_STARTS
from frontier.store.matches import (
    apply_batch,
    apply_envelopes,
    load_match,
    new_match_state,
    new_state_from,
)
from frontier.v1 import domain_pb2, events_pb2

log = logging.getLogger("frontier.projection")

FROM_REQUEST = PROJECTION_STARTS.labels("request")
FROM_RECORD = PROJECTION_STARTS.labels("record")
FROM_STREAM = PROJECTION_STARTS.labels("stream")


@dataclass(slots=True)
class Projection:
    state: State
    stream_seq: int
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Projections:
    def __init__(self, bus: Bus, wait_s: float, follows: bool = True) -> None:
        """``follows``: the service follows every batch on NATS (scoring), so it starts a
        projection when the lobby announces its match, and a lagging request waits up to
        ``wait_s`` for NATS; else the first request brings the start, and nothing would
        arrive while waiting: a lagging request reads the stream at once."""
        self.bus = bus
        self.wait_s = wait_s if follows else 0.0
        self.follows = follows
        self._by_match: dict[str, Projection] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._warming: set[asyncio.Task[Projection]] = set()
        self._failures = FailureLog(log)  # one line per outage, not one per match
        # asks the stream follower for its next round now (follow.py), for a request that
        # waits for a batch; set once the follower runs
        self.wake: Callable[[], None] | None = None

    async def on_batch(self, stream_seq: int, batch: events_pb2.EventBatch) -> None:
        if batch.abandoned:  # the match ended unplayed: nothing will ask for it again
            self._by_match.pop(batch.match_id, None)
        if not batch.envelopes:
            return
        first = batch.envelopes[0].seq
        p = self._by_match.get(batch.match_id)
        if p is None:
            if first == 1:  # a new match
                self._warm(batch.match_id)
            return
        if first > p.state.version + 1:
            return  # a gap: the next request catches up from the stream
        async with p.changed:
            if batch.envelopes[-1].seq > p.state.version:
                apply_batch(p.state, batch)
                p.stream_seq = stream_seq
            p.changed.notify_all()
        if p.state.over:
            self._by_match.pop(batch.match_id, None)

    def on_lobby(self, notice: dict[str, object]) -> None:
        """A match was created: build its projection now, before its first command.  A
        match ended (finished or abandoned): drop it, as nothing will ask about it again
        (the last command's batch never reaches a service that does not follow NATS)."""
        match_id = notice.get("match_id")
        if not isinstance(match_id, str):
            return
        event = notice.get("event")
        if event == "created" and self.follows and match_id not in self._by_match:
            self._warm(match_id, fresh=True)
        elif event == "ended":
            self._by_match.pop(match_id, None)

    def _warm(self, match_id: str, fresh: bool = False) -> None:
        """Build the projection in the background (the NATS callback must not wait);
        ``fresh``: the match was just created, so there is nothing to read but its record."""
        task = asyncio.ensure_future(self._get(match_id, fresh))
        self._warming.add(task)
        task.add_done_callback(self._warmed)

    def _warmed(self, task: asyncio.Task[Projection]) -> None:
        self._warming.discard(task)
        if task.cancelled():
            return
        failure = task.exception()
        if failure is not None:
            # the first request builds it again, and reports the error if it persists
            self._failures.failed("warm", "starting a projection", failure)
        else:
            self._failures.recovered("warm", "starting a projection")

    async def _get(self, match_id: str, fresh: bool = False) -> Projection:
        p = self._by_match.get(match_id)
        if p is not None:
            return p
        lock = self._loading.setdefault(match_id, asyncio.Lock())
        try:
            async with lock:
                p = self._by_match.get(match_id)
                if p is None:
                    p = await self._load(match_id, fresh)
                    if not p.state.over:  # a finished match is not kept (see above)
                        self._by_match[match_id] = p
        finally:
            if not lock.locked() and self._loading.get(match_id) is lock:
                del self._loading[match_id]
        return p

    async def _load(self, match_id: str, fresh: bool) -> Projection:
        if fresh:
            state = await new_match_state(self.bus, match_id)
            if state is None:
                raise not_found(match_id)
            FROM_RECORD.inc()
            return Projection(state, 0)
        loaded = await load_match(self.bus, match_id)
        if loaded is None:
            raise not_found(match_id)
        FROM_STREAM.inc()
        return Projection(loaded.state, loaded.stream_seq)

    async def at(
        self,
        match_id: str,
        version: int,
        tail: Sequence[events_pb2.EventEnvelope] = (),
        tail_stream_seq: int = 0,
        start: domain_pb2.MatchStart | None = None,
    ) -> State:
        """The committed state of ``match_id`` at exactly ``version`` (do not mutate it).

        ``tail`` holds the caller's last committed events: when this projection lags by no
        more than that, it applies them at once rather than waiting for NATS.  ``start``
        (with a tail from the match's first batch) starts a projection not held yet.
        """
        now = self.at_now(match_id, version, tail, tail_stream_seq, start)
        if now is not None:
            return now
        p = await self._get(match_id)
        if tail and p.state.version < version and tail[0].seq <= p.state.version + 1:
            async with p.changed:
                if tail[0].seq <= p.state.version + 1 <= tail[-1].seq:
                    _apply_tail(p, tail, tail_stream_seq)
                p.changed.notify_all()
        if p.state.version < version and self.wait_s > 0:
            if self.wake is not None:
                self.wake()
            async with p.changed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        p.changed.wait_for(lambda: p.state.version >= version), self.wait_s
                    )
        if p.state.version < version:
            CATCH_UPS.inc()
            async with p.changed:
                batches = self.bus.batches_after(match_id, p.stream_seq)
                async with contextlib.aclosing(batches):
                    async for stored in batches:
                        apply_batch(p.state, stored.batch)
                        p.stream_seq = stored.stream_seq
                        if p.state.version >= version:
                            break
                p.changed.notify_all()
        return self._exactly(match_id, p, version)

    def at_now(
        self,
        match_id: str,
        version: int,
        tail: Sequence[events_pb2.EventEnvelope] = (),
        tail_stream_seq: int = 0,
        start: domain_pb2.MatchStart | None = None,
    ) -> State | None:
        """What :meth:`at` returns, when it can be had without waiting; None when it cannot
        (the projection is not loaded and the request cannot start it, a catch-up holds it,
        or it lags beyond the tail), and then nothing is changed.  Most calls find their
        projection at most a tail behind: answering them synchronously spares the call a
        task and a loop iteration of its own (see call_service.py)."""
        p = self._by_match.get(match_id)
        if p is None:
            p = self._started(match_id, version, tail, tail_stream_seq, start)
            return None if p is None else self._exactly(match_id, p, version)
        if p.changed.locked():
            return None
        have = p.state.version
        if have < version:
            if not tail or not tail[0].seq <= have + 1 <= tail[-1].seq or tail[-1].seq < version:
                return None  # beyond the tail: the caller waits or catches up
            if self.wait_s > 0:
                return None  # a request may be waiting for this version: at() notifies it
            _apply_tail(p, tail, tail_stream_seq)
        return self._exactly(match_id, p, version)

    def _started(
        self,
        match_id: str,
        version: int,
        tail: Sequence[events_pb2.EventEnvelope],
        tail_stream_seq: int,
        start: domain_pb2.MatchStart | None,
    ) -> Projection | None:
        """The projection the request starts, from ``start`` and a ``tail`` holding every
        batch from the match's first to ``version``; None (nothing changed) without a start,
        with a tail that does not reach back to the first batch, or while the projection is
        being loaded from NATS."""
        if start is None or match_id in self._loading:
            return None
        if tail:
            if tail[0].seq != 1 or tail[-1].seq != version:
                return None
        elif version != 0:
            return None
        state = new_state_from(start)
        apply_envelopes(state, tail)
        FROM_REQUEST.inc()
        p = Projection(state, tail_stream_seq if tail else 0)
        if not state.over:
            self._by_match[match_id] = p
        return p

    def _exactly(self, match_id: str, p: Projection, version: int) -> State:
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
        if p.state.over and self._by_match.get(match_id) is p:
            del self._by_match[match_id]  # as on_batch does: nothing asks about it again
        return p.state

    def known(self) -> dict[str, State]:
        return {m: p.state for m, p in self._by_match.items()}


def _apply_tail(p: Projection, tail: Sequence[events_pb2.EventEnvelope], stream_seq: int) -> None:
    apply_envelopes(p.state, tail)
    p.stream_seq = max(p.stream_seq, stream_seq)
