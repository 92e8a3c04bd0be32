"""The orchestrator's logic: hosting matches and the command pipeline, free of gRPC plumbing.

For each accepted command, in this order, under the match's lock:
  1. authenticate the seat token and check the command against the orchestrator's state
     (cheap local engine check: a bad command never reaches a domain service);
  2. the owning domain service decides the command's events;
  3. the turn-order service advances steps/turns/rounds on top of them;
  4. the scoring service ends the match at the round limit (R30);
  5. the events are folded into a copy of the state (a last consistency check), published as
     ONE JetStream message with the expected last subject sequence (single writer), and only
     after the publish is acknowledged does the copy become the match's state.
Nothing is changed unless every step succeeds, so a failure anywhere leaves the match as it
was and the client can retry with the same command id.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import grpc

from frontier.engine import Seat, initial_state, legal_commands, make_config, to_act
from frontier.engine.config import MatchConfig
from frontier.engine.decide import check
from frontier.engine.domains import owner
from frontier.engine.evolve import fold
from frontier.engine.model import Command, Event
from frontier.engine.state import State
from frontier.engine.view import event_for
from frontier.runtime.bus import Bus, WriterConflict, turn_subject
from frontier.runtime.errors import ServiceError, not_found
from frontier.runtime.matches import LoadedMatch, load_match, token_hash
from frontier.runtime.snapshot import Snapshot, encode
from frontier.runtime.telemetry import tracer
from frontier.v1 import domain_pb2, events_pb2, types_pb2
from frontier.wire.convert import command_to_proto, enum_to_proto, event_to_proto

from .clients import DomainClients

log = logging.getLogger("frontier.orchestrator")


@dataclass(slots=True)
class HostedMatch:
    match_id: str
    config: MatchConfig
    state: State
    stream_seq: int
    seat_by_token_hash: dict[str, str]
    command_ids: dict[str, tuple[int, int]]
    # events kept in memory for WatchEvents and idempotent replies: seq -> event
    history: dict[int, Event] = field(default_factory=dict)
    history_start: int = 1  # the first seq held in ``history``
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    since_snapshot: int = 0
    last_batch: list[events_pb2.EventEnvelope] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Accepted:
    events: list[tuple[int, Event]]  # (seq, event), unfiltered
    to_act: Seat | None
    winner: str


class Orchestrator:
    def __init__(self, bus: Bus, clients: DomainClients, snapshot_every: int) -> None:
        self.bus = bus
        self.clients = clients
        self.snapshot_every = snapshot_every
        self.matches: dict[str, HostedMatch] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._background: set[asyncio.Task[None]] = set()

    # ----- matches ---------------------------------------------------------------------------
    async def create_match(
        self, seed: int, lineup: str, team_hands_visible: bool, max_rounds: int
    ) -> tuple[str, dict[Seat, str]]:
        values: dict[str, object] = {
            "seed": seed or secrets.randbelow(2**62) + 1,
            "team_hands_visible": team_hands_visible,
            "max_rounds": max_rounds or 6,
        }
        if lineup:
            values["lineup"] = lineup
        config = make_config(**values)
        state = initial_state(config)
        match_id = uuid.uuid4().hex
        tokens = {seat: secrets.token_urlsafe(24) for seat in state.order}
        record = {
            "config": config.model_dump(),
            "tokens": {token_hash(t): seat.value for seat, t in tokens.items()},
        }
        await self.bus.put_match(match_id, record)
        self.matches[match_id] = HostedMatch(
            match_id=match_id,
            config=config,
            state=state,
            stream_seq=0,
            seat_by_token_hash={token_hash(t): s.value for s, t in tokens.items()},
            command_ids={},
        )
        await self.bus.lobby({"event": "created", "match_id": match_id, "lineup": config.lineup})
        return match_id, tokens

    async def get(self, match_id: str) -> HostedMatch:
        hosted = self.matches.get(match_id)
        if hosted is not None:
            return hosted
        lock = self._loading.setdefault(match_id, asyncio.Lock())
        async with lock:
            hosted = self.matches.get(match_id)
            if hosted is None:
                loaded = await load_match(self.bus, match_id) if _valid_id(match_id) else None
                if loaded is None:
                    raise not_found(match_id)
                hosted = _host(match_id, loaded)
                self.matches[match_id] = hosted
        return hosted

    async def all_matches(self) -> list[HostedMatch]:
        ids = set(await self.bus.match_ids()) | set(self.matches)
        return [await self.get(m) for m in sorted(ids)]

    def seat_for(self, hosted: HostedMatch, token: str) -> Seat:
        if not token:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "a seat token is required")
        seat = hosted.seat_by_token_hash.get(token_hash(token))
        if seat is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED, "this token acts for no seat of this match"
            )
        return Seat(seat)

    def viewer_for(self, hosted: HostedMatch, token: str) -> Seat | None:
        return self.seat_for(hosted, token) if token else None

    # ----- commands --------------------------------------------------------------------------
    def resolve(
        self, hosted: HostedMatch, seat: Seat, command: Command | None, legal_id: str
    ) -> Command:
        if command is None:
            for cmd in legal_commands(hosted.state, seat):
                if cmd.key() == legal_id:
                    return cmd
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"no legal command with id {legal_id!r} for seat {seat.value} now",
            )
        if command.seat is not seat:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"the token acts for seat {seat.value}, not {command.seat.value}",
            )
        return command

    async def submit(
        self,
        match_id: str,
        token: str,
        command_id: str,
        expected_version: int,
        command: Command | None,
        legal_id: str,
    ) -> Accepted:
        hosted = await self.get(match_id)
        seat = self.seat_for(hosted, token)
        async with hosted.lock:
            if command_id and command_id in hosted.command_ids:
                first, last = hosted.command_ids[command_id]
                return Accepted(
                    await self._events_between(hosted, first, last),
                    to_act(hosted.state),
                    hosted.state.winner,
                )
            state = hosted.state
            if expected_version >= 0 and expected_version != state.version:
                raise ServiceError(
                    grpc.StatusCode.ABORTED,
                    f"stale version: you expected {expected_version}, the match is at "
                    f"{state.version}",
                )
            cmd = self.resolve(hosted, seat, command, legal_id)
            check(state, cmd)
            events = await self._decide(hosted, cmd)
            new_state = state.clone()
            fold(new_state, events)
            first = state.version + 1
            numbered = list(enumerate(events, start=first))
            batch = events_pb2.EventBatch(
                match_id=match_id,
                envelopes=[
                    events_pb2.EventEnvelope(
                        match_id=match_id, seq=s, state_version=s, event=event_to_proto(e)
                    )
                    for s, e in numbered
                ],
                command_id=command_id,
                seat=types_pb2.Seat.ValueType(enum_to_proto(seat)),
                command=command_to_proto(cmd),
            )
            with tracer().start_as_current_span("nats.publish events"):
                try:
                    stream_seq = await self.bus.publish_batch(batch, hosted.stream_seq)
                except WriterConflict:
                    self.matches.pop(match_id, None)
                    raise ServiceError(
                        grpc.StatusCode.ABORTED,
                        "another orchestrator wrote to this match; retry the command",
                    ) from None
            hosted.state = new_state
            hosted.stream_seq = stream_seq
            hosted.last_batch = list(batch.envelopes)
            for s, e in numbered:
                hosted.history[s] = e
            if command_id:
                hosted.command_ids[command_id] = (first, new_state.version)
            hosted.since_snapshot += 1
            if hosted.since_snapshot >= self.snapshot_every or new_state.over:
                hosted.since_snapshot = 0
                self._spawn(self._snapshot(hosted))
            async with hosted.changed:
                hosted.changed.notify_all()
        actor = to_act(new_state)
        self._spawn(self._announce_turn(hosted, actor))
        return Accepted(numbered, actor, new_state.winner)

    async def _decide(self, hosted: HostedMatch, cmd: Command) -> list[Event]:
        state = hosted.state
        ctx = domain_pb2.DomainContext(
            match_id=hosted.match_id,
            base_version=state.version,
            base_stream_seq=hosted.stream_seq,
            committed_tail=hosted.last_batch,
        )
        events = await self.clients.decide(owner(state, cmd), ctx, cmd)
        ctx.pending_events.extend(event_to_proto(e) for e in events)
        advanced = await self.clients.advance(ctx)
        ctx.pending_events.extend(event_to_proto(e) for e in advanced)
        finished = await self.clients.evaluate(ctx)
        return [*events, *advanced, *finished]

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _snapshot(self, hosted: HostedMatch) -> None:
        snap = Snapshot(hosted.state, hosted.stream_seq, dict(hosted.command_ids))
        try:
            await self.bus.put_snapshot(hosted.match_id, encode(snap))
        except Exception:  # a snapshot is an optimisation; the stream is the truth
            log.warning("snapshot of %s failed", hosted.match_id, exc_info=True)

    async def _announce_turn(self, hosted: HostedMatch, actor: Seat | None) -> None:
        notice = f'{{"version": {hosted.state.version}, "to_act": "{actor or ""}"}}'
        try:
            await self.bus.nc.publish(turn_subject(hosted.match_id), notice.encode())
        except Exception:
            log.debug("turn notice failed", exc_info=True)

    # ----- history -----------------------------------------------------------------------
    async def _events_between(
        self, hosted: HostedMatch, first: int, last: int
    ) -> list[tuple[int, Event]]:
        if first < hosted.history_start:
            await self._load_history(hosted)
        return [(s, hosted.history[s]) for s in range(first, last + 1)]

    async def _load_history(self, hosted: HostedMatch) -> None:
        from frontier.wire.convert import event_from_proto

        async for stored in self.bus.iter_batches(hosted.match_id, 0):
            older = [e for e in stored.batch.envelopes if e.seq < hosted.history_start]
            for env in older:
                hosted.history[env.seq] = event_from_proto(env.event)
            if len(older) < len(stored.batch.envelopes):
                break
        hosted.history_start = 1

    async def watch(
        self, match_id: str, token: str, from_version: int
    ) -> AsyncIterator[tuple[int, Event]]:
        """Events with seq > from_version as the caller may see them, then live ones."""
        hosted = await self.get(match_id)
        viewer = self.viewer_for(hosted, token)
        sent = max(from_version, 0)
        if sent + 1 < hosted.history_start:
            await self._load_history(hosted)
        while True:
            version = hosted.state.version
            while sent < version:
                sent += 1
                yield sent, event_for(hosted.state, hosted.history[sent], viewer)
            if hosted.state.over:
                return
            async with hosted.changed:
                await hosted.changed.wait_for(partial(_newer_than, hosted, sent))

    async def close(self) -> None:
        for task in list(self._background):
            await task


def _newer_than(hosted: HostedMatch, version: int) -> bool:
    return hosted.state.version > version


def _valid_id(match_id: str) -> bool:
    return len(match_id) == 32 and all(c in "0123456789abcdef" for c in match_id)


def _host(match_id: str, loaded: LoadedMatch) -> HostedMatch:
    return HostedMatch(
        match_id=match_id,
        config=loaded.config,
        state=loaded.state,
        stream_seq=loaded.stream_seq,
        seat_by_token_hash=loaded.seat_by_token_hash,
        command_ids=loaded.command_ids,
        history_start=loaded.state.version + 1,
    )
