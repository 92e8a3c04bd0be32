"""The orchestrator's logic: hosting matches and the command pipeline, free of gRPC plumbing.

For each accepted command, in this order, under the match's lock:
  1. authenticate the seat token and check the command against the seat's legal commands
     at the match's version (kept per version: see legal_cache), so a bad command never
     reaches a domain service;
  2. the owning domain service decides the command's events;
  3. the turn-order service advances steps/turns/rounds on top of them -- unless the engine's
     ``at_rest`` says there is nothing to advance, as after most commands (see _decide);
  4. the scoring service ends the match at the round limit (R30);
  5. the events, folded into a copy of the state as they came (a last consistency check), are
     published as
     ONE JetStream message with the expected last subject sequence (single writer), and only
     after the publish is acknowledged does the copy become the match's state.
Nothing is changed unless every step succeeds, so a failure anywhere leaves the match as it
was and the client can retry with the same command id.

Every command takes this one path, whoever chose it: a MatchService client, a bot's Play
stream (:mod:`.bot_service`), or the match's *referee* task, which answers on a seat's behalf
when its deadline passes (the default command and a strike), when one of its standing
answers covers the open decision, or once the built-in bot has taken the seat over.  The
batch's ``DecisionRecord`` says which, with the seat's clock and strikes after it
(:mod:`.referee`), so timeouts and takeovers are committed, replayed and recovered like any
other command.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Coroutine, Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from functools import partial
from typing import Any, Protocol

import grpc

from frontier.bots import default_command, make_bot
from frontier.bots.standing import StandingPolicy, choose
from frontier.engine import Seat, Team, initial_state, make_config, to_act
from frontier.engine.config import MatchConfig
from frontier.engine.decide import check
from frontier.engine.domains import owner
from frontier.engine.evolve import fold
from frontier.engine.model import Command, Event, EventKind
from frontier.engine.state import State
from frontier.engine.turn import at_rest
from frontier.engine.view import event_for
from frontier.runtime.bus import Bus, WriterConflict, turn_subject
from frontier.runtime.errors import ServiceError, not_found
from frontier.runtime.matches import LoadedMatch, load_match, note_record, token_hash
from frontier.runtime.snapshot import SeatClock, Snapshot, encode
from frontier.runtime.telemetry import tracer
from frontier.v1 import domain_pb2, events_pb2, types_pb2
from frontier.wire.convert import (
    command_from_proto,
    command_to_proto,
    enum_from_proto,
    enum_to_proto,
    event_from_proto,
    event_to_proto,
)

from . import referee
from .clients import DomainClients
from .leases import LeaseLost, Leases
from .legal_cache import LegalCache, SeatLegal
from .referee import AnsweredBy, ClockConfig

log = logging.getLogger("frontier.orchestrator")


def unix_ms() -> int:
    return int(time.time() * 1000)


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
    clock: ClockConfig = field(default_factory=ClockConfig)
    clocks: dict[Seat, SeatClock] = field(default_factory=dict)  # seats that answered once
    standing: dict[Seat, dict[str, StandingPolicy]] = field(default_factory=dict)
    # first seq of each batch in ``history`` -> (acting seat, its decision record)
    records: dict[int, tuple[Seat, events_pb2.DecisionRecord]] = field(default_factory=dict)
    last_used: float = field(default_factory=time.monotonic)  # for unloading finished ones
    opened_at: float = field(default_factory=time.monotonic)  # when the open decision opened
    opened_unix_ms: int = field(default_factory=unix_ms)
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # the referee's alarm
    sessions: dict[Seat, SessionListener] = field(default_factory=dict)  # bot streams
    referee: asyncio.Task[None] | None = None
    legal_cache: LegalCache = field(default_factory=LegalCache)

    def legal(self, seat: Seat) -> SeatLegal:
        """``seat``'s legal commands now (computed once per version, see legal_cache)."""
        return self.legal_cache.of(self.state, seat)

    def clock_of(self, seat: Seat) -> SeatClock:
        return self.clocks.get(seat) or self.clock.fresh()

    def deadline_unix_ms(self, seat: Seat) -> int:
        """When the open decision of ``seat`` times out (0: no clock)."""
        if not self.clock.enabled:
            return 0
        return self.opened_unix_ms + self.clock.allowance_ms(self.clock_of(seat))


