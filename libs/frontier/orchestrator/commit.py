"""The commit path: how one command becomes the match's next batch, top to bottom.

A seat's command (:meth:`CommitPath.submit`) runs under the match's lock, in a task of its
own (:mod:`.writes`), and takes these steps, each a function below (step 1's checks are
:mod:`.checks`):

  1. **check** (:meth:`CommitPath._submit`, :meth:`CommitPath.commit`): a
     retried command id gets its first result again; otherwise the expected version, the
     match and the seat must be in play, and the command one of the seat's legal commands
     at this version (:mod:`.legal_cache`), so a bad command never reaches a domain service;
  2. **decide** (:meth:`CommitPath._decide`): the owning domain service decides the events
     (told that step 1 checked the command: ``DomainContext.legal_checked``); turn-order
     advances steps, turns and rounds on top of them (in the same call for its own
     commands, not at all when the engine's ``at_rest`` says there is nothing to advance);
     scoring ends the match at the round limit (R30);
  3. **fold**: each step's events are folded into a copy of the state as they come, the
     last consistency check of what the services sent;
  4. **settle** (:func:`_settle`, :func:`_batch`): the referee's verdict on the seat's
     clock, and the batch with its ``DecisionRecord``;
  5. **publish** (:meth:`CommitPath._publish`): ONE JetStream message with the expected
     last subject sequence (single writer); an unknown outcome is settled from NATS before
     the match takes its next command;
  6. **commit** (:meth:`CommitPath._apply`): only after the acknowledgement does the copy
     become the match's state (:meth:`.hosted_match.HostedMatch.apply`); watchers, the
     referee, bot streams and turn-notice subscribers are told;
  7. **reply** (:func:`_reply`): the events, who acts next and, while it is still the
     seat's turn, its next legal commands.

Nothing is changed unless every step succeeds, so a failure anywhere leaves the match as it
was and the client can retry with the same command id.  Steps 1-6 are every command's path,
whoever chose it: a MatchService client, a bot's Play stream (:mod:`.bot_service`) or the
match's referee (:mod:`.decisions`) call :meth:`CommitPath.commit` alike.  The batch's
``DecisionRecord`` says who answered, with the seat's clock after it (:mod:`.referee`), so
timeouts and takeovers are committed, replayed and recovered like any other command.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

import grpc

from frontier.engine import Seat, to_act
from frontier.engine.domains import Domain, owner
from frontier.engine.evolve import fold
from frontier.engine.model import Command, Event, EventKind
from frontier.engine.state import State
from frontier.engine.turn import at_rest
from frontier.runtime.answers import publish as publish_now
from frontier.runtime.bus import Bus, WriterConflict, turn_subject
from frontier.runtime.errors import (
    NATS_UNREACHABLE,
    WRITER_CONFLICT_MESSAGE,
    ServiceError,
    about,
    shown,
)
from frontier.runtime.metrics import counted_commit
from frontier.runtime.telemetry import span
from frontier.store.matches import match_start
from frontier.store.snapshot import CommandResult, SeatClock, encode
from frontier.v1 import domain_pb2, events_pb2, types_pb2
from frontier.wire.convert import command_to_proto, enum_to_proto

from . import history, referee
from .checks import check_legal, checked
from .clients import DomainClients
from .hosted_match import CommittedBatch, HostedMatch, SubmitResult
from .legal_cache import Listed
from .referee import AnsweredBy
from .write_path import WritePath
from .writes import Writes

log = logging.getLogger("frontier.orchestrator")


# How long a publish whose outcome is unknown waits before it is tried again: doubling up
# to the maximum, for as long as NATS does not answer.
SETTLE_FIRST_S = 0.05
SETTLE_MAX_S = 1.0

# What deciding one command gave: its events, the same as protobuf, the state they lead
# to, and the legal commands of that state's turn seat when they were listed on the way.
Decided = tuple[list[Event], list[types_pb2.Event], State, list[Command] | None]


class CommitPath:
    """The steps of the module docstring, for one match at a time."""

    def __init__(
        self,
        bus: Bus,
        clients: DomainClients,
        snapshot_every: int,
        on_conflict: Callable[[HostedMatch], None],
        settle_wait_s: float = 5.0,
        write_path: WritePath | None = None,
    ) -> None:
        self.bus = bus
        self.write_path = write_path or WritePath()  # told of each failed publish
        self.clients = clients
        self.snapshot_every = snapshot_every
        self.on_conflict = on_conflict  # another orchestrator wrote the match: forget it
        self.writes = Writes(settle_wait_s)
        # every change to a match runs through it, one at a time (see writes.py)
        self.serialized = self.writes.serialized
        self._background: set[asyncio.Task[None]] = set()  # snapshots and notices

    # ----- a seat's command, from the request to the reply ----------------------------------
    async def submit(
        self,
        hosted: HostedMatch,
        seat: Seat,
        command_id: str,
        expected_version: int,
        command: Command | None,
        legal_id: str,
    ) -> SubmitResult:
        """``seat``'s command, as SubmitCommand names it (a full command or a legal id;
        ``expected_version`` -1: any), committed or refused with a ServiceError."""
        work = functools.partial(
            self._submit, hosted, seat, command_id, expected_version, command, legal_id
        )
        return await self.writes.serialized(hosted, work)

    def check_writable(self, hosted: HostedMatch, seat: Seat, command_id: str) -> None:
        """Before the match's lock: a new command is refused at once (UNAVAILABLE
        WRITE_PATH_DOWN) while the write path is down, rather than waiting behind a publish
        that holds the lock; a retry of an accepted command goes on to its first result
        (answering it writes nothing, and the client was told to retry with the same id)."""
        if not command_id or (seat.value, command_id) not in hosted.command_ids:
            self.write_path.check()

    async def _submit(
        self,
        hosted: HostedMatch,
        seat: Seat,
        command_id: str,
        expected_version: int,
        command: Command | None,
        legal_id: str,
    ) -> SubmitResult:
        """Under the match's lock: check, commit (steps 1-6), reply."""
        done = hosted.command_ids.get((seat.value, command_id)) if command_id else None
        if done is not None:
            return await self._again(hosted, seat, command_id, done, command, legal_id)
        cmd = checked(hosted, seat, expected_version, command, legal_id)
        batch = await self.commit(hosted, seat, cmd, command_id, referee.SEAT)
        return _reply(hosted, batch)

    @counted_commit
    async def commit(
        self, hosted: HostedMatch, seat: Seat, cmd: Command, command_id: str, by: AnsweredBy
    ) -> CommittedBatch:
        """Steps 1-6 for one resolved command; the caller holds the match's lock and has
        checked the version, the match and the seat."""
        key = check_legal(hosted, cmd)
        wire_cmd = command_to_proto(cmd)  # once: the domain's request and the batch
        events, wire, new_state, next_legal = await self._decide(hosted, cmd, wire_cmd)
        first = hosted.state.version + 1
        numbered = list(enumerate(events, start=first))
        record, clock = _settle(hosted, seat, by)
        batch = _batch(hosted, seat, command_id, wire_cmd, record, numbered, wire)
        with span("nats.publish events"):
            stream_seq = await self._publish(hosted, batch)
        committed = CommittedBatch(
            seat,
            command_id,
            key,
            numbered,
            list(batch.envelopes),
            record,
            clock,
            new_state,
            stream_seq,
            next_legal,
        )
        await self._apply(hosted, committed, cmd)
        return committed

    # ----- step 2-3: decide and fold --------------------------------------------------------
    async def _decide(
        self, hosted: HostedMatch, cmd: Command, wire_cmd: types_pb2.Command
    ) -> Decided:
        """The command's events (and as protobuf), folded into a new state object (the
        match's state is not touched), and, when they were listed on the way, the legal
        commands of that state's turn seat."""
        state = hosted.state
        domain = owner(state, cmd)
        context = _context(hosted, domain, [])
        context.legal_checked = True  # step 1 did, at this version (see DomainContext)
        decided = await self.clients.decide(domain, context, wire_cmd)
        hosted.tails.heard(domain, decided.replica, state.version)
        events, wire = decided.events, decided.wire
        new_state = state.clone()
        fold(new_state, events)
        # A turn-order command came back advanced already (see DomainClients.decide); any
        # other may leave the match with steps to run.
        if not _round_limit(events):
            rest, commands = at_rest(new_state)
            if rest:
                # Nothing to advance (most commands: the seat still has choices in its step,
                # or a decision is open, or turn-order advanced), so the turn-order round
                # trip would return no events.  The commands listed to find that out are the
                # next legal list: keep them.
                return events, wire, new_state, commands
            advanced = await self.clients.advance(_context(hosted, Domain.TURN_ORDER, wire))
            hosted.tails.heard(Domain.TURN_ORDER, advanced.replica, state.version)
            fold(new_state, advanced.events)
            events, wire = [*events, *advanced.events], [*wire, *advanced.wire]
            if not _round_limit(advanced.events):
                # Scoring's verdict only ever follows the round limit (the 90-point win is
                # checked as points are scored, inside whichever domain scores them), so the
                # scoring hop is skipped on every other command: one round trip less.
                return events, wire, new_state, None
        finished = await self.clients.evaluate(_context(hosted, Domain.SCORING, wire))
        hosted.tails.heard(Domain.SCORING, finished.replica, state.version)
        fold(new_state, finished.events)
        return [*events, *finished.events], [*wire, *finished.wire], new_state, None

    # ----- step 5: publish ------------------------------------------------------------------
    async def _publish(self, hosted: HostedMatch, batch: events_pb2.EventBatch) -> int:
        """Publish ``batch`` and settle its outcome: its stream sequence once it is in the
        stream, ServiceError ABORTED when another batch took its place (the match is then
        reloaded on next use).  A publish whose outcome is unknown (no answer in time, a
        lost connection) is never taken for a failure: the same batch is published again,
        which cannot add a second copy (see Bus.publish_batch), until NATS answers.  The
        match's lock stays held meanwhile, so its next command waits for the answer.

        Only a first attempt's success tells the write path that writes are stored again: a
        later attempt may be answered with the copy an earlier one stored (a duplicate, or
        the batch found in the stream) while the store still takes nothing new, and the
        path brought up by that would let the next command wait out NATS instead of being
        refused at once; nor does a first attempt begun before the path went down (see
        write_path.py).  After an unknown outcome the path's probe says when it is up."""
        delay = SETTLE_FIRST_S
        first = True
        begun = self.write_path.begin()
        while True:
            try:
                seq = await self.bus.publish_batch(batch, hosted.stream_seq)
                if first:
                    await self.write_path.succeeded(begun)  # logged once if it was down
                return seq
            except WriterConflict:
                self.on_conflict(hosted)
                raise ServiceError(
                    grpc.StatusCode.ABORTED, WRITER_CONFLICT_MESSAGE, "WRITER_CONFLICT"
                ) from None
            except NATS_UNREACHABLE as exc:
                first = False
                await self.write_path.failed(exc)
                log.warning(
                    "match %s: the outcome of publishing the batch after version %d is "
                    "unknown (%s); publishing it again in %.2fs",
                    hosted.match_id,
                    hosted.state.version,
                    type(exc).__name__,
                    delay,
                )
            except asyncio.CancelledError:
                # only when the server stops: forget the match, whose stream may or may
                # not hold the batch; whoever loads it next reads the truth from NATS
                self.on_conflict(hosted)
                raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, SETTLE_MAX_S)

    # ----- step 6: commit -------------------------------------------------------------------
    async def _apply(self, hosted: HostedMatch, batch: CommittedBatch, cmd: Command) -> None:
        """The acknowledged batch becomes the match's state; then everyone who follows the
        match hears of it."""
        snapshot_due = hosted.apply(batch, self.snapshot_every)
        if batch.state.over:
            self._spawn(self._announce_end(hosted))
        if snapshot_due:
            self._spawn(self._snapshot(hosted))
        await hosted.tell_readers()
        for session in list(hosted.sessions.values()):
            session.on_commit(batch.seat, cmd, batch.record)
        await self._announce_turn(hosted)

    async def abandon(self, hosted: HostedMatch, reason: str) -> None:
        """End the match unplayed: one batch with ``abandoned`` set and no events (the
        caller holds the match's lock).  Its bot streams get MatchOver with no winner."""
        batch = events_pb2.EventBatch(match_id=hosted.match_id, abandoned=True)
        hosted.abandon(await self._publish(hosted, batch))
        self._spawn(self._announce_end(hosted))
        await hosted.tell_readers()
        for session in list(hosted.sessions.values()):
            session.poke()
        log.info("match %s: %s", hosted.match_id, reason)

    # ----- a retried command id -------------------------------------------------------------
    async def _again(
        self,
        hosted: HostedMatch,
        seat: Seat,
        command_id: str,
        done: CommandResult,
        command: Command | None,
        legal_id: str,
    ) -> SubmitResult:
        """A retry of an accepted command: the first result again, exactly.  The same id
        with another command is refused: it would otherwise be silently not applied."""
        asked = legal_id if command is None else command.key()
        if asked != done.command:
            raise ServiceError(
                grpc.StatusCode.ALREADY_EXISTS,
                f"seat {seat.value} already used command id {shown(command_id)} for another "
                f"command ({shown(done.command)}); a new command needs a new id",
                "COMMAND_ID_REUSED",
                about("command_id"),
            )
        latest = hosted.latest.get(seat)
        if latest is not None and latest[0] == command_id:
            return latest[1]
        # An older command, or the first answer was given before a restart: the same events,
        # seat to act and winner; the legal commands only while the match has not moved
        # on (after that they would be stale).
        still = hosted.state.version == done.last
        return SubmitResult(
            await history.events_between(self.bus, hosted, done.first, done.last),
            Seat(done.to_act) if done.to_act else None,
            done.winner,
            _next_legal(hosted, seat) if still and done.to_act == seat.value else None,
        )

    # ----- after a commit: snapshots and notices ----------------------------------------------
    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _snapshot(self, hosted: HostedMatch) -> None:
        try:
            await self.bus.put_snapshot(hosted.match_id, encode(hosted.snapshot()))
        except Exception:  # a snapshot is an optimisation; the stream is the truth
            log.warning("snapshot of %s failed", hosted.match_id, exc_info=True)

    async def _announce_turn(self, hosted: HostedMatch) -> None:
        """Core NATS, fire and forget: written to the socket at once (answers.publish: no
        wake of nats-py's flusher task), so it is awaited in line rather than given a task
        of its own."""
        try:
            await publish_now(self.bus.nc, turn_subject(hosted.match_id), hosted.turn_notice())
        except Exception:
            log.debug("turn notice failed", exc_info=True)

    async def _announce_end(self, hosted: HostedMatch) -> None:
        """Lobby notice, core NATS: the domain services drop the match's projection (one
        missed keeps it in memory until their restart, nothing worse)."""
        try:
            await self.bus.lobby({"event": "ended", "match_id": hosted.match_id})
        except Exception:
            log.debug("end notice failed", exc_info=True)

    async def close(self) -> None:
        """Stop the commands still waiting for NATS, then wait for the snapshots."""
        self.writes.cancel()
        for task in list(self._background):
            await task


