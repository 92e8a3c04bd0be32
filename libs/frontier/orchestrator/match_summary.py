"""A match as ListMatches lists it: its score, status and seats (match.proto)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from frontier.engine import Seat, Team
from frontier.engine.state import State
from frontier.store.seats import (
    STATUS_BOT,
    STATUS_BOT_FOR_PLAYER,
    STATUS_CLAIMED,
    STATUS_HOST,
    STATUS_OPEN,
    SeatArrangement,
)
from frontier.store.snapshot import SeatClock
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
        taken_over: Mapping[str, str],
    ) -> MatchSummary:
        """``taken_over``: the seats the built-in bot took over, with its name."""
        return cls(
            match_id,
            lineup,
            state.round,
            state.scores[Team.A],
            state.scores[Team.B],
            state.winner,
            state.version,
            status_of(state, abandoned),
            seat_statuses(state.order, seats, taken_over),
            seed_fixed,
        )


_SEAT_STATUS = {
    STATUS_OPEN: match_pb2.SEAT_STATUS_OPEN,
    STATUS_BOT: match_pb2.SEAT_STATUS_BOT,
    STATUS_HOST: match_pb2.SEAT_STATUS_HOST,
    STATUS_CLAIMED: match_pb2.SEAT_STATUS_CLAIMED,
    STATUS_BOT_FOR_PLAYER: match_pb2.SEAT_STATUS_BOT_FOR_PLAYER,
}


def taken_over(clocks: Mapping[str, SeatClock], bot: str) -> dict[str, str]:
    """The seats (by name) whose clocks say the built-in ``bot`` took them over, with its
    name."""
    return {seat: bot for seat, clock in clocks.items() if clock.taken_over}


def seat_statuses(
    order: tuple[Seat, ...], seats: SeatArrangement, bots_in: Mapping[str, str]
) -> list[match_pb2.SeatStatusEntry]:
    """Each filled seat's ``SeatStatusEntry`` (match.proto), in turn order; ``bots_in``:
    the seats the built-in bot took over (too many missed deadlines), with its name.  A seat
    a bot plays for its person names the person (``holder``): the host or a claimer."""
    out = []
    for seat in order:
        status, bot = seats.status(seat.value)
        holder = 0
        if status == STATUS_BOT_FOR_PLAYER:
            number, holder = _SEAT_STATUS[status], _SEAT_STATUS[seats.holder(seat.value)]
        elif status != STATUS_BOT and seat.value in bots_in:
            number, bot = match_pb2.SEAT_STATUS_TAKEN_OVER, bots_in[seat.value]
            holder = _SEAT_STATUS[seats.holder(seat.value)]
        else:
            number = _SEAT_STATUS[status]
        out.append(
            match_pb2.SeatStatusEntry(
                seat=types_pb2.Seat.ValueType(enum_to_proto(seat)),
                status=number,
                bot=bot,
                holder=match_pb2.SeatStatus.ValueType(holder),
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
