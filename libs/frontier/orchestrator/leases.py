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
matches expires at most one lifetime later.  A
process that could not renew its heartbeat for a whole lifetime (NATS away, a long pause)
may have lost matches to another one: its next heartbeat checks each lease it held and
reports the lost ones (:meth:`Leases.heartbeat`), as the per-match renewal did; meanwhile
JetStream's expected-last-subject-sequence refuses its writes to them anyway.
"""

from __future__ import annotations

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
    ) -> None:
        """``clock``: unix time now (expiries are stored as unix times, compared across
        processes); a test passes its own to move time without waiting."""
        self.kv = kv
        self.owner = owner
        self.address = address
        self.ttl_s = ttl_s
        self.held: dict[str, int] = {}  # match id -> revision of our lease entry
        self._beat_ok = 0.0  # when our heartbeat was last stored (unix time; 0: never)
        self._clock = clock

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
        which outlives the next heartbeat).  After a gap longer than a lifetime, another
        orchestrator may have taken some of our matches over: each is checked then.  The
        first heartbeat counts as such a gap (nothing renewed the leases before it, so a
        stall after the first acquire may have cost one)."""
        if not self.held:
            return []
        now = self._clock()
        stale = now - self._beat_ok >= self.ttl_s
        await self.kv.put(heartbeat_key(self.owner), self._value(now))
        self._beat_ok = now
        if not stale:
            return []
        lost = []
        for match_id in list(self.held):
            current = await self.get(match_id)
            if current is None or current.owner != self.owner:
                self.held.pop(match_id, None)
                lost.append(match_id)
        return lost

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
        if current is not None and current.owner != self.owner:
            LEASE_TAKEOVERS.inc()
        return Lease(match_id, self.owner, self.address, now + self.ttl_s, revision)

    def _predecessor(self, lease: Lease) -> bool:
        """A lease of an earlier process at our own address: that process is gone (we
        listen there now, and servers do not share ports), so waiting for expiry is moot."""
        return lease.address == self.address

    async def release(self, match_id: str) -> None:
        revision = self.held.pop(match_id, None)
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