# ----- step 2: the domain requests' context ------------------------------------------------------
def _round_limit(events: list[Event]) -> bool:
    """Whether ``events`` reach the round limit (R30), after which scoring ends the match."""
    return any(e.kind is EventKind.ROUND_LIMIT_REACHED for e in events)


def _context(
    hosted: HostedMatch, domain: Domain, pending: list[types_pb2.Event]
) -> domain_pb2.DomainContext:
    """A request's context for ``domain``: the committed version, the batches its replicas
    may lack (see tails.py) and the events decided earlier in the same command."""
    version = hosted.state.version
    context = domain_pb2.DomainContext(
        match_id=hosted.match_id,
        base_version=version,
        base_stream_seq=hosted.stream_seq,
        pending_events=pending,
    )
    if hosted.tails.from_start(domain, version):
        # the service may not hold the match yet: what it needs to start it comes along
        # (a new match costs the domain services nothing until they are asked about it)
        context.start.CopyFrom(match_start(hosted.config))
    return hosted.tails.merge_into(context, domain, version)


# ----- step 4: settle ----------------------------------------------------------------------------
def _settle(
    hosted: HostedMatch, seat: Seat, by: AnsweredBy
) -> tuple[events_pb2.DecisionRecord, SeatClock]:
    """The decision's record and the seat's clock after it (see referee.settle)."""
    elapsed_ms = int((time.monotonic() - hosted.opened_at) * 1000)
    return referee.settle(
        hosted.clock, hosted.clock_of(seat), str(hosted.state.version), by, elapsed_ms
    )


