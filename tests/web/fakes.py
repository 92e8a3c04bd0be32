"""Doubles of the orchestrator's stubs for the gateway's tests: a small MatchService that
records every call, its turn and event streams, and a Health stub that always serves."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from frontier.runtime.errors import details_metadata
from frontier.runtime.settings import MATCH_STATUS_TRAILER
from frontier.v1 import events_pb2, match_pb2, types_pb2
from frontier.wire.game_data import game_data

SECRET = "tok-0123456789abcdef"
INVITE = "inv-fedcba9876543210"
HOST = "host-00112233445566"


class FakeRpcError(grpc.aio.AioRpcError):
    def __init__(self, code: grpc.StatusCode, details: str, trailer: Any = ()) -> None:
        super().__init__(code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailer), details)


class FakeMatch:
    """Records every call; answers like a small orchestrator."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.setup: list[Any] = []  # the last CreateMatch's seat_setup
        self.claimed: set[str] = set()
        self.streams: list[FakeEvents] = []  # every WatchEvents call, in order
        self.host_keys: list[str] = []  # the host key of each host call ("" without one)

    def _record(self, name: str, request: Any) -> None:
        self.calls.append((name, request))

    async def CreateMatch(self, request: Any, timeout: float, metadata: Any = ()) -> Any:
        self.host_keys.append(dict(metadata).get("x-frontier-host-key", ""))
        self._record("CreateMatch", request)
        self.setup = list(request.seat_setup)
        invites = [
            match_pb2.SeatInvite(seat=s.seat, invite_code=f"{INVITE}-{types_pb2.Seat.Name(s.seat)}")
            for s in request.seat_setup
            if s.mode == match_pb2.SEAT_MODE_OPEN
        ]
        return match_pb2.CreateMatchResponse(match_id="m-1", invites=invites, host_token=HOST)

    def _statuses(self) -> list[Any]:
        out = []
        for s in self.setup:
            code = f"{INVITE}-{types_pb2.Seat.Name(s.seat)}"
            status = (
                match_pb2.SEAT_STATUS_BOT
                if s.mode == match_pb2.SEAT_MODE_BOT
                else match_pb2.SEAT_STATUS_CLAIMED
                if code in self.claimed
                else match_pb2.SEAT_STATUS_OPEN
            )
            out.append(match_pb2.SeatStatusEntry(seat=s.seat, status=status, bot=s.bot))
        return out

    async def ClaimSeat(self, request: Any, timeout: float) -> Any:
        self._record("ClaimSeat", request)
        seats = {f"{INVITE}-{types_pb2.Seat.Name(s.seat)}": s.seat for s in self.setup}
        if request.invite_code not in seats:
            code, message = grpc.StatusCode.PERMISSION_DENIED, "this invite code opens no seat"
            field = {"field": "invite_code"}
            raise FakeRpcError(
                code, message, details_metadata(code, message, "UNKNOWN_INVITE", field)
            )
        if request.invite_code in self.claimed:
            code, message = grpc.StatusCode.FAILED_PRECONDITION, "seat A1 was claimed already"
            raise FakeRpcError(
                code, message, details_metadata(code, message, "SEAT_ALREADY_CLAIMED")
            )
        self.claimed.add(request.invite_code)
        seat = seats[request.invite_code]
        token = f"{SECRET}-{types_pb2.Seat.Name(seat)}"
        return match_pb2.ClaimSeatResponse(seat=match_pb2.SeatToken(seat=seat, token=token))

    async def AssignSeatBot(self, request: Any, timeout: float, metadata: Any = ()) -> Any:
        self.host_keys.append(dict(metadata).get("x-frontier-host-key", ""))
        self._record("AssignSeatBot", request)
        if request.host_token != HOST:
            code, message = grpc.StatusCode.PERMISSION_DENIED, "this is not the host token"
            raise FakeRpcError(code, message, details_metadata(code, message, "NOT_HOST"))
        for i, s in enumerate(self.setup):
            if s.seat == request.seat:
                self.setup[i] = match_pb2.SeatSetup(
                    seat=s.seat, mode=match_pb2.SEAT_MODE_BOT, bot=request.bot
                )
        return match_pb2.AssignSeatBotResponse(seats=self._statuses())

    async def AbandonMatch(self, request: Any, timeout: float, metadata: Any = ()) -> Any:
        self.host_keys.append(dict(metadata).get("x-frontier-host-key", ""))
        self._record("AbandonMatch", request)
        return match_pb2.AbandonMatchResponse(version=12)

    async def GetView(self, request: Any, timeout: float) -> Any:
        self._record("GetView", request)
        if request.match_id != "m-1":
            raise FakeRpcError(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id}")
        view = types_pb2.View(round=2)
        if request.seat_token:
            view.viewer = types_pb2.SEAT_A1
        view.json = '{"secret": "engine debugging form"}'
        return match_pb2.GetViewResponse(view=view)

    async def ListLegalCommands(self, request: Any, timeout: float) -> Any:
        self._record("ListLegalCommands", request)
        return match_pb2.ListLegalCommandsResponse(
            commands=[types_pb2.LegalCommand(id="c1", label="End the phase")], version=3
        )

    def WatchEvents(self, request: Any) -> Any:
        self._record("WatchEvents", request)
        quiet = request.match_id == "m-quiet"  # a match with no event after ``from``
        self.streams.append(FakeEvents(request.match_id, count=0 if quiet else 2))
        return self.streams[-1]

    async def GetGameData(self, request: Any, timeout: float) -> Any:
        self._record("GetGameData", request)
        return match_pb2.GetGameDataResponse(data=game_data())

    def WatchTurns(self, request: Any, timeout: float) -> Any:
        self._record("WatchTurns", request)
        return FakeTurns(request.match_id)

    async def SubmitCommand(self, request: Any, timeout: float) -> Any:
        self._record("SubmitCommand", request)
        if request.legal_id == "stale":
            raise FakeRpcError(grpc.StatusCode.ABORTED, "the match is at version 4, not 3")
        if request.legal_id == "gone":
            code, message = grpc.StatusCode.FAILED_PRECONDITION, "c9 is not legal now"
            raise FakeRpcError(code, message, details_metadata(code, message, "COMMAND_NOT_LEGAL"))
        return match_pb2.SubmitCommandResponse(version=4)

    async def ListMatches(self, request: Any, timeout: float) -> Any:
        self._record("ListMatches", request)
        summary = match_pb2.MatchSummary(
            match_id="m-1", status=match_pb2.MATCH_STATUS_FINISHED, seats=self._statuses()
        )
        if request.status not in (0, summary.status):
            return match_pb2.ListMatchesResponse()
        return match_pb2.ListMatchesResponse(matches=[summary], next_page_token="p2")

    async def SetStandingAnswers(self, request: Any, timeout: float) -> Any:
        self._record("SetStandingAnswers", request)
        return match_pb2.SetStandingAnswersResponse(answers=request.answers)


