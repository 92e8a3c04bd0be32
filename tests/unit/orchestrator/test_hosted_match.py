"""HostedMatch's transitions: what a committed batch, an abandonment and a bot stream's
arrival make of a hosted match (the commit path and the servicers change it only so)."""

from __future__ import annotations

import json
from typing import Any

import grpc

from frontier.engine import Seat, decide, fold, initial_state, legal_commands, make_config, to_act
from frontier.engine.model import Command
from frontier.orchestrator.hosted_match import CommittedBatch, HostedMatch
from frontier.store.snapshot import SeatClock
from frontier.v1 import events_pb2
from frontier.wire.convert import event_to_proto

LINEUP = "A=marquise;B=marquise"


def _hosted() -> HostedMatch:
    config = make_config(seed=5, lineup=LINEUP)
    return HostedMatch("m" * 32, config, initial_state(config), 0, {}, {})


def _batch(hosted: HostedMatch, command_id: str = "c1") -> tuple[CommittedBatch, Command]:
    """The first legal command of the seat to act, decided and folded as the path does."""
    seat = to_act(hosted.state)
    assert seat is not None
    cmd = legal_commands(hosted.state, seat)[0]
    events = decide(hosted.state, cmd)
    state = hosted.state.clone()
    fold(state, events)
    numbered = list(enumerate(events, start=hosted.state.version + 1))
    envelopes = [
        events_pb2.EventEnvelope(seq=s, state_version=s, event=event_to_proto(e))
        for s, e in numbered
    ]
    record = events_pb2.DecisionRecord(decision_id=str(hosted.state.version))
    batch = CommittedBatch(
        seat,
        command_id,
        cmd.key(),
        numbered,
        envelopes,
        record,
        SeatClock(1234, 1, False),
        state,
        hosted.stream_seq + 1,
        None,
    )
    return batch, cmd


def test_a_committed_batch_becomes_the_match_present() -> None:
    hosted = _hosted()
    before = hosted.state
    batch, _ = _batch(hosted)
    assert not hosted.apply(batch, snapshot_every=2)  # the first of two: no snapshot yet
    assert hosted.state is batch.state and before.version == 0  # replaced, never edited
    assert hosted.stream_seq == 1
    assert hosted.clocks[batch.seat] == SeatClock(1234, 1, False)
    result = hosted.command_ids[(batch.seat.value, "c1")]
    assert (result.first, result.last) == (1, batch.state.version)
    assert result.command == batch.command_key
    assert [s for s, _ in batch.events] == list(hosted.history)
    assert hosted.record(1) == (batch.seat, batch.record)
    assert [k.first for k in hosted.tails.batches] == [1]
    second, _ = _batch(hosted, command_id="")
    assert hosted.apply(second, snapshot_every=2)  # the second: a snapshot is due
    assert len(hosted.command_ids) == 1  # no command id, nothing to answer a retry from
    assert hosted.since_snapshot == 0


def test_an_abandoned_match_ends_and_keeps_nothing_for_the_domains() -> None:
    hosted = _hosted()
    batch, _ = _batch(hosted)
    hosted.apply(batch, snapshot_every=100)
    hosted.abandon(stream_seq=2)
    assert hosted.abandoned and hosted.ended and hosted.stream_seq == 2
    assert not hosted.tails.batches
    assert hosted.history.start == hosted.state.version + 1


def test_the_turn_notice_names_the_seat_to_act_and_its_deadline() -> None:
    hosted = _hosted()
    notice = json.loads(hosted.turn_notice())
    seat = to_act(hosted.state)
    assert seat is not None
    assert notice == {"version": 0, "to_act": seat.value, "deadline_unix_ms": 0}  # no clock


class _Session:
    def __init__(self) -> None:
        self.closed: list[grpc.StatusCode] = []

    def on_commit(self, seat: Seat, command: Command, record: Any) -> None:
        pass

    def poke(self) -> None:
        pass

    def close(self, code: grpc.StatusCode, reason: str) -> None:
        self.closed.append(code)


def test_a_newer_bot_stream_replaces_the_older_and_only_its_own_end_detaches_it() -> None:
    hosted = _hosted()
    first, second = _Session(), _Session()
    assert hosted.attach(Seat.A1, first) is None
    assert hosted.attach(Seat.A1, second) is first
    hosted.detach(Seat.A1, first)  # the replaced stream ends: the newer one stays
    assert hosted.sessions[Seat.A1] is second
    hosted.detach(Seat.A1, second)
    assert Seat.A1 not in hosted.sessions