class SessionListener(Protocol):
    """A bot stream attached to one seat: told about every commit so it can send the next
    decision request (and a Strike when its seat timed out)."""

    def on_commit(self, seat: Seat, command: Command, record: events_pb2.DecisionRecord) -> None:
        """Called by the single writer right after a batch is committed."""
        ...

    def poke(self) -> None:
        """Something else changed (standing answers): look at the open decision again."""
        ...

    def close(self, code: grpc.StatusCode, reason: str) -> None:
        """End the stream with ``code`` (a newer stream replaced it, the server drains)."""
        ...


# How long the referee waits before retrying an automatic answer that failed (a domain
# service down, NATS unreachable): it doubles up to the maximum, and resets on success.
RETRY_FIRST_S = 0.1
RETRY_MAX_S = 2.0


@dataclass(frozen=True, slots=True)
class MatchSummary:
    match_id: str
    lineup: str
    round: int
    score_a: int
    score_b: int
    winner: str
    version: int

    @classmethod
    def of(cls, match_id: str, lineup: str, state: State) -> MatchSummary:
        return cls(
            match_id,
            lineup,
            state.round,
            state.scores[Team.A],
            state.scores[Team.B],
            state.winner,
            state.version,
        )


@dataclass(frozen=True, slots=True)
class Accepted:
    events: list[tuple[int, Event]]  # (seq, event), unfiltered
    to_act: Seat | None
    winner: str


class NotOwner(Exception):
    """Another live orchestrator holds this match's lease: the request goes to it."""

    def __init__(self, match_id: str, address: str) -> None:
        super().__init__(f"match {match_id} is served by the orchestrator at {address}")
        self.address = address


