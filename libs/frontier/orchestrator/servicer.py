"""The public MatchService over gRPC: request validation and conversion around :mod:`.core`."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc

from frontier.bots.standing import InvalidStandingAnswers, StandingPolicy, validate
from frontier.engine import Seat
from frontier.engine.view import event_for, view
from frontier.runtime.domain import GrpcContext, grpc_errors
from frontier.runtime.errors import ServiceError, abort
from frontier.v1 import events_pb2, match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import (
    command_from_proto,
    enum_to_proto,
    event_to_proto,
)
from frontier.wire.view import view_to_proto

from .core import Orchestrator
from .hosted import HostedMatch, NotOwner, valid_id
from .match_info import game_data_response, match_info_response
from .peers import FORWARDED, Peers, refuse_second_hop
from .referee import ClockConfig, InvalidClock

_POLICY_PREFIX = "STANDING_POLICY_"


R = TypeVar("R")


def _seat_proto(seat: Seat | None) -> types_pb2.Seat.ValueType:
    return types_pb2.Seat.ValueType(enum_to_proto(seat) if seat is not None else 0)


def _require_match_id(match_id: str) -> None:
    if not match_id:
        raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "match_id is required")


def policy_from_proto(number: int) -> StandingPolicy:
    """A wire StandingPolicy as the engine-side enum; INVALID_ARGUMENT for 0 or unknown."""
    known = number in _POLICY_NUMBERS
    name = (
        match_pb2.StandingPolicy.Name(match_pb2.StandingPolicy.ValueType(number)) if known else ""
    )
    if not name or name.endswith("UNSPECIFIED"):
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT, f"standing answer policy {number} is not valid"
        )
    return StandingPolicy(name.removeprefix(_POLICY_PREFIX).lower())


def policy_to_proto(policy: StandingPolicy) -> match_pb2.StandingPolicy.ValueType:
    return match_pb2.StandingPolicy.Value(_POLICY_PREFIX + policy.name)


_POLICY_NUMBERS = frozenset(match_pb2.StandingPolicy.values())


def _answers_message(answers: dict[str, StandingPolicy]) -> list[match_pb2.StandingAnswer]:
    return [
        match_pb2.StandingAnswer(decision_kind=kind, policy=policy_to_proto(policy))
        for kind, policy in sorted(answers.items())
    ]


def view_message(hosted: HostedMatch, viewer: Seat | None) -> types_pb2.View:
    return view_to_proto(view(hosted.state, viewer))


def routed(method: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Serve locally, or forward to the orchestrator that owns the match (NotOwner)."""

    @functools.wraps(method)
    async def wrapper(self: MatchServicer, request: Any, context: GrpcContext) -> R:
        try:
            return await method(self, request, context)
        except NotOwner as exc:
            reply: R = await self.peers.unary(exc.address, method.__name__, request, context)
            return reply

    return wrapper


