"""A hosted match keeps only its latest events and records (recent.py); watchers and
idempotent replies get the older ones from the stream, exactly as if all were in memory,
without putting them back in memory -- against an in-memory bus."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import cast

import grpc
import pytest

from frontier.engine import Seat, initial_state, legal_commands, make_config, to_act
from frontier.engine.decide import execute
from frontier.engine.model import Event
from frontier.engine.state import State
from frontier.orchestrator import history
from frontier.orchestrator.hosted_match import HostedMatch
from frontier.orchestrator.recent import KEEP_EVENTS, Recent
from frontier.runtime.bus import Bus, StoredBatch
from frontier.runtime.errors import ServiceError
from frontier.store.snapshot import CommandResult
from frontier.v1 import events_pb2, types_pb2
from frontier.wire.convert import enum_from_proto, enum_to_proto, event_to_proto

LINEUP = "A=marquise;B=marquise"
MATCH_ID = "ab" * 16


class StreamBus:
    """The one read history makes: the match's batches in stream order."""

    def __init__(self, batches: list[events_pb2.EventBatch]) -> None:
        self.batches = batches
        self.reads = 0

    async def iter_batches(self, match_id: str, after: int = 0) -> AsyncIterator[StoredBatch]:
        assert match_id == MATCH_ID
        self.reads += 1
        for seq, batch in enumerate(self.batches, start=1):
            if seq > after:
                yield StoredBatch(seq, batch)


def committed(
    hosted: HostedMatch,
    seat: Seat,
    events: list[Event],
    first: int,
    record: events_pb2.DecisionRecord,
) -> events_pb2.EventBatch:
    """What the commit path does with a batch of ``events`` from seq ``first``: the batch it
    stores in the stream (returned) and the latest events the hosted match keeps."""
    hosted.remember(list(enumerate(events, start=first)), seat, record)
    return events_pb2.EventBatch(
        match_id=hosted.match_id,
        envelopes=[
            events_pb2.EventEnvelope(seq=s, event=event_to_proto(e))
            for s, e in enumerate(events, start=first)
        ],
        seat=types_pb2.Seat.ValueType(enum_to_proto(seat)),
        decision=record,
    )


def _played(seed: int) -> tuple[HostedMatch, list[events_pb2.EventBatch], list[Event]]:
    """A whole match committed as the commit path does: the stream holds every batch, the
    hosted match what recent.py keeps of them."""
    config = make_config(seed=seed, lineup=LINEUP)
    state = initial_state(config)  # played in place: the hosted match ends at its end
    hosted = HostedMatch(MATCH_ID, config, state, 0, {}, {})
    batches: list[events_pb2.EventBatch] = []
    every: list[Event] = []
    while (seat := to_act(state)) is not None:
        events = execute(state, legal_commands(state, seat)[0])
        first = len(every) + 1
        record = events_pb2.DecisionRecord(decision_id=str(first - 1), reserve_ms=first)
        batches.append(committed(hosted, seat, events, first, record))
        every.extend(events)
    return hosted, batches, every


def _finished() -> tuple[HostedMatch, StreamBus, list[Event], State]:
    hosted, batches, every = _played(seed=21)
    assert len(every) > 3 * KEEP_EVENTS, "a match far longer than what is kept"
    return hosted, StreamBus(batches), every, hosted.state


def test_recent_keeps_the_newest_entries_and_says_from_where() -> None:
    kept: Recent[str] = Recent(keep=3, start=5)
    for seq in range(5, 10):
        kept[seq] = f"e{seq}"
    assert list(kept.items()) == [(7, "e7"), (8, "e8"), (9, "e9")]
    assert kept.start == 7 and kept.holds(7) and not kept.holds(6)
    with pytest.raises(KeyError, match="older than the kept ones"):
        kept[6] = "late"
    assert list(kept) == [7, 8, 9]  # the refused one changed nothing
    with pytest.raises(ValueError, match="at least one"):
        Recent(keep=0)


def test_a_finished_match_keeps_only_its_latest_events() -> None:
    hosted, _, every, _ = _finished()
    assert len(hosted.history) == KEEP_EVENTS
    assert len(hosted.records) <= KEEP_EVENTS
    assert hosted.history.start == len(every) - KEEP_EVENTS + 1


