"""A match's past as each reader may see it: watching, seat replays, and the event history.

A hosted match keeps only its latest events and decision records (:mod:`.recent`); older
ones are read back from the JetStream stream when a reader asks for them (a watch from
version 0, an idempotent reply to an old command) and not kept, so a match's memory stays
bounded however long it is, and loading one stays a snapshot plus a short tail. Every event
and decision record leaves here filtered for its reader
(:func:`frontier.engine.view.event_for`, :func:`.referee.record_for`): no hand, deck order
or standing answer reaches a reader who may not see it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import fields
from enum import Enum

import grpc

from frontier.engine import Seat
from frontier.engine.model import Command, Event
from frontier.engine.view import event_for
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError, not_found
from frontier.store.matches import note_record
from frontier.v1 import events_pb2
from frontier.wire.convert import command_from_proto, enum_from_proto, event_from_proto

from . import referee
from .hosted_match import HostedMatch

SEAT_REPLAY_FORMAT = "frontier.seat-replay/1"


Noted = tuple[Seat, events_pb2.DecisionRecord]  # a batch's acting seat and decision record


async def events_between(
    bus: Bus, hosted: HostedMatch, first: int, last: int
) -> list[tuple[int, Event]]:
    """The events with seq ``first..last`` (unfiltered), read from the stream if need be."""
    return [(seq, event) async for seq, event, _ in iter_events(bus, hosted, first, last)]


async def iter_events(
    bus: Bus, hosted: HostedMatch, first: int, last: int
) -> AsyncIterator[tuple[int, Event, Noted | None]]:
    """Seq ``first..last`` with the record of each batch they begin: from memory when
    :mod:`.recent` still holds them, else from the stream (not kept: a replay from
    version 0 must not put the whole match back in memory)."""
    seq = first
    while seq <= last:
        if _in_memory(hosted, seq):
            yield seq, hosted.history[seq], hosted.record(seq)
            seq += 1
            continue
        async for stored in bus.iter_batches(hosted.match_id, 0):
            envelopes = stored.batch.envelopes
            if not envelopes or envelopes[-1].seq < seq:
                continue
            noted = note_record({}, stored.batch)
            for env in envelopes:
                if seq > last or env.seq < seq:
                    continue
                if env.seq > seq:  # the ones before aged out (FRONTIER_STREAM_MAX_AGE_S)
                    raise not_found(hosted.match_id)
                record = noted if env.seq == envelopes[0].seq else None
                yield seq, event_from_proto(env.event), _noted(record)
                seq += 1
            if seq > last or _in_memory(hosted, seq):
                break  # the rest is in memory again (or nothing is left)
        else:
            if seq <= last:  # aged out of the stream (FRONTIER_STREAM_MAX_AGE_S)
                raise not_found(hosted.match_id)


def _in_memory(hosted: HostedMatch, seq: int) -> bool:
    """Whether event ``seq`` and its batch's record (if it begins one) are still kept."""
    return hosted.history.holds(seq) and hosted.records.holds(seq) and seq in hosted.history


def _noted(record: tuple[str, events_pb2.DecisionRecord] | None) -> Noted | None:
    return (Seat(record[0]), record[1]) if record is not None else None


async def watch_range(
    bus: Bus, hosted: HostedMatch, viewer: Seat | None, first: int, last: int
) -> AsyncIterator[tuple[int, Event, events_pb2.DecisionRecord | None]]:
    """Seq ``first..last`` as ``viewer`` may see them, the first event of each batch with
    the batch's decision record (as the viewer may see it)."""
    reader = viewer.value if viewer else None
    async for seq, event, noted in iter_events(bus, hosted, first, last):
        record = referee.record_for(noted[1], noted[0].value, reader) if noted else None
        yield seq, event_for(hosted.state, event, viewer), record


