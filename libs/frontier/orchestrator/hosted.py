"""What the orchestrator holds for each match it hosts, and the small values it hands out.

One :class:`HostedMatch` per match in memory: the state at the last committed batch, the
stream position the next publish expects, the command ids already answered, the latest
events for watchers and idempotent replies (:mod:`.recent`), the recent batches for the
domain services (:mod:`.tails`), the seats' clocks, and the asyncio objects that serialise
writers (``lock``) and wake readers (``changed``) and the referee (``wake``). Every other
module of the package reads or advances one of these; only the commit path (:mod:`.commit`)
changes the state, under the lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import grpc

from frontier.bots.standing import StandingPolicy
from frontier.engine import Seat, Team
from frontier.engine.config import MatchConfig
from frontier.engine.model import Command, Event
from frontier.engine.state import State
from frontier.store.matches import LoadedMatch
from frontier.store.seats import STATUS_BOT, STATUS_OPEN, SeatArrangement
from frontier.store.snapshot import CommandKey, CommandResult, SeatClock
from frontier.v1 import events_pb2, match_pb2, types_pb2
from frontier.wire.convert import enum_to_proto

from .legal_cache import LegalCache, Listed, SeatLegal
from .recent import Recent
from .referee import ClockConfig
from .tails import Tails


def unix_ms() -> int:
    return int(time.time() * 1000)


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
    # one, is answered exactly as the first time (older ones: see Orchestrator._again)
    latest: dict[Seat, tuple[str, Accepted]] = field(default_factory=dict)
    referee: asyncio.Task[None] | None = None
    legal_cache: LegalCache = field(default_factory=LegalCache)
    abandoned: bool = False  # ended unplayed by the idle timeout (see Hosting.abandon_idle)
    last_command: float = field(default_factory=time.monotonic)  # for the idle timeout
    seats: SeatArrangement = field(default_factory=SeatArrangement)  # open and bot seats
    seed_fixed: bool = True

    @property
    def ended(self) -> bool:
        """Played to its end, or abandoned: either way no command is taken any more."""
        return self.state.over or self.abandoned

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
        batches whose events were dropped go too (as many records as kept events kept ~2.5
        times the batches one could use); and it is kept as bytes, parsed when a watcher
        reads it: a protobuf message of its own costs ~570 bytes of resident memory, its
        bytes ~40 (README, "Memory per match, third round")."""
        for s, e in numbered:
            self.history[s] = e
        if numbered:
            self.records[numbered[0][0]] = (seat, record.SerializeToString())
            self.records.forget_before(self.history.start)

    def record(self, first: int) -> tuple[Seat, events_pb2.DecisionRecord] | None:
        """The acting seat and decision record of the kept batch beginning at ``first``."""
        kept = self.records.get(first)
        if kept is None:
            return None
        return kept[0], events_pb2.DecisionRecord.FromString(kept[1])

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


@dataclass(frozen=True, slots=True)
class MatchSummary:
    match_id: str
    lineup: str
    round: int
    score_a: int
    score_b: int
    winner: str
    version: int
    status: int  # MatchStatus
    seats: list[match_pb2.SeatStatusEntry]
    seed_fixed: bool

    @classmethod
    def of(
        cls,
        match_id: str,
        lineup: str,
        state: State,
        abandoned: bool,
        seats: SeatArrangement,
        seed_fixed: bool,
    ) -> MatchSummary:
        return cls(
            match_id,
            lineup,
            state.round,
            state.scores[Team.A],
            state.scores[Team.B],
            state.winner,
            state.version,
            status_of(state, abandoned),
            seat_statuses(state.order, seats),
            seed_fixed,
        )


_SEAT_STATUS = {
    STATUS_OPEN: match_pb2.SEAT_STATUS_OPEN,
    STATUS_BOT: match_pb2.SEAT_STATUS_BOT,
}


def seat_statuses(
    order: tuple[Seat, ...], seats: SeatArrangement
) -> list[match_pb2.SeatStatusEntry]:
    """Each filled seat's ``SeatStatusEntry`` (match.proto), in turn order."""
    out = []
    for seat in order:
        status, bot = seats.status(seat.value)
        out.append(
            match_pb2.SeatStatusEntry(
                seat=types_pb2.Seat.ValueType(enum_to_proto(seat)),
                status=_SEAT_STATUS.get(status, match_pb2.SEAT_STATUS_TAKEN),
                bot=bot,
            )
        )
    return out


def status_of(state: State, abandoned: bool) -> int:
    """A match's ``MatchStatus`` (match.proto)."""
    if abandoned:
        return match_pb2.MATCH_STATUS_ABANDONED
    if state.over:
        return match_pb2.MATCH_STATUS_FINISHED
    return match_pb2.MATCH_STATUS_IN_PROGRESS


@dataclass(frozen=True, slots=True)
class Accepted:
    """The result of an accepted command, as its seat was first told (a retry with the same
    command id gets it again)."""

    events: list[tuple[int, Event]]  # (seq, event), unfiltered
    to_act: Seat | None
    winner: str
    # the seat's next legal commands when it is still its turn after the command (as the
    # kept entries: the reply merges their bytes, see legal_cache)
    next_legal: Listed | None = None
    # the events as committed (protobuf), when this orchestrator committed them: the reply
    # reuses each one the seat may see as it is, instead of converting the event again
    envelopes: Sequence[events_pb2.EventEnvelope] = ()

    def kept(self) -> Accepted:
        """What a seat's latest command keeps for its retry: all but the envelopes.  Each
        envelope holds the whole published batch it belongs to (a protobuf sub-message
        keeps its parent's arena, ~3 KB resident per batch); a retry's reply converts the
        events again, as one does for a command committed before a restart.  (Built
        directly: ``dataclasses.replace`` costs ~5 µs, once per command.)"""
        return Accepted(self.events, self.to_act, self.winner, self.next_legal)


@dataclass(frozen=True, slots=True)
class Committed:
    """One command's committed events: numbered, and as the batch published them."""

    events: list[tuple[int, Event]]  # (seq, event)
    envelopes: Sequence[events_pb2.EventEnvelope]  # the same, in the same order


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
    return HostedMatch(
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
    )
