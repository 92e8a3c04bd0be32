"""The public MatchService over gRPC: request validation and conversion around :mod:`.core`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

import grpc

from frontier.bots.standing import InvalidStandingAnswers, StandingPolicy, validate
from frontier.engine import Seat
from frontier.engine.model import Command
from frontier.runtime.errors import GrpcContext, ServiceError, abort, about, grpc_errors
from frontier.runtime.settings import MATCH_STATUS_TRAILER
from frontier.store.seats import SEAT_BOT, SEAT_HELD, SEAT_OPEN
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import (
    WireError,
    command_from_proto,
    enum_to_proto,
)

from .core import Orchestrator
from .host_keys import Host, caller
from .hosted_match import NotOwner, valid_id
from .legal_cache import field_tag
from .match_info import game_data_response, match_info_response
from .match_summary import seat_statuses
from .peers import FORWARDED, Peers, peer_failure, refuse_second_hop, routed
from .referee import ClockConfig, InvalidClock
from .replies import reply_envelopes, view_message
from .seat_rpcs import SeatRpcs, require_match_id, seat_from_proto
from .seating import bot_name
from .turns import watch_turns

_POLICY_PREFIX = "STANDING_POLICY_"

# The replies' legal lists are merged from the entries' kept bytes (see legal_cache).
_COMMANDS_TAG = field_tag(match_pb2.ListLegalCommandsResponse.COMMANDS_FIELD_NUMBER)
_NEXT_LEGAL_TAG = field_tag(match_pb2.SubmitCommandResponse.NEXT_LEGAL_FIELD_NUMBER)


def _seat_proto(seat: Seat | None) -> types_pb2.Seat.ValueType:
    return types_pb2.Seat.ValueType(enum_to_proto(seat) if seat is not None else 0)


_SEAT_MODES = {
    match_pb2.SEAT_MODE_UNSPECIFIED: SEAT_HELD,
    match_pb2.SEAT_MODE_HELD: SEAT_HELD,
    match_pb2.SEAT_MODE_OPEN: SEAT_OPEN,
    match_pb2.SEAT_MODE_BOT: SEAT_BOT,
}


def seat_setup_from_proto(
    entries: Iterable[match_pb2.SeatSetup],
) -> dict[Seat, tuple[str, str]]:
    """CreateMatchRequest.seat_setup as seat -> (mode, bot); INVALID_ARGUMENT (MALFORMED)
    for an unknown seat or mode, a seat listed twice, or a bot name where none belongs."""
    out: dict[Seat, tuple[str, str]] = {}
    for entry in entries:
        seat = seat_from_proto(entry.seat, "seat_setup.seat")
        mode = _SEAT_MODES.get(entry.mode)
        if mode is None:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"seat mode {entry.mode} is not valid",
                "MALFORMED",
                about("seat_setup.mode"),
            )
        if seat in out:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"seat_setup lists seat {seat.value} twice",
                "MALFORMED",
                about("seat_setup.seat"),
            )
        if mode != SEAT_BOT and entry.bot:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"seat {seat.value}: a bot name is only for SEAT_MODE_BOT",
                "MALFORMED",
                about("seat_setup.bot"),
            )
        out[seat] = (mode, bot_name(entry.bot, "seat_setup.bot") if mode == SEAT_BOT else "")
    return out


def _command_of(message: types_pb2.Command) -> Command:
    """SubmitCommandRequest.command as an engine command; MALFORMED about ``command``."""
    try:
        return command_from_proto(message)
    except WireError as exc:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT, str(exc), "MALFORMED", about("command")
        ) from None


def policy_from_proto(number: int) -> StandingPolicy:
    """A wire StandingPolicy as the engine-side enum; INVALID_ARGUMENT for 0 or unknown."""
    known = number in _POLICY_NUMBERS
    name = (
        match_pb2.StandingPolicy.Name(match_pb2.StandingPolicy.ValueType(number)) if known else ""
    )
    if not name or name.endswith("UNSPECIFIED"):
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"standing answer policy {number} is not valid",
            "MALFORMED",
            about("answers.policy"),
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


class MatchServicer(SeatRpcs, match_pb2_grpc.MatchServiceServicer):
    def __init__(self, core: Orchestrator, peers: Peers) -> None:
        self.core = core
        self.peers = peers

    async def _host(self, context: GrpcContext) -> Host:
        return await caller(self.core.access, context)

    @grpc_errors
    async def CreateMatch(
        self, request: match_pb2.CreateMatchRequest, context: GrpcContext
    ) -> match_pb2.CreateMatchResponse:
        host = await self._host(context)
        cfg = request.config
        if cfg.seed < 0:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "seed must be >= 0",
                "MALFORMED",
                about("config.seed"),
            )
        try:
            clock = ClockConfig.make(
                cfg.decision_budget_ms,
                cfg.reserve_ms,
                cfg.strike_limit,
                cfg.takeover_bot,
                cfg.spectator_delay_s,
            )
        except InvalidClock as exc:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT, str(exc), "MALFORMED", about("config")
            ) from None
        created = await self.core.host.create_match(
            cfg.seed,
            cfg.lineup,
            cfg.team_hands_visible,
            cfg.max_rounds,
            clock,
            seat_setup_from_proto(request.seat_setup),
            host,
        )
        return match_pb2.CreateMatchResponse(
            match_id=created.match_id,
            seats=[
                match_pb2.SeatToken(seat=_seat_proto(s), token=t) for s, t in created.tokens.items()
            ],
            invites=[
                match_pb2.SeatInvite(seat=_seat_proto(s), invite_code=c)
                for s, c in created.invites.items()
            ],
            host_token=created.host_token,
        )

    @grpc_errors
    @routed
    async def ClaimSeat(
        self, request: match_pb2.ClaimSeatRequest, context: GrpcContext
    ) -> match_pb2.ClaimSeatResponse:
        require_match_id(request.match_id)
        seat, token = await self.core.seating.claim_seat(
            request.match_id, request.invite_code, request.host_token, request.allow_host_claim
        )
        return match_pb2.ClaimSeatResponse(
            seat=match_pb2.SeatToken(seat=_seat_proto(seat), token=token)
        )

    @grpc_errors
    @routed
    async def AssignSeatBot(
        self, request: match_pb2.AssignSeatBotRequest, context: GrpcContext
    ) -> match_pb2.AssignSeatBotResponse:
        host = await self._host(context)
        require_match_id(request.match_id)
        seat = seat_from_proto(request.seat)
        assign = (
            self.core.seat_links.play_for
            if request.replace_player
            else self.core.seating.assign_bot
        )
        await assign(request.match_id, request.host_token, seat, request.bot, host)
        hosted = await self.core.get(request.match_id)
        return match_pb2.AssignSeatBotResponse(
            seats=seat_statuses(hosted.state.order, hosted.seats, hosted.taken_over())
        )

    @grpc_errors
    @routed
    async def AbandonMatch(
        self, request: match_pb2.AbandonMatchRequest, context: GrpcContext
    ) -> match_pb2.AbandonMatchResponse:
        await self._host(context)  # any live host key (the host token names the match)
        require_match_id(request.match_id)
        version = await self.core.seating.abandon(request.match_id, request.host_token)
        return match_pb2.AbandonMatchResponse(version=version)

    @grpc_errors
    async def ListMatches(
        self, request: match_pb2.ListMatchesRequest, context: GrpcContext
    ) -> match_pb2.ListMatchesResponse:
        if request.page_size < 0:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "page_size must be >= 0",
                "MALFORMED",
                about("page_size"),
            )
        if request.page_token and not valid_id(request.page_token):
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "page_token is not one this server handed out (next_page_token)",
                "MALFORMED",
                about("page_token"),
            )
        if request.status not in match_pb2.MatchStatus.values():
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"status {request.status} is not valid",
                "MALFORMED",
                about("status"),
            )
        page, next_token = await self.core.host.summaries(
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
                    seats=m.seats,
                    seed_fixed=m.seed_fixed,
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
        require_match_id(request.match_id)
        hosted = await self.core.get(request.match_id)
        viewer = self.core.viewer_for(hosted, request.seat_token)
        return match_pb2.GetViewResponse(view=view_message(hosted, viewer))

    @grpc_errors
    @routed
    async def ListLegalCommands(
        self, request: match_pb2.ListLegalCommandsRequest, context: GrpcContext
    ) -> match_pb2.ListLegalCommandsResponse:
        require_match_id(request.match_id)
        hosted = await self.core.get(request.match_id)
        seat = self.core.seat_for(hosted, request.seat_token)
        reply = match_pb2.ListLegalCommandsResponse(version=hosted.state.version)
        reply.MergeFromString(hosted.legal(seat).listed().spliced(_COMMANDS_TAG))
        return reply

    @grpc_errors
    @routed
    async def SubmitCommand(
        self, request: match_pb2.SubmitCommandRequest, context: GrpcContext
    ) -> match_pb2.SubmitCommandResponse:
        require_match_id(request.match_id)
        choice = request.WhichOneof("choice")
        if choice is None:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "either command or legal_id is required",
                "MALFORMED",
                about("command"),
            )
        command = _command_of(request.command) if choice == "command" else None
        hosted = await self.core.get(request.match_id)
        # the seat the token acts for, whose view the reply shows: a seat token is never the
        # host's, so viewer_for's host check is not needed
        viewer = self.core.seat_for(hosted, request.seat_token)
        result = await self.core.submit(
            hosted,
            viewer,
            request.command_id,
            request.expected_version if request.HasField("expected_version") else -1,
            command,
            request.legal_id,
        )
        version = result.events[-1][0] if result.events else hosted.state.version
        reply = match_pb2.SubmitCommandResponse(
            version=version,
            events=reply_envelopes(request.match_id, hosted, result, viewer),
            to_act=_seat_proto(result.to_act),
            winner=result.winner,
        )
        if result.next_legal is not None:
            reply.MergeFromString(result.next_legal.spliced(_NEXT_LEGAL_TAG))
        return reply

    async def WatchEvents(
        self, request: match_pb2.WatchEventsRequest, context: GrpcContext
    ) -> AsyncIterator[match_pb2.WatchEventsResponse]:
        try:
            require_match_id(request.match_id)
            try:
                hosted = await self.core.get(request.match_id)
            except NotOwner as exc:
                refuse_second_hop(context)
                stub = self.peers.match_stub(exc.address)
                call = stub.WatchEvents(request, metadata=((FORWARDED, "1"),))
                try:
                    await call.initial_metadata()  # the owner let it in: so do we, at once
                    await context.send_initial_metadata(())
                    async for reply in call:
                        yield reply
                    trailer = await call.trailing_metadata()
                except grpc.aio.AioRpcError as failed:
                    raise peer_failure(failed) from None
                context.set_trailing_metadata(
                    tuple((k, v) for k, v in trailer or () if k == MATCH_STATUS_TRAILER)
                )
                return

            async def admitted() -> None:
                # the client knows it is let in before the first event (a new match has none)
                await context.send_initial_metadata(())

            async for reply in self.core.watch(
                request.match_id,
                request.seat_token,
                request.from_version,
                context.peer(),
                admitted,
            ):
                yield reply
            # the stream ends only with its match: say how (an abandoned one has no event)
            status = "MATCH_STATUS_ABANDONED" if hosted.abandoned else "MATCH_STATUS_FINISHED"
            context.set_trailing_metadata(((MATCH_STATUS_TRAILER, status),))
        except Exception as exc:
            await abort(context, exc)

    async def WatchTurns(
        self, request: match_pb2.WatchTurnsRequest, context: GrpcContext
    ) -> AsyncIterator[match_pb2.WatchTurnsResponse]:
        try:
            require_match_id(request.match_id)
            try:
                hosted = await self.core.get(request.match_id)
            except NotOwner as exc:
                refuse_second_hop(context)
                stub = self.peers.match_stub(exc.address)
                try:
                    async for reply in stub.WatchTurns(request, metadata=((FORWARDED, "1"),)):
                        yield reply
                except grpc.aio.AioRpcError as failed:
                    raise peer_failure(failed) from None
                return
            seat = self.core.seat_for(hosted, request.seat_token)
            async for turn in watch_turns(
                hosted,
                seat,
                lambda: self.core.draining,
                lambda: not self.core.host.is_hosted(hosted),
            ):
                self.core.seat_for(hosted, request.seat_token)  # not reissued meanwhile
                yield turn
        except Exception as exc:
            await abort(context, exc)

    @grpc_errors
    @routed
    async def SetStandingAnswers(
        self, request: match_pb2.SetStandingAnswersRequest, context: GrpcContext
    ) -> match_pb2.SetStandingAnswersResponse:
        require_match_id(request.match_id)
        try:
            answers = validate(
                [(a.decision_kind, policy_from_proto(a.policy)) for a in request.answers]
            )
        except InvalidStandingAnswers as exc:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT, str(exc), "MALFORMED", about("answers")
            ) from None
        stored = await self.core.set_standing(request.match_id, request.seat_token, answers)
        return match_pb2.SetStandingAnswersResponse(answers=_answers_message(stored))

    @grpc_errors
    @routed
    async def GetStandingAnswers(
        self, request: match_pb2.GetStandingAnswersRequest, context: GrpcContext
    ) -> match_pb2.GetStandingAnswersResponse:
        require_match_id(request.match_id)
        stored = await self.core.get_standing(request.match_id, request.seat_token)
        return match_pb2.GetStandingAnswersResponse(answers=_answers_message(stored))

    @grpc_errors
    @routed
    async def ExportReplay(
        self, request: match_pb2.ExportReplayRequest, context: GrpcContext
    ) -> match_pb2.ExportReplayResponse:
        require_match_id(request.match_id)
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
        require_match_id(request.match_id)
        hosted = await self.core.get(request.match_id)
        viewer = self.core.viewer_for(hosted, request.seat_token)
        return await match_info_response(self.core, hosted, viewer)
