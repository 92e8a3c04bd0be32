"""The committed events each domain service's replicas still lack, per hosted match.

Domain services do not follow the event stream (see :mod:`frontier.domain.projection`):
each request brings, in ``DomainContext.committed_tail``, the batches committed since the
oldest version at which a replica of that service answered for the match.  The reply names
its replica (``DomainEvents.replica``), which then holds the match at the request's base
version.  With several replicas behind one address each one's position is known once it has
answered, so the tail covers all of them; a replica not heard from yet (just started, or
after this orchestrator loaded the match) gets what is kept and reads the rest from the
stream itself, as a lagging one always could.

At most ``MAX_EVENTS`` committed events are kept per match: a replica further behind reads
the stream, and the memory a match holds stays bounded.  The bound is about a whole
match's worth: combat and crafting are called for a few commands in a hundred, and with a
shorter tail they lagged beyond it on most calls and read batches back from the stream,
each catch-up a consumer of its own that costs the service and nats-server far more than a
batch merged into the request.  Kept as bytes, an event costs little resident memory, and a
short match keeps only what it committed.  Scoring follows the stream (its scoreboard
counts every match), so what it lacks never holds batches back; and a finished match keeps
none (the commit path forgets them: no domain is asked about it again).

A batch is kept as bytes: the wire form of a ``DomainContext`` holding only its envelopes
in ``committed_tail``.  Protobuf appends repeated fields when it merges, so a request's
context gets its tail by merging the kept batches' bytes, in order
(:meth:`Tails.merge_into`).  Keeping the envelope messages instead would keep, for each
batch, the whole published ``EventBatch`` they belong to (a protobuf sub-message holds its
parent's arena: the command, the decision record) plus a Python object per envelope, many
times the memory of the bytes (docs/performance.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from frontier.engine.domains import Domain
from frontier.v1 import domain_pb2, events_pb2

MAX_EVENTS = 384
FOLLOWERS = frozenset({Domain.SCORING})  # domains that follow the stream themselves


@dataclass(frozen=True, slots=True)
class KeptBatch:
    """One committed batch, as the bytes of ``DomainContext(committed_tail=its envelopes)``."""

    first: int  # its first and last seq
    last: int
    events: int
    wire: bytes

    @classmethod
    def of(cls, envelopes: Sequence[events_pb2.EventEnvelope]) -> KeptBatch:
        wire = domain_pb2.DomainContext(committed_tail=envelopes).SerializeToString()
        return cls(envelopes[0].seq, envelopes[-1].seq, len(envelopes), wire)


@dataclass(slots=True)
class Tails:
    # the last committed batches, oldest first, at most MAX_EVENTS events
    batches: deque[KeptBatch] = field(default_factory=deque)
    events: int = 0
    # per domain: replica id -> the version it answered at
    answered: dict[Domain, dict[str, int]] = field(default_factory=dict)

    def committed(self, envelopes: Sequence[events_pb2.EventEnvelope]) -> None:
        """A batch was committed: keep it, and forget what every replica already holds."""
        if not envelopes:
            return
        self.batches.append(KeptBatch.of(envelopes))
        self.events += len(envelopes)
        floor = self._oldest_needed()
        while self.batches and (self.events > MAX_EVENTS or self.batches[0].last <= floor):
            self.events -= self.batches.popleft().events

    def tail(self, domain: Domain, version: int) -> bytes:
        """The committed events up to ``version`` that ``domain``'s replicas may lack, as
        the wire form of a ``DomainContext`` holding only them (b"": none)."""
        known = self.answered.get(domain)
        since = min(known.values()) if known else 0
        # newest first, stopping at the first batch the replicas hold: a domain called on
        # most commands (map) lacks the last batch or two of dozens kept
        lacking: list[bytes] = []
        for kept in reversed(self.batches):
            if kept.last <= since:
                break
            if kept.first <= version:
                lacking.append(kept.wire)
        lacking.reverse()
        return b"".join(lacking)

    def merge_into(
        self, context: domain_pb2.DomainContext, domain: Domain, version: int
    ) -> domain_pb2.DomainContext:
        """``context`` with :meth:`tail` appended to its ``committed_tail``."""
        tail = self.tail(domain, version)
        if tail:
            context.MergeFromString(tail)
        return context

    def from_start(self, domain: Domain, version: int) -> bool:
        """Whether no replica of ``domain`` has answered for the match yet and what is kept
        reaches back to its first batch (or nothing was committed: ``version`` 0): the
        request can then bring the match's start (``DomainContext.start``), from which and
        the tail a service with no projection of the match builds one without reading NATS.
        Not after a restart of this orchestrator (it kept nothing of what came before its
        snapshot), nor once more than ``MAX_EVENTS`` events were committed."""
        if self.answered.get(domain):
            return False
        if not self.batches:
            return version == 0
        return self.batches[0].first == 1

    def heard(self, domain: Domain, replica: str, version: int) -> None:
        """``replica`` of ``domain`` answered a request at ``version``."""
        if replica:
            known = self.answered.setdefault(domain, {})
            known[replica] = max(known.get(replica, 0), version)

    def forget(self) -> None:
        """The match is over: nothing will be asked about it again."""
        self.batches.clear()
        self.events = 0

    def _oldest_needed(self) -> int:
        """The oldest version some known replica of a domain not following the stream is at
        (0: keep all: a domain not heard from yet needs everything)."""
        versions = [min(known.values()) for d, known in self.answered.items() if d not in FOLLOWERS]
        if len(versions) < len(Domain) - len(FOLLOWERS):
            return 0
        return min(versions)
