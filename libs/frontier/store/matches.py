"""Loading a match's state from NATS: registry record -> snapshot -> tail of the stream.

Shared by the orchestrator (which owns matches) and the domain services (which keep
read-only projections), so both rebuild a match exactly the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

import grpc

from frontier.engine import Seat, evolve, initial_state, make_config, to_act
from frontier.engine.config import MatchConfig
from frontier.engine.errors import InvalidConfig
from frontier.engine.state import State
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError, shown
from frontier.v1 import domain_pb2, events_pb2
from frontier.wire.convert import WireError, command_from_proto, enum_from_proto, event_from_proto

from .seats import SeatArrangement
from .snapshot import CommandKey, CommandResult, SeatClock, Snapshot, decode


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(slots=True)
class LoadedMatch:
    config: MatchConfig
    state: State
    stream_seq: int
    seat_by_token_hash: dict[str, str]
    command_ids: dict[CommandKey, CommandResult] = field(default_factory=dict)
    # the orchestrator's clock settings from the match record ({} for matches without one)
    clock: dict[str, object] = field(default_factory=dict)
    # each seat's clock after its last recorded decision (snapshot, then the stream's tail)
    clocks: dict[str, SeatClock] = field(default_factory=dict)
    abandoned: bool = False  # the stream ends with an abandoned batch (the idle timeout)
    seats: SeatArrangement = field(default_factory=SeatArrangement)  # open / bot seats
    seed_fixed: bool = True  # unknown for old records: never claim a fairness not shown
    # the host key id that created it (its quotas count it), "" without one
    host_id: str = ""


def note_record(
    clocks: dict[str, SeatClock], batch: events_pb2.EventBatch
) -> tuple[str, events_pb2.DecisionRecord] | None:
    """Fold one batch's decision record (if any) into the seats' clocks.

    A record says ``taken_over`` only on the decision whose strike handed the seat to the
    built-in bot, and the bot's later answers are recorded too: a takeover so stays once
    seen (giving a seat back writes a snapshot, which a reload starts from)."""
    if not batch.HasField("decision") or not batch.envelopes:
        return None
    try:
        seat = enum_from_proto(Seat, batch.seat).value
    except WireError:
        return None
    record = batch.decision
    before = clocks.get(seat)
    taken_over = record.taken_over or (before is not None and before.taken_over)
    clocks[seat] = SeatClock(record.reserve_ms, record.strikes, taken_over)
    return seat, record


def apply_batch(state: State, batch: events_pb2.EventBatch) -> None:
    """Fold one committed batch into ``state`` (skipping events it already holds)."""
    apply_envelopes(state, batch.envelopes)


def apply_envelopes(state: State, envelopes: Iterable[events_pb2.EventEnvelope]) -> None:
    """Fold committed envelopes, in order, into ``state`` (skipping events it already
    holds): a request's committed tail is folded as it came, with no batch built around
    it (which would copy every envelope)."""
    for env in envelopes:
        seq = env.seq  # each protobuf field read is a call: read it once
        if seq <= state.version:
            continue
        if seq != state.version + 1:
            raise RuntimeError(f"gap in the event stream: have {state.version}, got {seq}")
        evolve(state, event_from_proto(env.event))


def record_config(record: dict[str, object]) -> MatchConfig:
    """The match's configuration (with its secret seed) from its registry record."""
    raw_config = record["config"]
    assert isinstance(raw_config, dict)
    return make_config(**raw_config)


async def new_match_state(bus: Bus, match_id: str) -> State | None:
    """The state of a match just created (its record alone: no snapshot, no batch is
    read).  For a domain service told of a new match by the lobby, which has nothing to
    read yet; were it late, its requests bring the batches or it reads them (projection.py).
    Two JetStream reads fewer than :func:`load_match` per match and service."""
    record = await bus.get_match(match_id)
    return None if record is None else initial_state(record_config(record))


def match_start(config: MatchConfig) -> domain_pb2.MatchStart:
    """``DomainContext.start`` for a match of ``config`` (:func:`new_state_from` reads it)."""
    return domain_pb2.MatchStart(
        seed=config.seed,
        lineup=config.lineup,
        team_hands_visible=config.team_hands_visible,
        max_rounds=config.max_rounds,
    )


def new_state_from(start: domain_pb2.MatchStart) -> State:
    """The initial state of a match from a domain request's ``start`` (the orchestrator's
    copy of the match's configuration); INVALID_ARGUMENT (MALFORMED) for one the engine
    refuses."""
    try:
        config = make_config(
            seed=start.seed,
            lineup=start.lineup,
            team_hands_visible=start.team_hands_visible,
            max_rounds=start.max_rounds,
        )
    except InvalidConfig as exc:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"context.start is not a valid configuration: {shown(str(exc))}",
            "MALFORMED",
        ) from None
    return initial_state(config)


async def load_match(bus: Bus, match_id: str, use_snapshot: bool = True) -> LoadedMatch | None:
    record = await bus.get_match(match_id)
    if record is None:
        return None
    config = record_config(record)
    tokens = record.get("tokens", {})
    assert isinstance(tokens, dict)
    snap: Snapshot | None = None
    if use_snapshot:
        blob = await bus.get_snapshot(match_id)
        snap = decode(blob) if blob else None
    clock = record.get("clock", {})
    assert isinstance(clock, dict)
    if snap is not None:
        state, stream_seq, ids = snap.state, snap.stream_seq, dict(snap.command_ids)
        clocks = dict(snap.clocks)
    else:
        state, stream_seq, ids, clocks = initial_state(config), 0, {}, {}
    loaded = LoadedMatch(
        config, state, stream_seq, {str(k): str(v) for k, v in tokens.items()}, ids, clock, clocks
    )
    loaded.seats = SeatArrangement.from_record(record)
    loaded.seed_fixed = bool(record.get("seed_fixed", True))
    loaded.host_id = str(record.get("host_key", ""))
    async for stored in bus.iter_batches(match_id, stream_seq):
        if stored.batch.abandoned:
            loaded.abandoned = True
            loaded.stream_seq = stored.stream_seq
            continue
        apply_batch(loaded.state, stored.batch)
        loaded.stream_seq = stored.stream_seq
        note_record(loaded.clocks, stored.batch)
        noted = note_command(loaded.state, stored.batch)
        if noted is not None:
            loaded.command_ids[noted[0]] = noted[1]
    return loaded


def note_command(
    state: State, batch: events_pb2.EventBatch
) -> tuple[CommandKey, CommandResult] | None:
    """The command id entry of one batch just folded into ``state`` (None without an id)."""
    if not batch.command_id or not batch.envelopes:
        return None
    try:
        seat = enum_from_proto(Seat, batch.seat).value
        command = command_from_proto(batch.command).key()
    except WireError:
        return None
    actor = to_act(state)
    result = CommandResult(
        batch.envelopes[0].seq,
        batch.envelopes[-1].seq,
        command,
        actor.value if actor else "",
        state.winner,
    )
    return (seat, batch.command_id), result
