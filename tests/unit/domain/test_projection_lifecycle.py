"""Domain projections: started by the first request that brings the match's start, or when
the lobby announces a match (or its first batch goes by), folded from batches, dropped when
the match ends -- against an in-memory bus."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, cast

import grpc
import pytest
from prometheus_client import REGISTRY

from frontier.domain.projection import Projections
from frontier.engine import initial_state, legal_commands, make_config, to_act
from frontier.engine.decide import execute
from frontier.runtime.bus import Bus, StoredBatch
from frontier.runtime.errors import ServiceError
from frontier.store.matches import apply_batch, match_start
from frontier.v1 import domain_pb2, events_pb2
from frontier.wire.convert import event_to_proto

LINEUP = "A=marquise;B=marquise"


class MemoryBus:
    """The three reads load_match makes, over a list of committed batches."""

    def __init__(self, match_id: str, seed: int) -> None:
        self.match_id = match_id
        self.record: dict[str, object] = {
            "config": make_config(seed=seed, lineup=LINEUP).model_dump()
        }
        self.batches: list[events_pb2.EventBatch] = []
        self.reads: list[str] = []  # what was read besides the record
        self.record_reads = 0

    async def get_match(self, match_id: str) -> dict[str, object] | None:
        self.record_reads += 1
        return self.record if match_id == self.match_id else None

    async def get_snapshot(self, match_id: str) -> bytes | None:
        self.reads.append("snapshot")
        return None

    async def iter_batches(self, match_id: str, after: int = 0) -> AsyncIterator[StoredBatch]:
        self.reads.append("stream")
        for seq, batch in enumerate(self.batches, start=1):
            if seq > after:
                yield StoredBatch(seq, batch)

    async def batches_after(self, match_id: str, after: int = 0) -> AsyncIterator[StoredBatch]:
        self.reads.append("catch-up")
        for seq, batch in enumerate(self.batches, start=1):
            if seq > after:
                yield StoredBatch(seq, batch)


def _play(seed: int) -> list[events_pb2.EventBatch]:
    """The committed batches of a whole random-choice match, one per command."""
    state = initial_state(make_config(seed=seed, lineup=LINEUP))
    batches, seq = [], 0
    while (seat := to_act(state)) is not None:
        events = execute(state, legal_commands(state, seat)[0])
        envelopes = []
        for event in events:
            seq += 1
            envelopes.append(events_pb2.EventEnvelope(seq=seq, event=event_to_proto(event)))
        batches.append(events_pb2.EventBatch(match_id="m" * 32, envelopes=envelopes))
    return batches


async def test_projection_starts_with_the_lobby_follows_batches_and_ends_with_the_match() -> None:
    match_id = "m" * 32
    bus = MemoryBus(match_id, seed=9)
    projections = Projections(cast(Bus, bus), wait_s=0)
    projections.on_lobby({"event": "created", "match_id": match_id})
    await asyncio.gather(*projections._warming)  # the warm-up runs in the background
    assert projections.known()[match_id].version == 0  # ready before any command
    played = _play(seed=9)
    for stream_seq, batch in enumerate(played, start=1):
        bus.batches.append(batch)
        await projections.on_batch(stream_seq, batch)
        if match_id in projections.known():
            assert projections.known()[match_id].version == batch.envelopes[-1].seq
    assert match_id not in projections.known()  # the match ended: dropped
    # a batch of a match announced nowhere starts its projection too, if it is the first
    other = MemoryBus(match_id, seed=9)
    late = Projections(cast(Bus, other), wait_s=0)
    other.batches.append(played[0])
    await late.on_batch(1, played[0])
    await asyncio.gather(*late._warming)
    assert late.known()[match_id].version == played[0].envelopes[-1].seq


def test_lobby_noise_is_ignored() -> None:
    projections = Projections(cast(Any, None), wait_s=0)
    projections.on_lobby({"event": "ended", "match_id": "x" * 32})
    projections.on_lobby({"event": "created", "match_id": 7})
    assert not projections._warming


async def _announced(match_id: str) -> tuple[MemoryBus, Projections]:
    """A service that follows NATS (as scoring does, so it warms its projections), once the
    lobby announced ``match_id``; with no wait for NATS, which nothing feeds here."""
    bus = MemoryBus(match_id, seed=9)
    projections = Projections(cast(Bus, bus), wait_s=0, follows=True)
    projections.on_lobby({"event": "created", "match_id": match_id})
    await asyncio.gather(*projections._warming)
    return bus, projections


def test_the_lobby_notice_of_its_end_drops_a_match_the_service_does_not_follow() -> None:
    match_id = "m" * 32
    bus = MemoryBus(match_id, seed=9)
    projections = Projections(cast(Bus, bus), wait_s=0, follows=False)
    start = match_start(make_config(seed=9, lineup=LINEUP))
    # started by a request; a service not following NATS never sees the last batch
    tail = [e for batch in _play(seed=9)[:-1] for e in batch.envelopes]
    assert projections.at_now(match_id, tail[-1].seq, tail, 1, start) is not None
    assert match_id in projections.known()
    projections.on_lobby({"event": "ended", "match_id": "n" * 32})  # another match's end
    assert match_id in projections.known()
    projections.on_lobby({"event": "ended", "match_id": match_id})
    assert match_id not in projections.known()


async def test_a_match_the_lobby_announces_starts_from_its_record_alone() -> None:
    match_id = "m" * 32
    bus, projections = await _announced(match_id)
    assert projections.known()[match_id].version == 0
    assert bus.reads == []  # a match just created: its record is all there is to read
    # the notice came late: batches were committed meanwhile, and the first request
    # (bringing no tail) reads them from the stream
    played = _play(seed=9)
    bus.batches.extend(played[:3])
    version = played[2].envelopes[-1].seq
    state = await projections.at(match_id, version)
    assert state.version == version
    assert bus.reads == ["catch-up"]
    expected = initial_state(make_config(seed=9, lineup=LINEUP))
    for batch in played[:3]:
        apply_batch(expected, batch)
    assert state == expected


async def test_at_now_answers_without_waiting_or_returns_none_and_changes_nothing() -> None:
    match_id = "m" * 32
    bus, projections = await _announced(match_id)
    played = _play(seed=9)
    bus.batches.extend(played[:4])
    first, second = played[0].envelopes[-1].seq, played[1].envelopes[-1].seq
    # unknown match, or a version beyond the tail: not at hand, and nothing changes
    assert projections.at_now("n" * 32, 0) is None
    assert projections.at_now(match_id, first) is None
    assert projections.at_now(match_id, second, played[1].envelopes) is None  # a gap before
    assert projections.known()[match_id].version == 0 and bus.reads == []
    # a tail that reaches the version: folded at once, synchronously, no read
    state = projections.at_now(match_id, first, played[0].envelopes, 1)
    assert state is not None and state.version == first and bus.reads == []
    # at the version already: the same state, the tail skipped
    assert projections.at_now(match_id, first, played[0].envelopes) is state
    # a caller behind the projection is stale, as in at()
    with pytest.raises(ServiceError) as stale:
        projections.at_now(match_id, first - 1)
    assert stale.value.code is grpc.StatusCode.ABORTED
    # a catch-up under way holds the projection: not at hand
    projection = projections._by_match[match_id]
    async with projection.changed:
        assert projections.at_now(match_id, second, played[1].envelopes) is None
    assert projection.state.version == first
    # at() takes what at_now cannot: the stream read for a version beyond the tail
    third = played[3].envelopes[-1].seq
    assert (await projections.at(match_id, third, played[3].envelopes)).version == third
    assert bus.reads == ["catch-up"]


async def test_at_now_leaves_a_tail_to_at_when_requests_may_wait_for_it() -> None:
    # a service that follows NATS may have a request waiting for the version a tail brings
    # (at() notifies it): at_now leaves such a tail to at()
    match_id = "m" * 32
    bus = MemoryBus(match_id, seed=9)
    projections = Projections(cast(Bus, bus), wait_s=5.0, follows=True)
    projections.on_lobby({"event": "created", "match_id": match_id})
    await asyncio.gather(*projections._warming)
    played = _play(seed=9)
    first = played[0].envelopes[-1].seq
    assert projections.at_now(match_id, first, played[0].envelopes) is None
    assert projections.at_now(match_id, 0) is projections.known()[match_id]
    assert (await projections.at(match_id, first, played[0].envelopes)).version == first


def _expected(batches: list[events_pb2.EventBatch]) -> Any:
    state = initial_state(make_config(seed=9, lineup=LINEUP))
    for batch in batches:
        apply_batch(state, batch)
    return state


def _starts(source: str) -> float:
    labels = {"source": source}
    return REGISTRY.get_sample_value("frontier_projection_starts_total", labels) or 0.0


def test_a_request_bringing_the_match_start_starts_the_projection_reading_nothing() -> None:
    match_id = "m" * 32
    bus = MemoryBus(match_id, seed=9)
    projections = Projections(cast(Bus, bus), wait_s=0, follows=False)  # no warm-up
    projections.on_lobby({"event": "created", "match_id": match_id})
    assert not projections._warming and not projections.known()  # the lobby costs nothing
    start = match_start(make_config(seed=9, lineup=LINEUP))
    played = _play(seed=9)[:3]
    tail = [e for batch in played for e in batch.envelopes]
    before = _starts("request")
    state = projections.at_now(match_id, tail[-1].seq, tail, 3, start)
    assert state is not None and state == _expected(played)
    assert bus.record_reads == 0 and bus.reads == []
    assert projections._by_match[match_id].stream_seq == 3
    assert _starts("request") == before + 1
    # the match's first command: no tail yet, version 0
    other = Projections(cast(Bus, bus), wait_s=0, follows=False)
    fresh = other.at_now(match_id, 0, (), 0, start)
    assert fresh is not None and fresh == _expected([])
    assert bus.record_reads == 0 and bus.reads == []


async def test_a_start_whose_tail_misses_the_first_batch_is_left_to_the_stream() -> None:
    match_id = "m" * 32
    bus = MemoryBus(match_id, seed=9)
    projections = Projections(cast(Bus, bus), wait_s=0, follows=False)
    start = match_start(make_config(seed=9, lineup=LINEUP))
    played = _play(seed=9)[:3]
    bus.batches.extend(played)
    version = played[-1].envelopes[-1].seq
    late = list(played[-1].envelopes)  # the last batch only: the first two are not in it
    assert projections.at_now(match_id, version, late, 3, start) is None
    assert projections.at_now(match_id, 4, (), 0, start) is None  # no tail past version 0
    assert not projections.known() and bus.record_reads == 0
    before = _starts("stream")
    assert await projections.at(match_id, version, late, 3, start) == _expected(played)
    assert bus.record_reads == 1 and "stream" in bus.reads  # read as before the start existed
    assert _starts("stream") == before + 1


def test_a_malformed_start_is_invalid_argument_and_starts_nothing() -> None:
    match_id = "m" * 32
    projections = Projections(cast(Bus, MemoryBus(match_id, seed=9)), wait_s=0, follows=False)
    start = domain_pb2.MatchStart(seed=9, lineup="A=nobody" + "x" * 5000, max_rounds=6)
    with pytest.raises(ServiceError) as refused:
        projections.at_now(match_id, 0, (), 0, start)
    assert refused.value.code is grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.reason == "MALFORMED"
    assert len(str(refused.value)) < 1000  # the unbounded lineup is not echoed whole
    assert not projections.known()
