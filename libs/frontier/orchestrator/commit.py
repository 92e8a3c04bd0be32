"""The commit path: how one resolved command becomes the match's next batch.

For each accepted command, in this order, under the match's lock:
  1. the command is checked against the seat's legal commands at the match's version (kept
     per version: see legal_cache), so a bad command never reaches a domain service;
  2. the owning domain service decides the command's events (told that step 1 checked the
     command, so it does not list the legal commands again: DomainContext.legal_checked);
  3. the turn-order service advances steps/turns/rounds on top of them -- in the same call
     when the command is turn-order's own, and not at all when the engine's ``at_rest``
     says there is nothing to advance, as after most commands (see _decide);
  4. the scoring service ends the match at the round limit (R30);
  5. the events, folded into a copy of the state as they came (a last consistency check), are
     published as ONE JetStream message with the expected last subject sequence (single
     writer), and only after the publish is acknowledged does the copy become the match's
     state.
Nothing is changed unless every step succeeds, so a failure anywhere leaves the match as it
was and the client can retry with the same command id.  A publish whose outcome is unknown
(a timeout, a lost connection) is not a failure: it is settled from NATS before the match
takes its next command (:meth:`CommitPath._publish`), and each command runs in a task of its
own that the caller's cancellation does not stop (:meth:`CommitPath.serialized`), so a
match is never left behind its stream.

Every command takes this one path, whoever chose it: a MatchService client, a bot's Play
stream (:mod:`.bot_service`), or the match's referee (:mod:`.decisions`).  The batch's
``DecisionRecord`` says which, with the seat's clock and strikes after it (:mod:`.referee`),
so timeouts and takeovers are committed, replayed and recovered like any other command.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import grpc

from frontier.engine import Seat, to_act
from frontier.engine.decide import check
from frontier.engine.domains import Domain, owner
from frontier.engine.evolve import fold
from frontier.engine.model import Command, Event, EventKind
from frontier.engine.state import State
from frontier.engine.turn import at_rest
from frontier.runtime.answers import publish as publish_now
from frontier.runtime.bus import Bus, WriterConflict, turn_subject
from frontier.runtime.errors import NATS_UNREACHABLE, ServiceError, shown
from frontier.runtime.metrics import counted_commit
from frontier.runtime.telemetry import span
from frontier.store.matches import match_start
from frontier.store.snapshot import CommandResult, Snapshot, encode
from frontier.v1 import domain_pb2, events_pb2, types_pb2
from frontier.wire.convert import command_to_proto, enum_to_proto

from . import eager, referee
from .clients import DomainClients
from .hosted import Committed, HostedMatch, unix_ms
from .referee import AnsweredBy

log = logging.getLogger("frontier.orchestrator")

T = TypeVar("T")

# How long a publish whose outcome is unknown waits before it is tried again: doubling up
# to the maximum, for as long as NATS does not answer.
SETTLE_FIRST_S = 0.05
SETTLE_MAX_S = 1.0


def resolve(hosted: HostedMatch, seat: Seat, command: Command | None, legal_id: str) -> Command:
    """The command a request names: a full command of the token's seat, or a legal id."""
    if command is None:
        found = hosted.legal(seat).by_id.get(legal_id)
        if found is not None:
            return found
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"no legal command with id {shown(legal_id)} for seat {seat.value} now",
            "UNKNOWN_LEGAL_ID",
        )
    if command.seat is not seat:
        raise ServiceError(
            grpc.StatusCode.PERMISSION_DENIED,
            f"the token acts for seat {seat.value}, not {command.seat.value}",
            "WRONG_SEAT",
        )
    return command


def check_not_taken_over(hosted: HostedMatch, seat: Seat) -> None:
    """Refuse a seat's own command once the match ended (finished or abandoned), or once
    the built-in bot plays the seat."""
    if hosted.abandoned:
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            "the match was abandoned (nobody acted in it for the server's idle timeout)",
            "MATCH_ABANDONED",
        )
    if hosted.state.over:
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"the match is over (winner: {hosted.state.winner})",
            "MATCH_OVER",
        )
    if hosted.clock_of(seat).taken_over:
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"seat {seat.value} missed {hosted.clock.strike_limit} deadlines and is played "
            "by the built-in bot for the rest of the match",
            "SEAT_TAKEN_OVER",
        )