class FakeTurns:
    """A WatchTurns call: one notice for m-1, NOT_FOUND for any other match."""

    def __init__(self, match_id: str) -> None:
        self.match_id, self.cancelled = match_id, False

    async def read(self) -> Any:
        if self.match_id != "m-1":
            raise FakeRpcError(grpc.StatusCode.NOT_FOUND, f"no match {self.match_id}")
        return match_pb2.WatchTurnsResponse(
            decision_id="7", deadline_unix_ms=1_000_030_000, server_time_unix_ms=1_000_000_000
        )

    def cancel(self) -> None:
        self.cancelled = True


class FakeEvents:
    """A WatchEvents call on m-1 (or m-quiet): ``count`` events, then none until ``end`` (a
    live match gone quiet); NOT_FOUND for any other match."""

    def __init__(self, match_id: str, count: int) -> None:
        self.match_id, self.count, self.sent = match_id, count, 0
        self.cancelled, self.ended = asyncio.Event(), asyncio.Event()
        self.status = ""

    async def initial_metadata(self) -> Any:
        """The headers the orchestrator sends once it lets the stream in."""
        if self.match_id not in ("m-1", "m-quiet"):
            raise FakeRpcError(grpc.StatusCode.NOT_FOUND, f"no match {self.match_id}")
        return grpc.aio.Metadata()

    async def read(self) -> Any:
        if self.match_id not in ("m-1", "m-quiet"):
            raise FakeRpcError(grpc.StatusCode.NOT_FOUND, f"no match {self.match_id}")
        if self.sent < self.count:
            self.sent += 1
            envelope = events_pb2.EventEnvelope(match_id="m-1", seq=self.sent)
            return match_pb2.WatchEventsResponse(envelope=envelope)
        await self.ended.wait()  # no further event until the match ends (``end``)
        return grpc.aio.EOF

    async def trailing_metadata(self) -> Any:
        """How the match ended, as the orchestrator says once its stream completes."""
        return grpc.aio.Metadata((MATCH_STATUS_TRAILER, self.status))

    def end(self, status: str = "MATCH_STATUS_FINISHED") -> None:
        self.status = status
        self.ended.set()

    def cancel(self) -> None:
        self.cancelled.set()


class FakeHealth:
    async def Check(self, request: Any, timeout: float) -> Any:
        from grpc_health.v1 import health_pb2

        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)