class Orchestrator:
    def __init__(
        self,
        bus: Bus,
        clients: DomainClients,
        snapshot_every: int,
        leases: Leases | None = None,
        finished_ttl_s: float = 300.0,
    ) -> None:
        self.bus = bus
        self.finished_ttl_s = finished_ttl_s
        self.clients = clients
        self.snapshot_every = snapshot_every
        # Without leases (a single orchestrator, in tests) every match is ours.
        self.leases = leases
        self._unclaimed: set[str] = set()  # clocked matches whose lease another one held
        self.matches: dict[str, HostedMatch] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._background: set[asyncio.Task[None]] = set()
        self.draining = False

    # ----- matches ---------------------------------------------------------------------------
    async def create_match(
        self,
        seed: int,
        lineup: str,
        team_hands_visible: bool,
        max_rounds: int,
        clock: ClockConfig | None = None,
    ) -> tuple[str, dict[Seat, str]]:
        clock = clock or ClockConfig()
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
        seat_by_hash = {token_hash(t): seat.value for seat, t in tokens.items()}
        record = {
            "config": config.model_dump(),
            "tokens": seat_by_hash,
            "clock": clock.as_record(),
        }
        await self.bus.put_match(match_id, record)
        if self.leases is not None:
            await self.leases.acquire(match_id)  # a new match: nobody else can hold it
        hosted = HostedMatch(
            match_id=match_id,
            config=config,
            state=state,
            stream_seq=0,
            seat_by_token_hash=dict(seat_by_hash),
            command_ids={},
            clock=clock,
        )
        self.matches[match_id] = hosted
        self._ensure_referee(hosted)
        await self.bus.lobby({"event": "created", "match_id": match_id, "lineup": config.lineup})
        return match_id, tokens

    async def get(self, match_id: str) -> HostedMatch:
        hosted = self.matches.get(match_id)
        if hosted is not None:
            hosted.last_used = time.monotonic()
            return hosted
        lock = self._loading.setdefault(match_id, asyncio.Lock())
        async with lock:
            hosted = self.matches.get(match_id)
            if hosted is None:
                if not _valid_id(match_id) or await self.bus.get_match(match_id) is None:
                    raise not_found(match_id)
                await self._own(match_id)
                loaded = await load_match(self.bus, match_id)
                if loaded is None:
                    raise not_found(match_id)
                hosted = _host(match_id, loaded)
                for seat in hosted.state.order:
                    stored = await self.bus.get_standing(match_id, seat.value)
                    if stored:
                        hosted.standing[seat] = _policies(stored)
                self.matches[match_id] = hosted
                self._ensure_referee(hosted)
        return hosted

    async def _own(self, match_id: str) -> None:
        """Take the match's lease, or raise NotOwner naming the live orchestrator holding it."""
        if self.leases is None:
            return
        lease = await self.leases.acquire(match_id)
        if lease is not None and lease.owner != self.leases.owner:
            raise NotOwner(match_id, lease.address)

    async def keep_leases(self) -> None:
        """Renew our leases while we live; forget a match whose lease another one took."""
        if self.leases is None:
            return
        period = self.leases.ttl_s / 3
        while not self.draining:
            await asyncio.sleep(period)
            for match_id in sorted(self._unclaimed):
                try:
                    await self.get(match_id)
                except NotOwner:
                    continue
                except Exception:
                    log.warning("could not resume match %s", match_id, exc_info=True)
                    continue
                self._unclaimed.discard(match_id)
            for match_id in list(self.leases.held):
                try:
                    await self.leases.renew(match_id)
                except LeaseLost:
                    hosted = self.matches.get(match_id)
                    if hosted is not None:
                        log.warning("lost the lease of %s; dropping it", match_id)
                        self._drop(hosted)
                except Exception:  # NATS briefly away: keep trying until the lease expires
                    log.warning("renewing the lease of %s failed", match_id, exc_info=True)

    async def unload_finished(self) -> None:
        """Forget finished matches nobody used for ``finished_ttl_s``, while we live.

        A finished match is only read (views, WatchEvents, replays), and everything it holds
        (its state, the events of the whole match, command ids) is in NATS, where :meth:`get`
        finds it again on the next use.  Without this a long-running orchestrator would keep
        every match it ever hosted in memory."""
        period = max(0.05, min(self.finished_ttl_s, 60.0) / 2)
        while not self.draining:
            await asyncio.sleep(period)
            try:
                await self.unload_idle(time.monotonic())
            except Exception:  # NATS briefly away: the next pass tries again
                log.warning("unloading finished matches failed", exc_info=True)

    async def unload_idle(self, now: float) -> list[str]:
        """One pass of :meth:`unload_finished`; returns the ids of the matches unloaded."""
        gone: list[str] = []
        for hosted in list(self.matches.values()):
            if (
                hosted.state.over
                and now - hosted.last_used >= self.finished_ttl_s
                and not hosted.sessions
                and not hosted.lock.locked()
            ):
                if self.leases is not None:  # before _drop, which forgets the revision
                    with contextlib.suppress(Exception):  # else it expires by itself
                        await self.leases.release(hosted.match_id)
                self._drop(hosted)
                gone.append(hosted.match_id)
        if gone:
            log.info("unloaded %d finished match(es): %s", len(gone), ", ".join(gone))
        return gone

    async def summaries(self) -> list[MatchSummary]:
        """Every registered match; ones hosted elsewhere are read from NATS, not taken."""
        out: list[MatchSummary] = []
        for match_id in sorted(set(await self.bus.match_ids()) | set(self.matches)):
            hosted = self.matches.get(match_id)
            if hosted is not None:
                out.append(MatchSummary.of(match_id, hosted.config.lineup, hosted.state))
                continue
            loaded = await load_match(self.bus, match_id)
            if loaded is not None:
                out.append(MatchSummary.of(match_id, loaded.config.lineup, loaded.state))
        return out

    async def resume(self) -> None:
        """After a (re)start: load every match with a clock or standing answers, so its
        deadlines and automatic answers go on without waiting for a client to touch it
        (a finished match is loaded, seen to be over, and left alone)."""
        with_standing = set(await self.bus.standing_match_ids())
        for match_id in await self.bus.match_ids():
            if match_id in self.matches or self.draining:
                continue
            try:
                if match_id not in with_standing:
                    record = await self.bus.get_match(match_id)
                    clock = record.get("clock") if record else None
                    if not isinstance(clock, dict) or not ClockConfig.from_record(clock).enabled:
                        continue
                await self.get(match_id)
            except NotOwner:
                # A live orchestrator runs it -- or a dead one whose lease has not expired
                # yet: keep_leases tries again until somebody (maybe us) owns it.
                self._unclaimed.add(match_id)
            except Exception:
                log.warning("could not resume match %s", match_id, exc_info=True)

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
            found = hosted.legal(seat).by_id.get(legal_id)
            if found is not None:
                return found
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
            self._check_not_taken_over(hosted, seat)
            cmd = self.resolve(hosted, seat, command, legal_id)
            numbered = await self._commit(hosted, seat, cmd, command_id, referee.SEAT)
        return Accepted(numbered, to_act(hosted.state), hosted.state.winner)

    def _check_not_taken_over(self, hosted: HostedMatch, seat: Seat) -> None:
        if hosted.clock_of(seat).taken_over:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"seat {seat.value} missed {hosted.clock.strike_limit} deadlines and is played "
                "by the built-in bot for the rest of the match",
            )

    async def _commit(
        self, hosted: HostedMatch, seat: Seat, cmd: Command, command_id: str, by: AnsweredBy
    ) -> list[tuple[int, Event]]:
        """Steps 1-5 of the module docstring for one resolved command; the caller holds the
        match's lock and has checked the version and the seat."""
        state = hosted.state
        legal = hosted.legal(cmd.seat)
        if not legal.contains(cmd):
            check(state, cmd, legal.commands)  # raises, saying why not
            raise AssertionError(f"check() accepted {cmd.key()}, not in the legal list")
        events, new_state, next_legal = await self._decide(hosted, cmd)
        elapsed_ms = int((time.monotonic() - hosted.opened_at) * 1000)
        record, clock_after = referee.settle(
            hosted.clock, hosted.clock_of(seat), str(state.version), by, elapsed_ms
        )
        first = state.version + 1
        numbered = list(enumerate(events, start=first))
        batch = events_pb2.EventBatch(
            match_id=hosted.match_id,
            envelopes=[
                events_pb2.EventEnvelope(
                    match_id=hosted.match_id, seq=s, state_version=s, event=event_to_proto(e)
                )
                for s, e in numbered
            ],
            command_id=command_id,
            seat=types_pb2.Seat.ValueType(enum_to_proto(seat)),
            command=command_to_proto(cmd),
            decision=record,
        )
        with tracer().start_as_current_span("nats.publish events"):
            try:
                stream_seq = await self.bus.publish_batch(batch, hosted.stream_seq)
            except WriterConflict:
                self._drop(hosted)
                raise ServiceError(
                    grpc.StatusCode.ABORTED,
                    "another orchestrator wrote to this match; retry the command",
                ) from None
        hosted.state = new_state
        if next_legal is not None and new_state.turn_seat is not None:
            hosted.legal_cache.seed(new_state, new_state.turn_seat, next_legal)
        hosted.stream_seq = stream_seq
        hosted.last_batch = list(batch.envelopes)
        for s, e in numbered:
            hosted.history[s] = e
        hosted.records[first] = (seat, record)
        hosted.clocks[seat] = clock_after
        if command_id:
            hosted.command_ids[command_id] = (first, new_state.version)
        hosted.since_snapshot += 1
        if hosted.since_snapshot >= self.snapshot_every or new_state.over:
            hosted.since_snapshot = 0
            self._spawn(self._snapshot(hosted))
        hosted.opened_at = time.monotonic()
        hosted.opened_unix_ms = unix_ms()
        async with hosted.changed:
            hosted.changed.notify_all()
        hosted.wake.set()
        for session in list(hosted.sessions.values()):
            session.on_commit(seat, cmd, record)
        await self._announce_turn(hosted, to_act(new_state))
        return numbered

    def _drop(self, hosted: HostedMatch) -> None:
        """Forget a match another orchestrator now writes (it is reloaded on next use)."""
        if self.matches.get(hosted.match_id) is hosted:
            self.matches.pop(hosted.match_id, None)
        if self.leases is not None:
            self.leases.held.pop(hosted.match_id, None)
        if hosted.referee is not None and hosted.referee is not asyncio.current_task():
            hosted.referee.cancel()

    # ----- bots, standing answers and the referee --------------------------------------------
    def automatic(self, hosted: HostedMatch, seat: Seat) -> AnsweredBy | None:
        """Who answers ``seat``'s open decision without waiting for its client, if anyone."""
        if hosted.clock_of(seat).taken_over:
            return referee.BUILT_IN_BOT
        state = hosted.state
        pending = state.decisions[0] if state.decisions else None
        if (
            pending is not None
            and pending.seat is seat
            and pending.kind in hosted.standing.get(seat, {})
        ):
            return referee.STANDING_ANSWER
        return None

    def open_decision(self, hosted: HostedMatch, seat: Seat) -> str | None:
        """The id of the decision the match waits on ``seat`` for, unless it is answered
        automatically (the referee is about to answer it)."""
        if to_act(hosted.state) is not seat or self.automatic(hosted, seat) is not None:
            return None
        return str(hosted.state.version)

    async def answer(self, hosted: HostedMatch, seat: Seat, decision_id: str, legal_id: str) -> str:
        """A bot's answer; returns "" when accepted, else why not (the decision stays open)."""
        if hosted.clock_of(seat).taken_over:
            return "the built-in bot plays this seat now (too many missed deadlines)"
        shown = decision_id[:40]
        if not decision_id.isdigit() or decision_id != str(hosted.state.version):
            return f"no open decision {shown!r} for seat {seat.value}"
        if to_act(hosted.state) is not seat:
            return f"decision {shown!r} is not waiting for seat {seat.value}"
        version = int(decision_id)
        async with hosted.lock:
            if hosted.state.version != version or to_act(hosted.state) is not seat:
                return f"decision {shown!r} is closed"
            if self.automatic(hosted, seat) is not None:
                return f"decision {shown!r} is answered by the server"
            try:
                cmd = self.resolve(hosted, seat, None, legal_id)
            except ServiceError as exc:
                return exc.message
            await self._commit(hosted, seat, cmd, f"bot:{seat.value}:{decision_id}", referee.SEAT)
        return ""

    async def set_standing(
        self, match_id: str, token: str, answers: Mapping[str, StandingPolicy]
    ) -> dict[str, StandingPolicy]:
        hosted = await self.get(match_id)
        seat = self.seat_for(hosted, token)
        stored = dict(sorted(answers.items()))
        await self.bus.put_standing(match_id, seat.value, {k: v.value for k, v in stored.items()})
        if stored:
            hosted.standing[seat] = stored
        else:
            hosted.standing.pop(seat, None)
        self._ensure_referee(hosted)
        hosted.wake.set()
        for session in list(hosted.sessions.values()):
            session.poke()
        return stored

    async def get_standing(self, match_id: str, token: str) -> dict[str, StandingPolicy]:
        hosted = await self.get(match_id)
        return dict(hosted.standing.get(self.seat_for(hosted, token), {}))

    def _ensure_referee(self, hosted: HostedMatch) -> None:
        """Start the match's referee task if it has anything to do."""
        if hosted.referee is not None and not hosted.referee.done():
            return
        if hosted.state.over or self.draining:
            return
        needed = (
            hosted.clock.enabled
            or any(hosted.standing.values())
            or any(c.taken_over for c in hosted.clocks.values())
        )
        if needed:
            hosted.referee = asyncio.ensure_future(self._referee(hosted))

    async def _referee(self, hosted: HostedMatch) -> None:
        """Answers on seats' behalf: standing answers and the built-in bot at once, the
        default command when a deadline passes.  Each answer is an ordinary commit."""
        retry = RETRY_FIRST_S
        while not hosted.state.over and self.matches.get(hosted.match_id) is hosted:
            hosted.wake.clear()
            state = hosted.state
            seat = to_act(state)
            if seat is None:
                return
            by = self.automatic(hosted, seat)
            if by is None and hosted.clock.enabled:
                allowance = hosted.clock.allowance_ms(hosted.clock_of(seat)) / 1000
                left = hosted.opened_at + allowance - time.monotonic()
                if left <= 0:
                    by = referee.TIMEOUT
                else:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(hosted.wake.wait(), left)
                    continue
            if by is None:
                await hosted.wake.wait()
                continue
            try:
                await self._answer_for(hosted, state.version, seat, by)
                retry = RETRY_FIRST_S
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.matches.get(hosted.match_id) is not hosted:
                    return
                log.warning(
                    "match %s: automatic answer for %s failed (%s); retrying in %.1fs",
                    hosted.match_id,
                    seat.value,
                    exc,
                    retry,
                )
                await asyncio.sleep(retry)
                retry = min(retry * 2, RETRY_MAX_S)

    async def _answer_for(
        self, hosted: HostedMatch, version: int, seat: Seat, by: AnsweredBy
    ) -> None:
        async with hosted.lock:
            state = hosted.state
            if state.version != version or to_act(state) is not seat:
                return  # answered meanwhile
            if by != referee.TIMEOUT and self.automatic(hosted, seat) != by:
                return  # the standing answers changed meanwhile: look again
            legal = hosted.legal(seat).commands
            if by == referee.TIMEOUT:
                cmd = default_command(legal)
            elif by == referee.STANDING_ANSWER:
                policy = hosted.standing[seat][state.decisions[0].kind]
                cmd = choose(policy, legal)
            else:
                # a fresh bot per decision, seeded by match, seat and version: a retried
                # answer is the same command, and nothing depends on bot state in memory
                seed = int(hosted.match_id[:15], 16) + 7919 * version + list(Seat).index(seat)
                cmd = make_bot(hosted.clock.takeover_bot, seed).choose(state, seat, legal)
            kind = {
                referee.TIMEOUT: "timeout",
                referee.STANDING_ANSWER: "standing",
                referee.BUILT_IN_BOT: "bot",
            }[by]
            await self._commit(hosted, seat, cmd, f"{kind}:{seat.value}:{version}", by)

    async def _decide(
        self, hosted: HostedMatch, cmd: Command
    ) -> tuple[list[Event], State, list[Command] | None]:
        """Steps 2-4: the command's events, the state they lead to (a new object; the
        match's state is not touched; each step's events are folded as they come, which is
        also the last consistency check of what the services sent) and, when they were
        listed on the way, the legal commands of that state's turn seat."""
        state = hosted.state
        ctx = domain_pb2.DomainContext(
            match_id=hosted.match_id,
            base_version=state.version,
            base_stream_seq=hosted.stream_seq,
            committed_tail=hosted.last_batch,
        )
        events = await self.clients.decide(owner(state, cmd), ctx, cmd)
        new_state = state.clone()
        fold(new_state, events)
        rest, commands = at_rest(new_state)
        if rest:
            # Nothing to advance (most commands: the seat still has choices in its step, or
            # a decision is open), so the turn-order round trip would return no events.  The
            # commands listed to find that out are the next legal list: keep them.
            return events, new_state, commands
        ctx.pending_events.extend(event_to_proto(e) for e in events)
        advanced = await self.clients.advance(ctx)
        fold(new_state, advanced)
        if not any(e.kind is EventKind.ROUND_LIMIT_REACHED for e in advanced):
            # Scoring's verdict only ever follows the round limit (the 90-point win is
            # checked as points are scored, inside whichever domain scores them), so the
            # scoring hop is skipped on every other command: one round trip less.
            return [*events, *advanced], new_state, None
        ctx.pending_events.extend(event_to_proto(e) for e in advanced)
        finished = await self.clients.evaluate(ctx)
        fold(new_state, finished)
        return [*events, *advanced, *finished], new_state, None

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _snapshot(self, hosted: HostedMatch) -> None:
        snap = Snapshot(
            hosted.state,
            hosted.stream_seq,
            dict(hosted.command_ids),
            {seat.value: clock for seat, clock in hosted.clocks.items()},
        )
        try:
            await self.bus.put_snapshot(hosted.match_id, encode(snap))
        except Exception:  # a snapshot is an optimisation; the stream is the truth
            log.warning("snapshot of %s failed", hosted.match_id, exc_info=True)

    async def _announce_turn(self, hosted: HostedMatch, actor: Seat | None) -> None:
        """Core NATS, fire and forget: publishing only appends to the client's buffer, so it
        is awaited in line rather than given a task of its own."""
        notice = json.dumps(
            {
                "version": hosted.state.version,
                "to_act": actor.value if actor else "",
                "deadline_unix_ms": hosted.deadline_unix_ms(actor) if actor else 0,
            }
        )
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
        async for stored in self.bus.iter_batches(hosted.match_id, 0):
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
        self, match_id: str, token: str, from_version: int
    ) -> AsyncIterator[tuple[int, Event, events_pb2.DecisionRecord | None]]:
        """Events with seq > from_version as the caller may see them, then live ones; the
        first event of each batch comes with the batch's decision record (as the caller may
        see it)."""
        hosted = await self.get(match_id)
        viewer = self.viewer_for(hosted, token)
        sent = max(from_version, 0)
        if sent + 1 < hosted.history_start:
            await self._load_history(hosted)
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
            if hosted.state.over:
                return
            if self.draining:
                raise ServiceError(
                    grpc.StatusCode.UNAVAILABLE,
                    f"the server is shutting down; watch again from version {sent}",
                )
            async with hosted.changed:
                await hosted.changed.wait_for(partial(self._newer_than, hosted, sent))

    async def export_replay(self, match_id: str, token: str) -> str:
        """The match's history as the caller may see it (see ExportReplayResponse)."""
        hosted = await self.get(match_id)
        viewer = self.viewer_for(hosted, token)
        state = hosted.state
        batches: list[dict[str, object]] = []
        async for stored in self.bus.iter_batches(match_id, 0):
            batch = stored.batch
            if not batch.envelopes:
                continue
            seat = enum_from_proto(Seat, batch.seat)
            cmd = command_from_proto(batch.command)
            entry: dict[str, object] = {
                "seat": seat.value,
                "first_seq": batch.envelopes[0].seq,
                "command": _record_json(cmd) if seat is viewer else {"kind": cmd.kind.value},
                "events": [
                    _record_json(event_for(state, event_from_proto(env.event), viewer))
                    for env in batch.envelopes
                ],
            }
            if batch.HasField("decision"):
                shown = referee.record_for(
                    batch.decision, seat.value, viewer.value if viewer else None
                )
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
                "version": state.version,
                "batches": batches,
            },
            sort_keys=True,
        )

    def _newer_than(self, hosted: HostedMatch, version: int) -> bool:
        return hosted.state.version > version or self.draining

    async def drain(self) -> None:
        """Before the grace period: stop the referees (another orchestrator, or this one
        after its restart, resumes them from the stream) and end every bot stream and
        watch with UNAVAILABLE, so clients reconnect instead of holding the shutdown."""
        self.draining = True
        for hosted in list(self.matches.values()):
            if hosted.referee is not None:
                hosted.referee.cancel()
            for session in list(hosted.sessions.values()):
                session.close(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
            async with hosted.changed:
                hosted.changed.notify_all()

    async def close(self) -> None:
        for hosted in list(self.matches.values()):
            if hosted.referee is not None:
                hosted.referee.cancel()
        if self.leases is not None:  # let another orchestrator take over at once
            for match_id in list(self.leases.held):
                with contextlib.suppress(Exception):
                    await self.leases.release(match_id)
        for task in list(self._background):
            await task


SEAT_REPLAY_FORMAT = "frontier.seat-replay/1"


def _record_json(record: Command | Event) -> dict[str, object]:
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


def _policies(stored: Mapping[str, str]) -> dict[str, StandingPolicy]:
    out: dict[str, StandingPolicy] = {}
    for kind, policy in stored.items():
        with contextlib.suppress(ValueError):
            out[kind] = StandingPolicy(policy)
    return out


def _valid_id(match_id: str) -> bool:
    return len(match_id) == 32 and all(c in "0123456789abcdef" for c in match_id)


def _host(match_id: str, loaded: LoadedMatch) -> HostedMatch:
    """A loaded match; the open decision's clock restarts now (its reserve as recorded)."""
    return HostedMatch(
        match_id=match_id,
        config=loaded.config,
        state=loaded.state,
        stream_seq=loaded.stream_seq,
        seat_by_token_hash=loaded.seat_by_token_hash,
        command_ids=loaded.command_ids,
        history_start=loaded.state.version + 1,
        clock=ClockConfig.from_record(loaded.clock),
        clocks={Seat(seat): clock for seat, clock in loaded.clocks.items()},
    )
