"""The batches an orchestrator keeps for the domain services' replicas (orchestrator/tails)."""

from __future__ import annotations

from frontier.engine.domains import Domain
from frontier.orchestrator.tails import MAX_EVENTS, Tails
from frontier.v1 import domain_pb2, events_pb2


def batch(first: int, size: int) -> list[events_pb2.EventEnvelope]:
    return [events_pb2.EventEnvelope(seq=s, state_version=s) for s in range(first, first + size)]


def seqs(tail: bytes) -> list[int]:
    return [e.seq for e in domain_pb2.DomainContext.FromString(tail).committed_tail]


def kept(tails: Tails) -> list[list[int]]:
    return [seqs(b.wire) for b in tails.batches]


def test_each_domain_gets_every_batch_since_its_oldest_replica() -> None:
    tails = Tails()
    for first in (1, 3, 6):  # batches 1-2, 3-5, 6-7
        tails.committed(batch(first, 2 if first != 3 else 3))
    assert seqs(tails.tail(Domain.MAP, 7)) == list(range(1, 8))  # nobody heard: everything
    tails.heard(Domain.MAP, "r1", 5)
    assert seqs(tails.tail(Domain.MAP, 7)) == [6, 7]
    tails.heard(Domain.MAP, "r2", 2)  # a second replica, further behind
    assert seqs(tails.tail(Domain.MAP, 7)) == [3, 4, 5, 6, 7]
    tails.heard(Domain.MAP, "r2", 7)
    assert seqs(tails.tail(Domain.MAP, 7)) == [6, 7]  # r1 (at 5) still lacks 6 and 7
    assert seqs(tails.tail(Domain.COMBAT, 7)) == list(range(1, 8))
    tails.heard(Domain.MAP, "", 7)  # an answer without a replica id changes nothing
    assert seqs(tails.tail(Domain.MAP, 7)) == [6, 7]


def test_batches_every_replica_holds_are_forgotten() -> None:
    tails = Tails()
    tails.committed(batch(1, 2))
    tails.committed(batch(3, 2))
    for domain in Domain:
        tails.heard(domain, "r", 2)
    tails.committed(batch(5, 1))
    assert kept(tails) == [[3, 4], [5]]
    assert tails.events == 3
    tails.forget()
    assert not tails.batches and tails.events == 0


def test_scoring_which_follows_the_stream_holds_nothing_back() -> None:
    tails = Tails()
    tails.committed(batch(1, 2))
    for domain in Domain:
        if domain is not Domain.SCORING:
            tails.heard(domain, "r", 2)
    tails.committed(batch(3, 1))
    assert kept(tails) == [[3]]


def test_at_most_max_events_are_kept() -> None:
    tails = Tails()
    firsts = range(1, 2 * MAX_EVENTS, 10)
    for first in firsts:
        tails.committed(batch(first, 10))
    last = firsts[-1] + 9
    assert MAX_EVENTS - 10 < tails.events <= MAX_EVENTS
    kept = seqs(tails.tail(Domain.MAP, last))
    assert kept == list(range(last - tails.events + 1, last + 1))  # the newest, in order


def test_the_tail_is_appended_to_a_requests_context_as_the_envelopes_were() -> None:
    tails = Tails()
    sent = [events_pb2.EventEnvelope(match_id="m", seq=s, state_version=s) for s in (1, 2, 3)]
    tails.committed(sent[:2])
    tails.committed(sent[2:])
    context = domain_pb2.DomainContext(match_id="m", base_version=3)
    merged = tails.merge_into(context, Domain.MAP, 3)
    assert merged is context and list(context.committed_tail) == sent
    assert context.match_id == "m" and context.base_version == 3
    tails.heard(Domain.MAP, "r", 3)
    untouched = domain_pb2.DomainContext(match_id="m")
    assert not tails.merge_into(untouched, Domain.MAP, 3).committed_tail


def test_the_tail_is_every_kept_batch_after_since_and_up_to_version_in_order() -> None:
    """Tails.tail walks the kept batches newest first and stops at the first one every
    replica holds: the same batches, in order, as filtering all of them."""
    import random

    from frontier.engine.domains import Domain
    from frontier.orchestrator.tails import Tails
    from frontier.v1 import events_pb2

    pick = random.Random(3)
    tails = Tails()
    seq = 0
    for _ in range(30):
        size = pick.randint(1, 6)
        tails.committed(
            [events_pb2.EventEnvelope(match_id="m", seq=seq + i + 1) for i in range(size)]
        )
        seq += size
    kept = list(tails.batches)
    for _ in range(200):
        since, version = pick.randint(0, seq + 2), pick.randint(0, seq + 2)
        tails.answered = {Domain.MAP: {"r1": since, "r2": since + pick.randint(0, 5)}}
        expected = b"".join(k.wire for k in kept if k.last > since and k.first <= version)
        assert tails.tail(Domain.MAP, version) == expected


def test_a_request_brings_the_match_start_until_a_replica_answered_while_all_is_kept() -> None:
    tails = Tails()
    assert tails.from_start(Domain.COMBAT, 0)  # nothing committed yet
    assert not tails.from_start(Domain.COMBAT, 5)  # loaded after a restart: nothing kept
    tails.committed(batch(1, 2))
    tails.committed(batch(3, 3))
    assert tails.from_start(Domain.COMBAT, 5)  # everything from the first batch is kept
    tails.heard(Domain.COMBAT, "r1", 5)
    assert not tails.from_start(Domain.COMBAT, 5)  # a replica holds the match now
    assert tails.from_start(Domain.CRAFTING, 5)  # another domain still needs it
    while tails.batches[0].first == 1:  # past MAX_EVENTS the first batches are dropped
        tails.committed(batch(tails.batches[-1].last + 1, 8))
    assert not tails.from_start(Domain.CRAFTING, tails.batches[-1].last)