def check_still_served(sent: int, draining: Callable[[], bool], moved: Callable[[], bool]) -> None:
    """UNAVAILABLE, naming the version to watch again from, once the server drains or the
    match moved to another orchestrator (no more events come here)."""
    if draining():
        raise ServiceError(
            grpc.StatusCode.UNAVAILABLE,
            f"the server is shutting down; watch again from version {sent}",
        )
    if moved():
        raise ServiceError(
            grpc.StatusCode.UNAVAILABLE,
            f"the match moved to another orchestrator; watch again from version {sent}",
        )


async def watch(
    bus: Bus,
    hosted: HostedMatch,
    viewer: Seat | None,
    from_version: int,
    draining: Callable[[], bool],
    moved: Callable[[], bool] = lambda: False,
) -> AsyncIterator[tuple[int, Event, events_pb2.DecisionRecord | None]]:
    """Events with seq > from_version as ``viewer`` may see them, then live ones; the
    first event of each batch comes with the batch's decision record (as the viewer may
    see it).  Ends when the match is over; UNAVAILABLE once the server drains, and once
    ``moved`` (another orchestrator took the match over: no more events come here, and a
    new watch is forwarded to the new owner)."""
    sent = max(from_version, 0)

    def newer() -> bool:  # an abandoned match ends with no event: its end wakes us too
        return hosted.state.version > sent or hosted.ended or draining() or moved()

    while True:
        version = hosted.state.version
        async for seq, event, record in watch_range(bus, hosted, viewer, sent + 1, version):
            sent = seq
            yield seq, event, record
        # Not merely "ended": the match may have played on to its end while the events up
        # to ``version`` were being sent (each yield waits for the reader); those after it
        # are sent first.
        if hosted.ended and sent >= hosted.state.version:
            return
        check_still_served(sent, draining, moved)
        async with hosted.changed:
            await hosted.changed.wait_for(newer)


async def export_replay(bus: Bus, hosted: HostedMatch, viewer: Seat | None) -> str:
    """The match's history as ``viewer`` may see it (see ExportReplayResponse); a reader
    without a seat gets a delayed match's only up to where its spectators see it."""
    match_id = hosted.match_id
    state = hosted.state if viewer is not None else hosted.spectator_state()
    batches: list[dict[str, object]] = []
    async for stored in bus.iter_batches(match_id, 0):
        batch = stored.batch
        if not batch.envelopes:
            continue
        if batch.envelopes[0].seq > state.version:
            break  # held back from this reader (spectator_delay.py)
        seat = enum_from_proto(Seat, batch.seat)
        cmd = command_from_proto(batch.command)
        entry: dict[str, object] = {
            "seat": seat.value,
            "first_seq": batch.envelopes[0].seq,
            "command": record_json(cmd) if seat is viewer else {"kind": cmd.kind.value},
            "events": [
                record_json(event_for(state, event_from_proto(env.event), viewer))
                for env in batch.envelopes
            ],
        }
        if batch.HasField("decision"):
            shown = referee.record_for(batch.decision, seat.value, viewer.value if viewer else None)
            entry["answered_by"] = events_pb2.AnsweredBy.Name(shown.answered_by)
            entry["strikes"] = shown.strikes
            entry["taken_over"] = shown.taken_over
        batches.append(entry)
    config = hosted.config
    return json.dumps(
        {
            "format": SEAT_REPLAY_FORMAT,
            "match_id": match_id,
            "viewer": viewer.value if viewer else "spectator",
            "config": {
                "lineup": config.lineup,
                "team_hands_visible": config.team_hands_visible,
                "max_rounds": config.max_rounds,
            },
            "winner": state.winner,
            "abandoned": hosted.abandoned,
            "version": state.version,
            "batches": batches,
        },
        sort_keys=True,
    )


def record_json(record: Command | Event) -> dict[str, object]:
    """A command or event as JSON, fields at their defaults left out (like replay files)."""
    out: dict[str, object] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        if value in ("", 0, (), None):
            continue
        if isinstance(value, Enum):
            value = value.value
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out
