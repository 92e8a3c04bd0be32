"""MatchService's calls about who holds a seat: ReissueSeatToken and ReturnSeat.

Kept apart from :mod:`.servicer` (which mixes this class in) so that each stays a readable
size; the rulings themselves are :mod:`.seat_links`'.
"""

from __future__ import annotations

import grpc

from frontier.engine import Seat
from frontier.runtime.errors import GrpcContext, ServiceError, about, grpc_errors
from frontier.v1 import match_pb2, types_pb2
from frontier.wire.convert import WireError, enum_from_proto, enum_to_proto

from .core import Orchestrator
from .host_keys import caller
from .match_summary import seat_statuses
from .peers import Peers, routed


def seat_from_proto(number: int, field: str = "seat") -> Seat:
    """A request's seat; INVALID_ARGUMENT (MALFORMED) about ``field`` for no seat."""
    try:
        return enum_from_proto(Seat, number)
    except WireError:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"seat {number} is not a seat",
            "MALFORMED",
            about(field),
        ) from None


def require_match_id(match_id: str) -> None:
    if not match_id:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT, "match_id is required", "MALFORMED", about("match_id")
        )


class SeatRpcs:
    """ReissueSeatToken and ReturnSeat over the orchestrator's :class:`.seat_links.SeatLinks`."""

    core: Orchestrator
    peers: Peers

    @grpc_errors
    @routed
    async def ReissueSeatToken(
        self, request: match_pb2.ReissueSeatTokenRequest, context: GrpcContext
    ) -> match_pb2.ReissueSeatTokenResponse:
        require_match_id(request.match_id)
        # with a seat token the seat may be left out (the token names it)
        seat = seat_from_proto(request.seat) if request.seat or request.host_token else None
        target, token = await self.core.seat_links.reissue(
            request.match_id, request.seat_token, request.host_token, seat, request.new_token
        )
        seat_proto = types_pb2.Seat.ValueType(enum_to_proto(target))
        return match_pb2.ReissueSeatTokenResponse(
            seat=match_pb2.SeatToken(seat=seat_proto, token=token)
        )

    @grpc_errors
    @routed
    async def ReturnSeat(
        self, request: match_pb2.ReturnSeatRequest, context: GrpcContext
    ) -> match_pb2.ReturnSeatResponse:
        await caller(self.core.access, context)  # any live host key, as AbandonMatch
        require_match_id(request.match_id)
        seat = seat_from_proto(request.seat)
        await self.core.seat_links.give_back(request.match_id, request.host_token, seat)
        hosted = await self.core.get(request.match_id)
        return match_pb2.ReturnSeatResponse(
            seats=seat_statuses(hosted.state.order, hosted.seats, hosted.taken_over())
        )