class MatchServicer(match_pb2_grpc.MatchServiceServicer):
    def __init__(self, core: Orchestrator, peers: Peers) -> None:
        self.core = core
        self.peers = peers

    @grpc_errors
    async def CreateMatch(
        self, request: match_pb2.CreateMatchRequest, context: GrpcContext
    ) -> match_pb2.CreateMatchResponse:
        cfg = request.config
        if cfg.seed < 0:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "seed must be >= 0")
        try:
            clock = ClockConfig.make(
                cfg.decision_budget_ms, cfg.reserve_ms, cfg.strike_limit, cfg.takeover_bot
            )
        except InvalidClock as exc:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, str(exc)) from None
        match_id, tokens = await self.core.create_match(
            cfg.seed, cfg.lineup, cfg.team_hands_visible, cfg.max_rounds, clock
        )
        return match_pb2.CreateMatchResponse(
            match_id=match_id,
            seats=[match_pb2.SeatToken(seat=_seat_proto(s), token=t) for s, t in tokens.items()],
        )

    @grpc_errors
    async def ListMatches(
        self, request: match_pb2.ListMatchesRequest, context: GrpcContext
    ) -> match_pb2.ListMatchesResponse:
        if request.page_size < 0:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "page_size must be >= 0")
        if request.page_token and not valid_id(request.page_token):
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "page_token is not one this server handed out (next_page_token)",
            )
        if request.status not in match_pb2.MatchStatus.values():
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT, f"status {request.status} is not valid"
            )
        page, next_token = await self.core.summaries(
            request.page_size, request.page_token, request.status
        )
        return match_pb2.ListMatchesResponse(
            matches=[
                match_pb2.MatchSummary(
                    match_id=m.match_id,
                    lineup=m.lineup,
                    round=m.round,
                    score_a=m.score_a,
                    score_b=m.score_b,
                    winner=m.winner,
                    version=m.version,
                    status=match_pb2.MatchStatus.ValueType(m.status),
                )
                for m in page
            ],
            next_page_token=next_token,
        )

    @grpc_errors
    @routed
    async def GetView(
        self, request: match_pb2.GetViewRequest, context: GrpcContext
    ) -> match_pb2.GetViewResponse:
        _require_match_id(request.match_id)
        hosted = await self.core.get(request.match_id)
        viewer = self.core.viewer_for(hosted, request.seat_token)
        return match_pb2.GetViewResponse(view=view_message(hosted, viewer))

    @grpc_errors
    @routed
    async def ListLegalCommands(
        self, request: match_pb2.ListLegalCommandsRequest, context: GrpcContext
    ) -> match_pb2.ListLegalCommandsResponse:
        _require_match_id(request.match_id)
        hosted = await self.core.get(request.match_id)
        seat = self.core.seat_for(hosted, request.seat_token)
        return match_pb2.ListLegalCommandsResponse(
            commands=hosted.legal(seat).wire(), version=hosted.state.version
        )

    @grpc_errors
    @routed
    async def SubmitCommand(
        self, request: match_pb2.SubmitCommandRequest, context: GrpcContext
    ) -> match_pb2.SubmitCommandResponse:
        _require_match_id(request.match_id)
        choice = request.WhichOneof("choice")
        if choice is None:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT, "either command or legal_id is required"
            )
        command = command_from_proto(request.command) if choice == "command" else None
        accepted = await self.core.submit(
            request.match_id,
            request.seat_token,
            request.command_id,
            request.expected_version,
            command,
            request.legal_id,
        )
        hosted = await self.core.get(request.match_id)
        viewer = self.core.viewer_for(hosted, request.seat_token)
        version = accepted.events[-1][0] if accepted.events else hosted.state.version
        return match_pb2.SubmitCommandResponse(
            version=version,
            next_legal=accepted.next_legal,
            events=[
                events_pb2.EventEnvelope(
                    match_id=request.match_id,
                    seq=s,
                    state_version=s,
                    event=event_to_proto(event_for(hosted.state, e, viewer)),
                )
                for s, e in accepted.events
            ],
            to_act=_seat_proto(accepted.to_act),
            winner=accepted.winner,
        )

    async def WatchEvents(
        self, request: match_pb2.WatchEventsRequest, context: GrpcContext
    ) -> AsyncIterator[match_pb2.WatchEventsResponse]:
        try:
            _require_match_id(request.match_id)
            try:
                await self.core.get(request.match_id)
            except NotOwner as exc:
                refuse_second_hop(context)
                stub = self.peers.match_stub(exc.address)
                async for reply in stub.WatchEvents(request, metadata=((FORWARDED, "1"),)):
                    yield reply
                return
            async for seq, event, record in self.core.watch(
                request.match_id, request.seat_token, request.from_version
            ):
                yield match_pb2.WatchEventsResponse(
                    envelope=events_pb2.EventEnvelope(
                        match_id=request.match_id,
                        seq=seq,
                        state_version=seq,
                        event=event_to_proto(event),
                    ),
                    decision=record,
                )
        except Exception as exc:
            await abort(context, exc)

    @grpc_errors
    @routed
    async def SetStandingAnswers(
        self, request: match_pb2.SetStandingAnswersRequest, context: GrpcContext
    ) -> match_pb2.SetStandingAnswersResponse:
        _require_match_id(request.match_id)
        try:
            answers = validate(
                [(a.decision_kind, policy_from_proto(a.policy)) for a in request.answers]
            )
        except InvalidStandingAnswers as exc:
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, str(exc)) from None
        stored = await self.core.set_standing(request.match_id, request.seat_token, answers)
        return match_pb2.SetStandingAnswersResponse(answers=_answers_message(stored))

    @grpc_errors
    @routed
    async def GetStandingAnswers(
        self, request: match_pb2.GetStandingAnswersRequest, context: GrpcContext
    ) -> match_pb2.GetStandingAnswersResponse:
        _require_match_id(request.match_id)
        stored = await self.core.get_standing(request.match_id, request.seat_token)
        return match_pb2.GetStandingAnswersResponse(answers=_answers_message(stored))

    @grpc_errors
    @routed
    async def ExportReplay(
        self, request: match_pb2.ExportReplayRequest, context: GrpcContext
    ) -> match_pb2.ExportReplayResponse:
        _require_match_id(request.match_id)
        text = await self.core.export_replay(request.match_id, request.seat_token)
        return match_pb2.ExportReplayResponse(json=text)

    @grpc_errors
    async def GetGameData(
        self, request: match_pb2.GetGameDataRequest, context: GrpcContext
    ) -> match_pb2.GetGameDataResponse:
        return game_data_response()

    @grpc_errors
    @routed
    async def GetMatchInfo(
        self, request: match_pb2.GetMatchInfoRequest, context: GrpcContext
    ) -> match_pb2.GetMatchInfoResponse:
        _require_match_id(request.match_id)
        hosted = await self.core.get(request.match_id)
        viewer = self.core.viewer_for(hosted, request.seat_token)
        return await match_info_response(self.core, hosted, viewer)
