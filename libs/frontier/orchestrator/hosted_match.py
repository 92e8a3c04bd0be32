"""What the orchestrator holds for each match it hosts, and every change made to it.

One :class:`HostedMatch` per match in memory: the state at the last committed batch, the
stream position the next publish expects, the command ids already answered, the latest
events for watchers and idempotent replies (:mod:`.recent`), the recent batches for the
domain services (:mod:`.tails`), the seats' clocks, and the asyncio objects that serialise
writers (``lock``) and wake readers (``changed``) and the referee (``wake``).

Other modules read these fields freely but change them only through the methods here, so
each transition of a match (a batch committed, the match abandoned, a seat claimed, a bot
stream attached...) is one named method a reader can find.  The transitions that change
what the match is (:meth:`HostedMatch.apply`, :meth:`HostedMatch.abandon`) run only on
the commit path (:mod:`.commit`), under the lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import grpc

from frontier.bots.standing import StandingPolicy
from frontier.engine import Seat, initial_state, to_act
from frontier.engine.config import MatchConfig
from frontier.engine.model import Command, Event
from frontier.engine.state import State
from frontier.store.matches import LoadedMatch
from frontier.store.seats import SeatArrangement
from frontier.store.snapshot import CommandKey, CommandResult, SeatClock, Snapshot
from frontier.v1 import events_pb2

from .legal_cache import LegalCache, Listed, SeatLegal
from .recent import Recent
from .referee import SEAT, STANDING_ANSWER, ClockConfig
from .seat_records import SeatPlay
from .spectator_delay import SpectatorDelay
from .tails import Tails

Timer = Callable[[], float]  # a monotonic clock, in seconds

# who answered a decision when its seat's own client did (unset is read as the seat)
_BY_THE_SEAT = frozenset({SEAT, events_pb2.ANSWERED_BY_UNSPECIFIED})


def unix_ms() -> int:
    return int(time.time() * 1000)


@dataclass(slots=True)
class CommittedBatch:
    """One command's batch once JetStream acknowledged it: what :meth:`HostedMatch.apply`
    makes of the match, and what the caller's reply is built from.  Never changed once
    built; not ``frozen``, whose ``__init__`` is several times slower, and this is built for
    every command."""

    seat: Seat
    command_id: str
    command_key: str
    events: list[tuple[int, Event]]  # (seq, event)
    envelopes: Sequence[events_pb2.EventEnvelope]  # the same, in the same order, as published
    record: events_pb2.DecisionRecord
    clock: SeatClock  # the acting seat's clock after the decision
    state: State  # the state the events lead to
    stream_seq: int  # the batch's sequence in the stream
    # the legal commands of ``state``'s turn seat, when deciding listed them on the way
    next_legal: list[Command] | None


@dataclass(frozen=True, slots=True)
class SubmitResult:
    """What a seat was told of its accepted command (a retry with the same command id gets
    it again)."""

    events: list[tuple[int, Event]]  # (seq, event), unfiltered
    to_act: Seat | None
    winner: str
    # the seat's next legal commands when it is still its turn after the command (as the
    # kept entries: the reply merges their bytes, see legal_cache)
    next_legal: Listed | None = None
    # the events as committed (protobuf), when this orchestrator committed them: the reply
    # reuses each one the seat may see as it is, instead of converting the event again
    envelopes: Sequence[events_pb2.EventEnvelope] = ()

    def kept(self) -> SubmitResult:
        """What a seat's latest command keeps for its retry: all but the envelopes.  Each
        envelope holds the whole published batch it belongs to (a protobuf sub-message
        keeps its parent's arena), so a retry's reply converts the events again, as one
        does for a command committed before a restart.  Built directly rather than with
        ``dataclasses.replace``, which is slower and runs once per command."""
        return SubmitResult(self.events, self.to_act, self.winner, self.next_legal)


@dataclass(slots=True)
class HostedMatch:
    match_id: str
    config: MatchConfig
    state: State
    stream_seq: int
    seat_by_token_hash: dict[str, str]
    command_ids: dict[CommandKey, CommandResult]  # (seat, command id) -> its first result
    # the latest events, for WatchEvents and idempotent replies: seq -> event (recent.py)
    history: Recent[Event] = field(default_factory=Recent)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    since_snapshot: int = 0
    tails: Tails = field(default_factory=Tails)  # what the domains' replicas may lack
    clock: ClockConfig = field(default_factory=ClockConfig)
    clocks: dict[Seat, SeatClock] = field(default_factory=dict)  # seats that answered once
    standing: dict[Seat, dict[str, StandingPolicy]] = field(default_factory=dict)
    # first seq of each recent batch -> (acting seat, its decision record's wire bytes)
    records: Recent[tuple[Seat, bytes]] = field(default_factory=Recent)
    last_used: float = field(default_factory=time.monotonic)  # for unloading finished ones
    opened_at: float = field(default_factory=time.monotonic)  # when the open decision opened
    opened_unix_ms: int = field(default_factory=unix_ms)
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # the referee's alarm
    sessions: dict[Seat, SessionListener] = field(default_factory=dict)  # bot streams
    # each seat's latest accepted command id and result, so that its retry, the common
    # one, is answered exactly as the first time (older ones: CommitPath._again)
    latest: dict[Seat, tuple[str, SubmitResult]] = field(default_factory=dict)
    referee: asyncio.Task[None] | None = None
    legal_cache: LegalCache = field(default_factory=LegalCache)
    abandoned: bool = False  # ended unplayed (the idle timeout, or its host)
    last_command: float = field(default_factory=time.monotonic)  # for the idle timeout
    seats: SeatArrangement = field(default_factory=SeatArrangement)  # open and bot seats
    seed_fixed: bool = True
    # what readers without a seat see, with MatchConfig.spectator_delay_s (None: the present)
    delay: SpectatorDelay | None = None
    host_id: str = ""  # the host key (or anonymous address) that created it; "" in local mode
    # think times and refused answers per seat since this orchestrator loaded the match
    plays: dict[Seat, SeatPlay] = field(default_factory=dict)

    def delay_spectators(
        self, shown_first: State, since: float | None = None, clock: Timer = time.monotonic
    ) -> None:
        """Hold the present back from readers without a seat for the match's delay:
        ``shown_first`` is what they see until the present (committed ``since``, else now
        by ``clock``) is old enough."""
        if self.clock.spectator_delay_s <= 0:
            return
        self.delay = SpectatorDelay(self.clock.spectator_delay_s, clock)
        self.delay.committed(shown_first, at=float("-inf"))
        if shown_first is not self.state:
            self.delay.committed(self.state, at=since)

    def spectator_state(self) -> State:
        """The match as readers without a seat may see it now (see spectator_delay.py)."""
        if self.delay is None or self.ended:
            return self.state
        return self.delay.shown()

    @property
    def ended(self) -> bool:
        """Played to its end, or abandoned: either way no command is taken any more."""
        return self.state.over or self.abandoned

    # ----- the commit path's transitions (under the lock) ------------------------------------
    def apply(self, batch: CommittedBatch, snapshot_every: int) -> bool:
        """The acknowledged ``batch`` becomes the match's present: its state, stream
        position, latest events, the seat's clock and the command id's first result; the
        next decision opens now.  Returns whether a snapshot is due."""
        state = batch.state
        self.state = state
        if self.delay is not None:
            self.delay.committed(state)
        if batch.next_legal is not None and state.turn_seat is not None:
            self.legal_cache.seed(state, state.turn_seat, batch.next_legal)
        self.stream_seq = batch.stream_seq
        first = batch.events[0][0] if batch.events else state.version + 1
        if state.over:
            self.tails.forget()
            self.shed(first)
        else:
            self.tails.committed(batch.envelopes)
        self.remember(batch.events, batch.seat, batch.record)
        self.clocks[batch.seat] = batch.clock
        if batch.record.answered_by in _BY_THE_SEAT:
            self.play_of(batch.seat).answered(batch.record.elapsed_ms)
        elif batch.record.answered_by == STANDING_ANSWER:
            self.play_of(batch.seat).answered_by_standing_answer()
        if batch.command_id:
            after = to_act(state)
            self.command_ids[(batch.seat.value, batch.command_id)] = CommandResult(
                first, state.version, batch.command_key, after.value if after else "", state.winner
            )
        self.opened_at = self.last_command = time.monotonic()
        self.opened_unix_ms = unix_ms()
        self.since_snapshot += 1
        if self.since_snapshot >= snapshot_every or state.over:
            self.since_snapshot = 0
            return True
        return False

    def abandon(self, stream_seq: int) -> None:
        """The match ended unplayed: its ``abandoned`` batch is at ``stream_seq``."""
        self.stream_seq = stream_seq
        self.abandoned = True
        self.tails.forget()
        self.shed(self.state.version + 1)

    def keep_reply(self, seat: Seat, command_id: str, result: SubmitResult) -> None:
        """``seat``'s latest accepted command and what it was told, for its retry."""
        self.latest[seat] = (command_id, result.kept())

    async def tell_readers(self) -> None:
        """Wake the watchers (``changed``) and the referee (``wake``)."""
        async with self.changed:
            self.changed.notify_all()
        self.wake.set()

    def shed(self, last_batch: int) -> None:
        """The match ended (the caller holds the lock): drop what only a match in play
        needs.  The events and records before ``last_batch`` (the first seq of its final
        batch) are read from the stream if asked for; of the command ids only each seat's
        latest stays, whose retry must get its first response again -- an older one can
        never be applied twice any more, as no command is taken (MATCH_OVER)."""
        self.history.forget_before(last_batch)
        self.records.forget_before(last_batch)
        latest: dict[str, tuple[CommandKey, CommandResult]] = {}
        for key, result in self.command_ids.items():
            kept = latest.get(key[0])
            if kept is None or result.first > kept[1].first:
                latest[key[0]] = (key, result)
        self.command_ids = dict(latest.values())
        self.legal_cache = LegalCache()

    def remember(
        self, numbered: list[tuple[int, Event]], seat: Seat, record: events_pb2.DecisionRecord
    ) -> None:
        """Keep a committed batch's events and decision record among the latest ones.  A
        record is only read with its batch's first event (history.py), so the records of
        batches whose events were dropped go too; and it is kept as bytes, parsed when a
        watcher reads it, because a protobuf message of its own holds many times the
        resident memory of its bytes (docs/performance.md)."""
        for s, e in numbered:
            self.history[s] = e
        if numbered:
            self.records[numbered[0][0]] = (seat, record.SerializeToString())
            self.records.forget_before(self.history.start)

    # ----- what the hosting, seating, referee and bot streams change -------------------------
    def touch(self) -> None:
        """A request used the match (a finished one is unloaded after a while unused)."""
        self.last_used = time.monotonic()

    def idle_since(self, last_write_unix_ms: int) -> None:
        """Nobody acted since the stream's last write (the idle timeout survives restarts)."""
        age_s = max(0.0, (unix_ms() - last_write_unix_ms) / 1000)
        self.last_command = time.monotonic() - age_s

    def set_standing(self, seat: Seat, answers: Mapping[str, StandingPolicy]) -> None:
        """``seat``'s standing answers (none: removed)."""
        if answers:
            self.standing[seat] = dict(answers)
        else:
            self.standing.pop(seat, None)

    def claim(self, code_hash: str, token_hash: str, seat: Seat, by_host: bool = False) -> None:
        """The invite ``code_hash`` was used (``by_host``: by the match's creator):
        ``token_hash`` now acts for ``seat``."""
        self.seats.claimed.add(code_hash)
        if by_host:
            self.seats.host_claimed.add(code_hash)
        self.seat_by_token_hash[token_hash] = seat.value

    def give_to_bot(self, code_hash: str, seat: Seat, bot: str) -> None:
        """The open ``seat`` (invite ``code_hash``) is played by the built-in ``bot``."""
        self.seats.claimed.add(code_hash)
        self.seats.bots[seat.value] = bot

    def replace_token(self, seat: Seat, token_hash: str) -> None:
        """``token_hash`` is ``seat``'s only token now; its old ones are retired."""
        for old in [h for h, s in self.seat_by_token_hash.items() if s == seat.value]:
            del self.seat_by_token_hash[old]
            self.seats.retired[old] = seat.value
        self.seat_by_token_hash[token_hash] = seat.value

    def play_for(self, seat: Seat, bot: str) -> None:
        """The built-in ``bot`` plays the person's ``seat`` until it is given back."""
        self.seats.standins[seat.value] = bot

    def give_back(self, seat: Seat, clock: SeatClock) -> None:
        """``seat`` is its person's again, its clock ``clock`` (no takeover)."""
        self.seats.standins.pop(seat.value, None)
        self.clocks[seat] = clock

    def start_referee(self, task: asyncio.Task[None]) -> None:
        """``task`` is the match's referee from now on."""
        self.referee = task

    def stop_referee(self) -> None:
        """Cancel the referee, unless it is the caller (it then ends by itself)."""
        if self.referee is not None and self.referee is not asyncio.current_task():
            self.referee.cancel()

    def attach(self, seat: Seat, session: SessionListener) -> SessionListener | None:
        """``session`` is ``seat``'s bot stream now; returns the one it replaces."""
        previous = self.sessions.get(seat)
        self.sessions[seat] = session
        return previous

    def play_of(self, seat: Seat) -> SeatPlay:
        """``seat``'s think times and refused answers (an empty record to begin with)."""
        play = self.plays.get(seat)
        if play is None:
            play = self.plays[seat] = SeatPlay()
        return play

    def detach(self, seat: Seat, session: SessionListener) -> None:
        """``session`` ended (unless a newer stream replaced it already)."""
        if self.sessions.get(seat) is session:
            del self.sessions[seat]

    # ----- reads --------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The match as a snapshot stores it (the stream's position, command ids, clocks)."""
        return Snapshot(
            self.state,
            self.stream_seq,
            dict(self.command_ids),
            {seat.value: clock for seat, clock in self.clocks.items()},
        )

    def turn_notice(self) -> bytes:
        """The turn notice (JSON, on the match's turn subject) of the match as it is."""
        # Spelled out rather than json.dumps: the values are two integers and a seat name
        # (letters and digits), and this runs after every command.
        actor = to_act(self.state)
        seat, deadline = (actor.value, self.deadline_unix_ms(actor)) if actor else ("", 0)
        return (
            f'{{"version": {self.state.version}, "to_act": "{seat}", '
            f'"deadline_unix_ms": {deadline}}}'
        ).encode()

    def record(self, first: int) -> tuple[Seat, events_pb2.DecisionRecord] | None:
        """The acting seat and decision record of the kept batch beginning at ``first``."""
        kept = self.records.get(first)
        if kept is None:
            return None
        return kept[0], events_pb2.DecisionRecord.FromString(kept[1])

    def legal(self, seat: Seat) -> SeatLegal:
        """``seat``'s legal commands now (computed once per version, see legal_cache)."""
        return self.legal_cache.of(self.state, seat)

    def taken_over(self) -> dict[str, str]:
        """The seats (by name) the built-in bot took over, with its name."""
        bot = self.clock.takeover_bot
        return {s.value: bot for s, clock in self.clocks.items() if clock.taken_over}

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


class NotOwner(Exception):
    """Another live orchestrator holds this match's lease: the request goes to it."""

    def __init__(self, match_id: str, address: str) -> None:
        super().__init__(f"match {match_id} is served by the orchestrator at {address}")
        self.address = address


def policies(stored: Mapping[str, str]) -> dict[str, StandingPolicy]:
    """Stored standing answers (kind -> policy name); unknown policies are skipped."""
    out: dict[str, StandingPolicy] = {}
    for kind, policy in stored.items():
        with contextlib.suppress(ValueError):
            out[kind] = StandingPolicy(policy)
    return out


def valid_id(match_id: str) -> bool:
    """Whether ``match_id`` has the form of the ids CreateMatch hands out (32 hex digits)."""
    return len(match_id) == 32 and all(c in "0123456789abcdef" for c in match_id)


def hosted_from(match_id: str, loaded: LoadedMatch) -> HostedMatch:
    """A loaded match; the open decision's clock restarts now (its reserve as recorded)."""
    hosted = HostedMatch(
        match_id=match_id,
        config=loaded.config,
        state=loaded.state,
        stream_seq=loaded.stream_seq,
        seat_by_token_hash=loaded.seat_by_token_hash,
        command_ids=loaded.command_ids,
        history=Recent(start=loaded.state.version + 1),
        records=Recent(start=loaded.state.version + 1),
        clock=ClockConfig.from_record(loaded.clock),
        clocks={Seat(seat): clock for seat, clock in loaded.clocks.items()},
        abandoned=loaded.abandoned,
        seats=loaded.seats,
        seed_fixed=loaded.seed_fixed,
        host_id=loaded.host_id,
    )
    # the moves before a restart came at unknown times: spectators see the match as it was
    # set up until the delay has passed since it was loaded
    hosted.delay_spectators(initial_state(loaded.config))
    return hosted
