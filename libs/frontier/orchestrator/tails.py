"""The committed events each domain service's replicas still lack, per hosted match.

Domain services do not follow the event stream (see :mod:`frontier.runtime.projection`):
each request brings, in ``DomainContext.committed_tail``, the batches committed since the
oldest version at which a replica of that service answered for the match.  The reply names
its replica (``DomainEvents.replica``), which then holds the match at the request's base
version.  With several replicas behind one address each one's position is known once it has
answered, so the tail covers all of them; a replica not heard from yet (just started, or
after this orchestrator loaded the match) gets what is kept and reads the rest from the
stream itself, as a lagging one always could.

At most ``MAX_EVENTS`` committed events are kept per match: a replica further behind reads
the stream, which is rare (every domain is called at least once a round or so), and the
memory a match holds stays bounded.  Scoring follows the stream (its scoreboard counts every
match), so what it lacks never holds batches back; and a finished match keeps none (the
commit path forgets them: no domain is asked about it again).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from frontier.engine.domains import Domain
from frontier.v1 import events_pb2

MAX_EVENTS = 128
FOLLOWERS = frozenset({Domain.SCORING})  # domains that follow the stream themselves


@dataclass(slots=True)
class Tails:
    # the last committed batches' envelopes, oldest first, at most MAX_EVENTS events
    batches: deque[Sequence[events_pb2.EventEnvelope]] = field(default_factory=deque)
    events: int = 0
    # per domain: replica id -> the version it answered at
    answered: dict[Domain, dict[str, int]] = field(default_factory=dict)

    def committed(self, envelopes: Sequence[events_pb2.EventEnvelope]) -> None:
        """A batch was committed: keep it, and forget what every replica already holds."""
        if not envelopes:
            return
        self.batches.append(envelopes)
        self.events += len(envelopes)
        floor = self._oldest_needed()
        while self.batches and (self.events > MAX_EVENTS or self.batches[0][-1].seq <= floor):
            self.events -= len(self.batches.popleft())

    def tail(self, domain: Domain, version: int) -> list[events_pb2.EventEnvelope]:
        """The committed events up to ``version`` that ``domain``'s replicas may lack."""
        known = self.answered.get(domain)
        since = min(known.values()) if known else 0
        out: list[events_pb2.EventEnvelope] = []
        for envelopes in self.batches:
            if envelopes[-1].seq > since and envelopes[0].seq <= version:
                out.extend(envelopes)
        return out

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
