"""Match ownership among several orchestrators: one lease per match in a JetStream KV bucket.

Why leases: each match must have exactly one writer.  JetStream's expected-last-subject-
sequence already makes a second writer's publish *fail*, so two orchestrators can never
corrupt a match; the lease makes them *agree* on who serves it, so requests are routed to
the owner instead of failing.

A lease is the KV entry ``frontier-leases/<match id>`` holding the owner's id, its public
address and an expiry time.  It is taken with compare-and-set on the entry's revision
(``create`` when absent, ``update(last=revision)`` when expired), and left to expire when its
owner dies: another orchestrator then takes it over and rebuilds the match from its snapshot
and stream.

Renewal is per *process*, not per match: the owner keeps one heartbeat entry,
``frontier-leases/owner.<owner id>``, with its own expiry, and a match lease is alive while
either its own expiry or its owner's heartbeat is in the future.  So a process renews all
its matches with one (fsynced) KV write every third of the lifetime, whatever their number,
and an idle hosted match costs no CPU at all (a write per match would cost CPU for every
hosted match, all the time).  When the owner dies, its heartbeat stops, and every one of its
matches expires at most one lifetime later.

An owner trusts what it holds in memory only while nobody else can have taken its leases:
for a lifetime (less a safety margin, :data:`SAFETY`) from the start of its last heartbeat
write, or of the write that took or confirmed the match's own lease, by its *monotonic*
clock (:meth:`Leases.trusted`).  Past that (a pause such as SIGSTOP, NATS away, a starved
event loop) another orchestrator may have taken a match over and written to it, and the
owner's memory may be behind the stream: it answers nothing from memory until
:meth:`Leases.confirm` has rewritten the match's lease with compare-and-set on the revision
it holds.  That write succeeds only if nobody took the lease meanwhile, and it also stops a
takeover already under way (whose compare-and-set then fails), so a confirmed match is again
safe for a lifetime.  The next heartbeat after such a gap confirms every lease it holds the
same way and reports the lost ones (:meth:`Leases.heartbeat`); meanwhile JetStream's
expected-last-subject-sequence refuses a stale owner's writes anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError
from nats.js.kv import KeyValue

from frontier.runtime.metrics import LEASE_TAKEOVERS


@dataclass(frozen=True, slots=True)
class Lease:
    match_id: str
    owner: str  # orchestrator instance id
    address: str  # where that orchestrator serves MatchService
    expires: float  # unix time
    revision: int

    def alive(self, now: float) -> bool:
        return self.expires > now


# The share of a lifetime an owner keeps in hand before it stops trusting its leases: room
# for clock drift between hosts (expiries are compared on other hosts' clocks) and for the
# time a heartbeat write takes to land.
SAFETY = 0.2

OWNER_PREFIX = "owner."  # heartbeat keys; match ids are 32 hex digits, so never clash


def heartbeat_key(owner: str) -> str:
    return OWNER_PREFIX + owner


class Leases:
    def __init__(
        self,
        kv: KeyValue,
        owner: str,
        address: str,
        ttl_s: float,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """``clock``: unix time now (expiries are stored as unix times, compared across
        processes); ``monotonic``: this process's own clock, which says how long ago a
        lease was last made safe (a wall-clock step must not make a stale owner trust its
        memory).  A test passes its own of each to move time without waiting."""
        self.kv = kv
        self.owner = owner
        self.address = address
        self.ttl_s = ttl_s
        self.held: dict[str, int] = {}  # match id -> revision of our lease entry
        self._clock = clock
        self._monotonic = monotonic
        # monotonic start of the last heartbeat write that kept every held lease safe
        # (-inf: none yet, so the first heartbeat confirms each lease)
        self._renewed = float("-inf")
        # match id -> monotonic start of the write that last took or confirmed its lease
        self._confirmed: dict[str, float] = {}
        self._confirming: dict[str, asyncio.Future[bool]] = {}

    @property
    def trust_s(self) -> float:
        """How long after a write started its lease is trusted: a lifetime less SAFETY."""
        return self.ttl_s * (1 - SAFETY)

    def trusted(self, match_id: str) -> bool:
        """Whether nobody else can have taken ``match_id``'s lease since we last made it
        safe, so what we hold of the match in memory is the whole truth.  False for a match
        we do not hold, and once a heartbeat is overdue (see the module docstring): then
        :meth:`confirm` before answering anything about the match."""
        if match_id not in self.held:
            return False
        since = max(self._renewed, self._confirmed.get(match_id, float("-inf")))
        return self._monotonic() - since < self.trust_s

    def _value(self, now: float) -> bytes:
        record = {"owner": self.owner, "address": self.address, "expires": now + self.ttl_s}
        return json.dumps(record).encode()

    async def _owner_alive(self, owner: str, now: float) -> bool:
        """Whether ``owner``'s heartbeat (and so every lease it holds) is still alive."""
        try:
            entry = await self.kv.get(heartbeat_key(owner))
        except (KeyNotFoundError, NotFoundError):
            return False
        if not entry.value:
            return False
        return float(json.loads(entry.value)["expires"]) > now

    async def heartbeat(self) -> list[str]:
        """Renew every lease we hold at once (one KV write); returns the matches found lost.

        Nothing is written while we hold nothing (a lease just taken carries its own expiry,
        which outlives the next heartbeat).  After a gap as long as the trusted part of a
        lifetime, another orchestrator may have taken some of our matches over: each not
        taken or confirmed since is confirmed (:meth:`confirm`) before the leases count as
        renewed again, so a failure midway leaves the next heartbeat confirming them all
        again.  The first heartbeat
        counts as such a gap (nothing renewed the leases before it, so a stall after the
        first acquire may have cost one)."""
        if not self.held:
            return []
        started = self._monotonic()
        await self.kv.put(heartbeat_key(self.owner), self._value(self._clock()))
        # measured once the write landed: a write that took long may land after the last
        # heartbeat expired, and somebody may have taken a lease over in that window
        gap = self._monotonic() - self._renewed >= self.trust_s
        lost = []
        if gap:
            for match_id in list(self.held):
                # one taken or confirmed within the trusted time is safe by its own expiry
                since = self._confirmed.get(match_id, float("-inf"))
                if self._monotonic() - since >= self.trust_s and not await self.confirm(match_id):
                    lost.append(match_id)
        self._renewed = started
        return lost

    async def confirm(self, match_id: str) -> bool:
        """Make sure ``match_id``'s lease is still ours: rewrite it (a fresh expiry) with
        compare-and-set on the revision we hold.  True: nobody took it, and nobody can for
        a lifetime; False: it was taken (or released) meanwhile, and we no longer hold it.
        Concurrent callers share one write (a second compare-and-set on the same revision
        would fail and read as a loss).  NATS failures propagate: nothing is known then."""
        pending = self._confirming.get(match_id)
        if pending is None:
            pending = asyncio.ensure_future(self._rewrite(match_id))
            self._confirming[match_id] = pending
            pending.add_done_callback(lambda done: self._confirmed_done(match_id, done))
        return await asyncio.shield(pending)

    def _confirmed_done(self, match_id: str, done: asyncio.Future[bool]) -> None:
        if self._confirming.get(match_id) is done:
            del self._confirming[match_id]
        if not done.cancelled():
            done.exception()  # retrieved: every caller may have given up waiting

    async def _rewrite(self, match_id: str) -> bool:
        revision = self.held.get(match_id)
        if revision is None:
            return False
        started = self._monotonic()
        try:
            new = await self.kv.update(match_id, self._value(self._clock()), last=revision)
        except Exception as exc:
            if not _lost_race(exc):
                raise
            if self.held.get(match_id) == revision:
                self.forget(match_id)
            return False
        if self.held.get(match_id) != revision:  # released meanwhile: it lapses by itself
            return False
        self.held[match_id] = new
        self._confirmed[match_id] = started
        return True

    def forget(self, match_id: str) -> None:
        """Stop holding ``match_id`` (dropped: another orchestrator writes it now)."""
        self.held.pop(match_id, None)
        self._confirmed.pop(match_id, None)

    async def get(self, match_id: str) -> Lease | None:
        try:
            entry = await self.kv.get(match_id)
        except (KeyNotFoundError, NotFoundError):
            return None
        if not entry.value:
            return None
        record = json.loads(entry.value)
        return Lease(
            match_id,
            str(record["owner"]),
            str(record["address"]),
            float(record["expires"]),
            int(entry.revision or 0),
        )

    async def acquire(self, match_id: str, new: bool = False) -> Lease | None:
        """Take the lease if it is free or expired; returns the current holder's lease.

        The returned lease is ours when ``lease.owner == self.owner``.  ``new``: the match
        was just created here, so no lease can exist yet: it is created without reading it
        first (one JetStream request fewer per created match; were one there after all, the
        create fails as a lost race would, and the holder's lease is read and returned).
        """
        now = self._clock()
        started = self._monotonic()  # the lease written below is safe from here on
        current = None if new else await self.get(match_id)
        try:
            if current is None:
                revision = await self.kv.create(match_id, self._value(now))
            elif (
                current.owner == self.owner
                or self._predecessor(current)
                or not (current.alive(now) or await self._owner_alive(current.owner, now))
            ):
                revision = await self.kv.update(match_id, self._value(now), last=current.revision)
            else:
                return current
        except Exception as exc:
            if not _lost_race(exc):
                raise
            return await self.get(match_id)  # somebody else won the race
        self.held[match_id] = revision
        self._confirmed[match_id] = started
        if current is not None and current.owner != self.owner:
            LEASE_TAKEOVERS.inc()
        return Lease(match_id, self.owner, self.address, now + self.ttl_s, revision)

    def _predecessor(self, lease: Lease) -> bool:
        """A lease of an earlier process at our own address: that process is gone (we
        listen there now, and servers do not share ports), so waiting for expiry is moot."""
        return lease.address == self.address

    async def release(self, match_id: str) -> None:
        revision = self.held.get(match_id)
        self.forget(match_id)
        if revision is not None:
            try:
                await self.kv.delete(match_id, last=revision)
            except Exception as exc:
                if not _lost_race(exc):
                    raise

    async def release_all(self) -> None:
        """On the way out: every lease, then the heartbeat, so others take over at once."""
        for match_id in list(self.held):
            with contextlib.suppress(Exception):
                await self.release(match_id)
        with contextlib.suppress(Exception):
            await self.kv.delete(heartbeat_key(self.owner))


def _lost_race(exc: BaseException) -> bool:
    """A compare-and-set that failed because the entry changed (or appeared) meanwhile."""
    if isinstance(exc, KeyWrongLastSequenceError):
        return True
    text = str(exc).lower()
    return "wrong last sequence" in text or "key exists" in text or "10071" in text