class CommitPath:
    """Steps 1-5 for one match at a time (the caller holds the match's lock)."""

    def __init__(
        self,
        bus: Bus,
        clients: DomainClients,
        snapshot_every: int,
        on_conflict: Callable[[HostedMatch], None],
        settle_wait_s: float = 5.0,
    ) -> None:
        self.bus = bus
        self.clients = clients
        self.snapshot_every = snapshot_every
        self.on_conflict = on_conflict  # another orchestrator wrote the match: forget it
        self.settle_wait_s = settle_wait_s
        self._background: set[asyncio.Task[None]] = set()
        self._writes: set[asyncio.Task[None]] = set()  # commands under way (see serialized)

    @counted_commit
    async def commit(
        self, hosted: HostedMatch, seat: Seat, cmd: Command, command_id: str, by: AnsweredBy
    ) -> Committed:
        """Steps 1-5 of the module docstring for one resolved command; the caller holds the
        match's lock and has checked the version and the seat."""
        state = hosted.state
        legal = hosted.legal(cmd.seat)
        key = cmd.key()
        if not legal.contains(cmd, key):
            check(state, cmd, legal.commands)  # raises, saying why not
            raise AssertionError(f"check() accepted {key}, not in the legal list")
        wire_cmd = command_to_proto(cmd)  # once: the domain's request and the batch
        events, wire, new_state, next_legal = await self._decide(hosted, cmd, wire_cmd)
        elapsed_ms = int((time.monotonic() - hosted.opened_at) * 1000)
        record, clock_after = referee.settle(
            hosted.clock, hosted.clock_of(seat), str(state.version), by, elapsed_ms
        )
        first = state.version + 1
        numbered = list(enumerate(events, start=first))
        batch = events_pb2.EventBatch(
            match_id=hosted.match_id,
            envelopes=[
                events_pb2.EventEnvelope(match_id=hosted.match_id, seq=s, state_version=s, event=w)
                for (s, _), w in zip(numbered, wire, strict=True)
            ],
            command_id=command_id,
            seat=types_pb2.Seat.ValueType(enum_to_proto(seat)),
            command=wire_cmd,
            decision=record,
        )
        with span("nats.publish events"):
            stream_seq = await self._publish(hosted, batch)
        hosted.state = new_state
        if next_legal is not None and new_state.turn_seat is not None:
            hosted.legal_cache.seed(new_state, new_state.turn_seat, next_legal)
        hosted.stream_seq = stream_seq
        envelopes = list(batch.envelopes)
        if new_state.over:
            hosted.tails.forget()
            self._ended(hosted, first)
        else:
            hosted.tails.committed(envelopes)
        hosted.remember(numbered, seat, record)
        hosted.clocks[seat] = clock_after
        if command_id:
            after = to_act(new_state)
            hosted.command_ids[(seat.value, command_id)] = CommandResult(
                first, new_state.version, key, after.value if after else "", new_state.winner
            )
        hosted.since_snapshot += 1
        if hosted.since_snapshot >= self.snapshot_every or new_state.over:
            hosted.since_snapshot = 0
            self._spawn(self._snapshot(hosted))
        hosted.opened_at = hosted.last_command = time.monotonic()
        hosted.opened_unix_ms = unix_ms()
        async with hosted.changed:
            hosted.changed.notify_all()
        hosted.wake.set()
        for session in list(hosted.sessions.values()):
            session.on_commit(seat, cmd, record)
        await self._announce_turn(hosted, to_act(new_state))
        return Committed(numbered, envelopes)

    async def abandon(self, hosted: HostedMatch, reason: str) -> None:
        """End the match unplayed: one batch with ``abandoned`` set and no events (the
        caller holds the match's lock).  Its bot streams get MatchOver with no winner."""
        batch = events_pb2.EventBatch(match_id=hosted.match_id, abandoned=True)
        hosted.stream_seq = await self._publish(hosted, batch)
        hosted.abandoned = True
        hosted.tails.forget()
        self._ended(hosted, hosted.state.version + 1)
        async with hosted.changed:
            hosted.changed.notify_all()
        hosted.wake.set()
        for session in list(hosted.sessions.values()):
            session.poke()
        log.info("match %s: %s", hosted.match_id, reason)

    async def _publish(self, hosted: HostedMatch, batch: events_pb2.EventBatch) -> int:
        """Publish ``batch`` and settle its outcome: its stream sequence once it is in the
        stream, ServiceError ABORTED when another batch took its place (the match is then
        reloaded on next use).  A publish whose outcome is unknown (no answer in time, a
        lost connection) is never taken for a failure: the same batch is published again,
        which cannot add a second copy (see Bus.publish_batch), until NATS answers.  The
        match's lock stays held meanwhile, so its next command waits for the answer."""
        delay = SETTLE_FIRST_S
        while True:
            try:
                return await self.bus.publish_batch(batch, hosted.stream_seq)
            except WriterConflict:
                self.on_conflict(hosted)
                raise ServiceError(
                    grpc.StatusCode.ABORTED,
                    "the match's event stream holds another command at this position (written "
                    "by another orchestrator that took the match over); the match is reloaded "
                    "from the stream: read its view and retry with the same command id",
                    "WRITER_CONFLICT",
                ) from None
            except NATS_UNREACHABLE as exc:
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

    async def serialized(self, hosted: HostedMatch, work: Callable[[], Awaitable[T]]) -> T:
        """Run ``work`` under the match's lock in a task of its own, and wait for it.

        The caller's cancellation (its client's deadline, a closed stream) never stops a
        command halfway: the task goes on, settles the publish and advances the match, and
        a retry with the same command id then finds the first result.  A caller that waited
        ``settle_wait_s`` without an answer gets UNAVAILABLE (the task still goes on).

        The work's first step (up to its first wait: the lock taken, the command checked,
        the domain request queued) runs now, in the caller's turn of the loop, and the
        task's last step hands the result to the caller itself (see eager.py): two loop
        iterations fewer per command than a task started and awaited the usual way."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[T] = loop.create_future()
        task = eager.start(self._locked(hosted, work), answer)
        if task is not None:
            self._writes.add(task)
            task.add_done_callback(self._write_done)
        if not answer.done():
            timer = loop.call_later(self.settle_wait_s, self._not_settled, answer)
            try:
                await answer  # cancelled with the caller: only the future, not the task
            finally:
                timer.cancel()
        return answer.result()

    def _not_settled(self, answer: asyncio.Future[Any]) -> None:
        if not answer.done():
            answer.set_exception(
                ServiceError(
                    grpc.StatusCode.UNAVAILABLE,
                    f"the command is not settled after {self.settle_wait_s:g}s (NATS or a "
                    "domain service is slow or unreachable); retry with the same command id: "
                    "the retry returns its result once it is settled",
                    "NOT_SETTLED",
                )
            )

    @staticmethod
    async def _locked(hosted: HostedMatch, work: Callable[[], Awaitable[T]]) -> T:
        async with hosted.lock:
            return await work()

    def _write_done(self, task: asyncio.Task[None]) -> None:
        self._writes.discard(task)

    async def _decide(
        self, hosted: HostedMatch, cmd: Command, wire_cmd: types_pb2.Command
    ) -> tuple[list[Event], list[types_pb2.Event], State, list[Command] | None]:
        """Steps 2-4: the command's events (and as protobuf), the state they lead to (a new
        object; the match's state is not touched; each step's events are folded as they
        come, which is also the last consistency check of what the services sent) and, when
        they were listed on the way, the legal commands of that state's turn seat."""
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
        """Core NATS, fire and forget: written to the socket at once (answers.publish: no
        wake of nats-py's flusher task), so it is awaited in line rather than given a task
        of its own."""
        # Spelled out rather than json.dumps: the values are two integers and a seat name
        # (letters and digits), and this runs after every command.
        seat, deadline = (actor.value, hosted.deadline_unix_ms(actor)) if actor else ("", 0)
        notice = (
            f'{{"version": {hosted.state.version}, "to_act": "{seat}", '
            f'"deadline_unix_ms": {deadline}}}'
        )
        try:
            await publish_now(self.bus.nc, turn_subject(hosted.match_id), notice.encode())
        except Exception:
            log.debug("turn notice failed", exc_info=True)

    def _ended(self, hosted: HostedMatch, last_batch: int) -> None:
        """The match ended: it sheds what only play needs (HostedMatch.shed), and the
        domain services are told to drop it."""
        hosted.shed(last_batch)
        self._spawn(self._announce_end(hosted))

    async def _announce_end(self, hosted: HostedMatch) -> None:
        """Lobby notice, core NATS: the domain services drop the match's projection (one
        missed keeps it in memory until their restart, nothing worse)."""
        try:
            await self.bus.lobby({"event": "ended", "match_id": hosted.match_id})
        except Exception:
            log.debug("end notice failed", exc_info=True)

    async def close(self) -> None:
        """Stop the commands still waiting for NATS, then wait for the snapshots."""
        for write in list(self._writes):
            write.cancel()
        for task in list(self._background):
            await task


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
