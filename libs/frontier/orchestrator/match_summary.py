"""A match as ListMatches lists it: its score, status and seats (match.proto)."""

from __future__ import annotations

from dataclasses import dataclass

from frontier.engine import Seat, Team
from frontier.engine.state import State
from frontier.store.seats import STATUS_BOT, STATUS_OPEN, SeatArrangement
from frontier.v1 import match_pb2, types_pb2
from frontier.wire.convert import enum_to_proto


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