async def test_old_events_come_from_the_stream_and_are_not_kept() -> None:
    hosted, bus, every, _ = _finished()
    got = await history.events_between(cast(Bus, bus), hosted, 1, len(every))
    assert got == list(enumerate(every, start=1))
    assert bus.reads == 1  # one pass over the stream, then memory for the recent ones
    assert len(hosted.history) == KEEP_EVENTS  # nothing was put back
    recent = await history.events_between(cast(Bus, bus), hosted, len(every), len(every))
    assert recent == [(len(every), every[-1])] and bus.reads == 1  # from memory


async def test_a_watch_from_any_version_gets_every_event_and_each_batch_record() -> None:
    hosted, bus, every, _ = _finished()

    async def watched(from_version: int) -> list[tuple[int, bool]]:
        out = []
        async for seq, _event, record in history.watch(
            cast(Bus, bus), hosted, Seat.A1, from_version, lambda: False
        ):
            out.append((seq, record is not None))
        return out

    firsts = {int(b.envelopes[0].seq) for b in bus.batches}
    for start in (0, 7, len(every) - KEEP_EVENTS - 1, len(every) - 2):
        seen = await watched(start)
        assert [s for s, _ in seen] == list(range(start + 1, len(every) + 1))
        # a record with the first event of each batch, wherever it was read from
        assert {s for s, has in seen if has} == {s for s in firsts if s > start}
    assert len(hosted.history) == KEEP_EVENTS


async def test_a_watch_sends_what_was_committed_while_it_sent_up_to_the_end() -> None:
    """The match plays on to its end while a watcher is still being sent older events (two
    bots play faster than a watch from version 0 is read): the watch still ends with the
    match's last event, not at the version it started from."""
    hosted, bus, every, final = _finished()
    mid = initial_state(hosted.config)
    while mid.version < len(every) // 2:
        seat = to_act(mid)
        assert seat is not None
        execute(mid, legal_commands(mid, seat)[0])  # the same commands as _played
    hosted.state = mid
    halfway = mid.version

    async def watched() -> list[int]:
        out = []
        async for seq, _event, _record in history.watch(
            cast(Bus, bus), hosted, None, 0, lambda: False
        ):
            out.append(seq)
            if seq == halfway:
                hosted.state = final  # committed meanwhile, up to the end of the match
        return out

    assert await watched() == list(range(1, len(every) + 1))


async def test_events_aged_out_of_the_stream_are_not_found() -> None:
    hosted, bus, every, _ = _finished()
    del bus.batches[:3]  # FRONTIER_STREAM_MAX_AGE_S removed the oldest batches
    with pytest.raises(ServiceError) as caught:
        await history.events_between(cast(Bus, bus), hosted, 1, len(every))
    assert caught.value.code == grpc.StatusCode.NOT_FOUND
    recent = len(every) - KEEP_EVENTS + 1
    got = await history.events_between(cast(Bus, bus), hosted, recent, len(every))
    assert [s for s, _ in got] == list(range(recent, len(every) + 1))  # still in memory


async def test_a_range_that_starts_and_ends_inside_batches() -> None:
    hosted, bus, every, _ = _finished()
    long = next(b for b in bus.batches if len(b.envelopes) >= 3)
    first, last = int(long.envelopes[1].seq), int(long.envelopes[-2].seq) + 1
    got = await history.events_between(cast(Bus, bus), hosted, first, last)
    assert got == [(s, every[s - 1]) for s in range(first, last + 1)]


async def test_an_ended_match_sheds_old_events_and_all_but_each_seats_last_command_id() -> None:
    hosted, bus, every, _ = _finished()
    for n, seat in enumerate([Seat.A1, Seat.B1, Seat.A1, Seat.B1, Seat.A1]):
        hosted.command_ids[(seat.value, f"id{n}")] = CommandResult(n + 1, n + 1, "k", "", "")
    last_batch = int(bus.batches[-1].envelopes[0].seq)
    hosted.shed(last_batch)
    assert set(hosted.command_ids) == {("A1", "id4"), ("B1", "id3")}
    assert list(hosted.history) == list(range(last_batch, len(every) + 1))
    assert list(hosted.records) == [last_batch]
    got = await history.events_between(cast(Bus, bus), hosted, 1, len(every))
    assert got == list(enumerate(every, start=1))  # the rest from the stream


def test_records_are_kept_for_the_kept_events_only_and_read_back_as_committed() -> None:
    hosted, bus, _, _ = _finished()
    assert hosted.records and min(hosted.records) >= hosted.history.start
    for first in hosted.records:
        batch = next(b for b in bus.batches if b.envelopes and b.envelopes[0].seq == first)
        assert hosted.record(first) == (enum_from_proto(Seat, batch.seat), batch.decision)
    assert hosted.record(hosted.history.start - 1) is None
