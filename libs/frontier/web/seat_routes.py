"""The browser API's routes about who holds a seat: reissue a seat's link, give a seat back.

A seat link (``/play?match=ID#seat=TOKEN``) and the host link (``/match?match=ID#host=TOKEN``)
carry their secret in the URL fragment, which browsers never send: the page reads it and
sends it in a header (``X-Frontier-Seat-Token``, ``X-Frontier-Host-Token``), as every other
route takes a token.  A reissue's new token is drawn by the page and sent in the body, so a
retry after a lost reply sends the same token and gets the seat (ReissueSeatTokenRequest);
the reply carries a secret and is never cached.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.web.inputs import (
    HOST_HEADER,
    SEAT_NAMES,
    HttpError,
    body_of,
    host_key_of,
    match_id_of,
    seat_of,
    token_of,
)

NO_STORE = {"Cache-Control": "no-store"}  # replies that carry a secret

# "taken" stays for SEAT_STATUS_TAKEN, which an older orchestrator sends, and for a value
# newer than this gateway.
SEAT_STATUS = {
    match_pb2.SEAT_STATUS_OPEN: "open",
    match_pb2.SEAT_STATUS_BOT: "bot",
    match_pb2.SEAT_STATUS_TAKEN: "taken",
    match_pb2.SEAT_STATUS_HOST: "host",
    match_pb2.SEAT_STATUS_CLAIMED: "claimed",
    match_pb2.SEAT_STATUS_TAKEN_OVER: "taken_over",
    match_pb2.SEAT_STATUS_BOT_FOR_PLAYER: "bot_for_player",
}


def seat_name(seat: types_pb2.Seat.ValueType) -> str:
    return types_pb2.Seat.Name(seat).removeprefix("SEAT_")


def seats_of(entries: Any) -> list[dict[str, str]]:
    """Seat status entries as the lobby reads them: ``{"seat", "status", "bot"}``, and
    ``holder`` ("host" or "claimed") for a seat a bot plays for its person."""
    out = []
    for e in entries:
        entry = {"seat": seat_name(e.seat), "status": SEAT_STATUS.get(e.status, "taken")}
        entry["bot"] = e.bot
        if e.holder:
            entry["holder"] = SEAT_STATUS.get(e.holder, "taken")
        out.append(entry)
    return out


class ReissueBody(BaseModel):
    """Which seat (the host's call names it) and the new token the page drew."""

    model_config = ConfigDict(extra="forbid")

    seat: str = Field(default="", max_length=2)
    new_token: str = Field(default="", max_length=128)


def host_link(match_id: str, host_token: str) -> str:
    """The link that manages a match from any browser: the secret rides in the fragment."""
    return f"/match?match={match_id}#host={host_token}"


def seat_link(match_id: str, token: str) -> str:
    """The link that plays a seat from any browser: the secret rides in the fragment."""
    return f"/play?match={match_id}#seat={token}"


class SeatRoutes:
    """Reissue and give-back, mixed into :class:`frontier.web.api.Api`."""

    stub: match_pb2_grpc.MatchServiceStub
    host_key: str

    call: Callable[..., Awaitable[Any]]  # the Api's: one orchestrator call

    async def reissue(self, request: Request) -> Response:
        """A new token for a seat: the seat's own (its token in the seat header) or one the
        host names (the host token in the host header); the old token stops working."""
        match_id = match_id_of(request)
        seat_token = token_of(request, required=False)
        host = token_of(request, required=False, header=HOST_HEADER)
        if not seat_token and not host:
            raise HttpError(401, "token_required", "send the seat's token or the host token")
        body: ReissueBody = await body_of(request, ReissueBody)
        if body.seat and body.seat not in SEAT_NAMES:
            raise HttpError(400, "bad_seat", f"unknown seat {body.seat!r}; seats are {SEAT_NAMES}")
        reissue = match_pb2.ReissueSeatTokenRequest(
            match_id=match_id,
            seat_token=seat_token,
            host_token=host if not seat_token else "",
            seat=types_pb2.Seat.Value(f"SEAT_{body.seat or 'UNSPECIFIED'}"),
            new_token=body.new_token,
        )
        reply = await self.call(self.stub.ReissueSeatToken, reissue)
        seat = seat_name(reply.seat.seat)
        out = {
            "seat": seat,
            "token": reply.seat.token,
            "link": seat_link(match_id, reply.seat.token),
        }
        return JSONResponse(out, headers=NO_STORE)

    async def return_seat(self, request: Request) -> Response:
        """The host gives a seat a bot plays for its person back to that person."""
        match_id, seat = match_id_of(request), seat_of(request)
        host = token_of(request, required=True, header=HOST_HEADER)
        give_back = match_pb2.ReturnSeatRequest(
            match_id=match_id, host_token=host, seat=types_pb2.Seat.Value(f"SEAT_{seat}")
        )
        reply = await self.call(
            self.stub.ReturnSeat, give_back, host_key_of(request, self.host_key)
        )
        return JSONResponse({"seats": seats_of(reply.seats)})
