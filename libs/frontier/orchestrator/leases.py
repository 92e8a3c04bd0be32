"""Match ownership among several orchestrators: one lease per match in a JetStream KV bucket.

Why leases: each match must have exactly one writer.  JetStream's expected-last-subject-
sequence already makes a second writer's publish *fail*, so two orchestrators can never
corrupt a match; the lease makes them *agree* on who serves it, so requests are routed to
the owner instead of failing.

A lease is the KV entry ``frontier-leases/<match id>`` holding the owner's id, its public
address and an expiry time.  It is taken with compare-and-set on the entry's revision
(``create`` when absent, ``update(last=revision)`` when expired), renewed while the owner
lives, and simply left to expire when it dies: another orchestrator then takes it over and
rebuilds the match from its snapshot and stream.
"""

from __future__ import annotations

import json
import time
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


class LeaseLost(Exception):
    """This orchestrator no longer owns the match (another took the lease)."""


class Leases:
    def __init__(self, kv: KeyValue, owner: str, address: str, ttl_s: float) -> None:
        self.kv = kv
        self.owner = owner
        self.address = address
        self.ttl_s = ttl_s
        self.held: dict[str, int] = {}  # match id -> revision of our lease entry

    def _value(self, now: float) -> bytes:
        record = {"owner": self.owner, "address": self.address, "expires": now + self.ttl_s}
        return json.dumps(record).encode()

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

    async def acquire(self, match_id: str) -> Lease | None:
        """Take the lease if it is free or expired; returns the current holder's lease.

        The returned lease is ours when ``lease.owner == self.owner``.
        """
        now = time.time()
        current = await self.get(match_id)
        try:
            if current is None:
                revision = await self.kv.create(match_id, self._value(now))
            elif (
                current.owner == self.owner or not current.alive(now) or self._predecessor(current)
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

    async def renew(self, match_id: str) -> None:
        """Extend our lease; raises LeaseLost if another orchestrator took it."""
        revision = self.held.get(match_id)
        if revision is None:
            raise LeaseLost(match_id)
        try:
            self.held[match_id] = await self.kv.update(
                match_id, self._value(time.time()), last=revision
            )
        except Exception as exc:
            if _lost_race(exc):
                self.held.pop(match_id, None)
                raise LeaseLost(match_id) from exc
            raise

    async def release(self, match_id: str) -> None:
        revision = self.held.pop(match_id, None)
        if revision is not None:
            try:
                await self.kv.delete(match_id, last=revision)
            except Exception as exc:
                if not _lost_race(exc):
                    raise


def _lost_race(exc: BaseException) -> bool:
    """A compare-and-set that failed because the entry changed (or appeared) meanwhile."""
    if isinstance(exc, KeyWrongLastSequenceError):
        return True
    text = str(exc).lower()
    return "wrong last sequence" in text or "key exists" in text or "10071" in text
