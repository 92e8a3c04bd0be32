"""A match's past as each reader may see it: watching, seat replays, and the event history.

A hosted match keeps the events committed since it was loaded (``HostedMatch.history``); the
earlier ones are read back from the JetStream stream only when a reader asks for them (a
watch from version 0, an idempotent reply to an old command), so loading a match stays a
snapshot plus a short tail.  Every event and decision record leaves here filtered for its
reader (:func:`frontier.engine.view.event_for`, :func:`.referee.record_for`): no hand,
deck order or standing answer reaches a reader who may not see it.
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
from frontier.runtime.errors import ServiceError
from frontier.runtime.matches import note_record
from frontier.v1 import events_pb2
from frontier.wire.convert import command_from_proto, enum_from_proto, event_from_proto

from . import referee
from .hosted import HostedMatch

SEAT_REPLAY_FORMAT = "frontier.seat-replay/1"


async def events_between(
    bus: Bus, hosted: HostedMatch, first: int, last: int
) -> list[tuple[int, Event]]:
    """The events with seq ``first..last`` (unfiltered), read from the stream if need be."""
    if first < hosted.history_start:
        await load_history(bus, hosted)
    return [(s, hosted.history[s]) for s in range(first, last + 1)]


async def load_history(bus: Bus, hosted: HostedMatch) -> None:
    """Read the events before ``history_start`` (and their records) from the stream."""
    async for stored in bus.iter_batches(hosted.match_id, 0):
        older = [e for e in stored.batch.envelopes if e.seq < hosted.history_start]
        for env in older:
            hosted.history[env.seq] = event_from_proto(env.event)
        if older and older[0].seq == stored.batch.envelopes[0].seq:
            noted = note_record({}, stored.batch)
            if noted is not None:
                hosted.records[older[0].seq] = (Seat(noted[0]), noted[1])
        if len(older) < len(stored.batch.envelopes):
            break
    hosted.history_start = 1


async def watch(
    bus: Bus,
    hosted: HostedMatch,
    viewer: Seat | None,
    from_version: int,
    draining: Callable[[], bool],
) -> AsyncIterator[tuple[int, Event, events_pb2.DecisionRecord | None]]:
    """Events with seq > from_version as ``viewer`` may see them, then live ones; the
    first event of each batch comes with the batch's decision record (as the viewer may
    see it).  Ends when the match is over; UNAVAILABLE once the server drains."""
    sent = max(from_version, 0)
    if sent + 1 < hosted.history_start:
        await load_history(bus, hosted)

    def newer() -> bool:
        return hosted.state.version > sent or draining()

    while True:
        version = hosted.state.version
        while sent < version:
            sent += 1
            noted = hosted.records.get(sent)
            record = (
                referee.record_for(noted[1], noted[0].value, viewer.value if viewer else None)
                if noted is not None
                else None
            )
            yield sent, event_for(hosted.state, hosted.history[sent], viewer), record
        if hosted.ended:
            return
        if draining():
            raise ServiceError(
                grpc.StatusCode.UNAVAILABLE,
                f"the server is shutting down; watch again from version {sent}",
            )
        async with hosted.changed:
            await hosted.changed.wait_for(newer)


async def export_replay(bus: Bus, hosted: HostedMatch, viewer: Seat | None) -> str:
    """The match's history as ``viewer`` may see it (see ExportReplayResponse)."""
    match_id = hosted.match_id
    state = hosted.state
    batches: list[dict[str, object]] = []
    async for stored in bus.iter_batches(match_id, 0):
        batch = stored.batch
        if not batch.envelopes:
            continue
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