def _batch(
    hosted: HostedMatch,
    seat: Seat,
    command_id: str,
    wire_cmd: types_pb2.Command,
    record: events_pb2.DecisionRecord,
    numbered: list[tuple[int, Event]],
    wire: list[types_pb2.Event],
) -> events_pb2.EventBatch:
    """The batch to publish: the numbered events (as the services sent them), the command
    and its decision record."""
    match_id = hosted.match_id
    return events_pb2.EventBatch(
        match_id=match_id,
        envelopes=[
            events_pb2.EventEnvelope(match_id=match_id, seq=s, state_version=s, event=w)
            for (s, _), w in zip(numbered, wire, strict=True)
        ],
        command_id=command_id,
        seat=types_pb2.Seat.ValueType(enum_to_proto(seat)),
        command=wire_cmd,
        decision=record,
    )


# ----- step 7: reply -----------------------------------------------------------------------------
def _reply(hosted: HostedMatch, batch: CommittedBatch) -> SubmitResult:
    """What the seat is told of its committed command (kept for a retry of its id)."""
    state = batch.state
    result = SubmitResult(
        batch.events,
        to_act(state),
        state.winner,
        _next_legal(hosted, batch.seat),
        batch.envelopes,
    )
    if batch.command_id:
        hosted.keep_reply(batch.seat, batch.command_id, result)
    return result


def _next_legal(hosted: HostedMatch, seat: Seat) -> Listed | None:
    """``seat``'s legal commands now if it is the seat to act, else none."""
    return hosted.legal(seat).listed() if to_act(hosted.state) is seat else None
