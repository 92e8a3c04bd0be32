"""Seat clocks rebuilt from the stream's decision records (``store.matches.note_record``)."""

from __future__ import annotations

from frontier.store.matches import note_record
from frontier.store.snapshot import SeatClock
from frontier.v1 import events_pb2, types_pb2


def _batch(seq: int, strikes: int, taken_over: bool) -> events_pb2.EventBatch:
    batch = events_pb2.EventBatch(seat=types_pb2.SEAT_A1)
    batch.envelopes.add(seq=seq)
    batch.decision.CopyFrom(
        events_pb2.DecisionRecord(
            decision_id=str(seq), reserve_ms=0, strikes=strikes, taken_over=taken_over
        )
    )
    return batch


def test_a_takeover_stays_after_the_bots_later_answers_are_folded() -> None:
    """The record of the strike that handed the seat over says so; the bot's answers after
    it do not, and a reload must not give the seat back to its absent player."""
    clocks: dict[str, SeatClock] = {}
    note_record(clocks, _batch(1, 2, False))
    assert clocks["A1"] == SeatClock(0, 2, False)
    note_record(clocks, _batch(2, 3, True))  # the third strike: the bot takes the seat
    note_record(clocks, _batch(3, 3, False))  # the bot's answer
    assert clocks["A1"] == SeatClock(0, 3, True)


def test_a_batch_without_a_record_changes_no_clock() -> None:
    clocks = {"A1": SeatClock(5000, 1, False)}
    batch = events_pb2.EventBatch(seat=types_pb2.SEAT_A1)
    batch.envelopes.add(seq=1)
    assert note_record(clocks, batch) is None
    assert clocks == {"A1": SeatClock(5000, 1, False)}
