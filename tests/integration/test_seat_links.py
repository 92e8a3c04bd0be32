"""Seats a person holds, over real processes: reissued tokens that survive an orchestrator
restart, and a bot that plays a seat for its person until the host gives it back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from frontier.bots import default_command
from frontier.engine import Seat
from frontier.ops.stack import Stack, StackConfig
from frontier.orchestrator import referee
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import command_from_proto, enum_from_proto, enum_to_proto

from .client import MIRROR, summary_of
from .stream_check import stored_batches

pytestmark = pytest.mark.integration

NEW_A1 = "reissued-a1-" + "q" * 32


def _create(stub: match_pb2_grpc.MatchServiceStub) -> match_pb2.CreateMatchResponse:
    reply: match_pb2.CreateMatchResponse = stub.CreateMatch(
        match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(seed=7, lineup=MIRROR))
    )
    return reply


def _tokens(created: match_pb2.CreateMatchResponse) -> dict[Seat, str]:
    return {enum_from_proto(Seat, s.seat): s.token for s in created.seats}


def _seat(seat: Seat) -> types_pb2.Seat.ValueType:
    return types_pb2.Seat.ValueType(enum_to_proto(seat))


def _refused(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as exc:
        call()
    error = exc.value
    return error.code(), reason_in(error.trailing_metadata())


def _status(stub: match_pb2_grpc.MatchServiceStub, match_id: str, seat: Seat) -> int:
    summary = summary_of(stub, match_id)
    return next(e.status for e in summary.seats if e.seat == _seat(seat))


def _viewer(stub: match_pb2_grpc.MatchServiceStub, match_id: str, token: str) -> int:
    request = match_pb2.GetViewRequest(match_id=match_id, seat_token=token)
    return int(stub.GetView(request).view.viewer)


def test_a_reissued_token_and_a_bot_for_a_player_survive_an_orchestrator_restart(
    tmp_path: Path,
) -> None:
    config = StackConfig.ephemeral(tmp_path, sync="always")
    with Stack(config) as stack:
        address = config.address("orchestrator")
        with grpc.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            created = _create(stub)
            match_id, tokens = created.match_id, _tokens(created)
            mine = stub.ReissueSeatToken(
                match_pb2.ReissueSeatTokenRequest(
                    match_id=match_id, seat_token=tokens[Seat.A1], new_token=NEW_A1
                )
            )
            assert mine.seat.token == NEW_A1 and mine.seat.seat == _seat(Seat.A1)
            by_host = stub.ReissueSeatToken(
                match_pb2.ReissueSeatTokenRequest(
                    match_id=match_id, host_token=created.host_token, seat=_seat(Seat.B1)
                )
            ).seat.token
            stub.AssignSeatBot(
                match_pb2.AssignSeatBotRequest(
                    match_id=match_id,
                    host_token=created.host_token,
                    seat=_seat(Seat.B1),
                    bot="random",
                    replace_player=True,
                )
            )
        stack.kill("orchestrator")
        stack.restart("orchestrator")
        with grpc.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            assert _viewer(stub, match_id, NEW_A1) == _seat(Seat.A1)
            assert _viewer(stub, match_id, by_host) == _seat(Seat.B1)
            for old in (tokens[Seat.A1], tokens[Seat.B1]):
                refused = _refused(lambda: _viewer(stub, match_id, old))  # noqa: B023
                assert refused == (grpc.StatusCode.PERMISSION_DENIED, "TOKEN_REISSUED")
            assert _status(stub, match_id, Seat.B1) == match_pb2.SEAT_STATUS_BOT_FOR_PLAYER
            # a retried reissue (its reply was lost) still gets the seat, with the old token
            again = stub.ReissueSeatToken(
                match_pb2.ReissueSeatTokenRequest(
                    match_id=match_id, seat_token=tokens[Seat.A1], new_token=NEW_A1
                )
            )
            assert again.seat.token == NEW_A1


def _wait_for_turn(stub: match_pb2_grpc.MatchServiceStub, match_id: str, token: str) -> None:
    """Until the match waits for the token's seat (its first turn notice)."""
    notices = stub.WatchTurns(
        match_pb2.WatchTurnsRequest(match_id=match_id, seat_token=token), timeout=120
    )
    next(notices)
    notices.cancel()


def _play_turn(stub: match_pb2_grpc.MatchServiceStub, match_id: str, token: str) -> int:
    """The default command of each decision until the seat need not act; how many."""
    played = 0
    while True:
        listed = stub.ListLegalCommands(
            match_pb2.ListLegalCommandsRequest(match_id=match_id, seat_token=token)
        )
        if not listed.commands:
            return played
        by_key = {command_from_proto(c.command).key(): c.id for c in listed.commands}
        chosen = default_command([command_from_proto(c.command) for c in listed.commands])
        stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match_id,
                seat_token=token,
                command_id=f"t{listed.version}",
                expected_version=listed.version,
                legal_id=by_key[chosen.key()],
            )
        )
        played += 1


async def test_a_bot_plays_a_silent_seat_and_the_host_gives_it_back(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    created = _create(match_stub)
    match_id, tokens = created.match_id, _tokens(created)
    first = match_stub.GetView(match_pb2.GetViewRequest(match_id=match_id)).view.to_act
    silent = enum_from_proto(Seat, first)
    other = Seat.B1 if silent is Seat.A1 else Seat.A1
    match_stub.AssignSeatBot(
        match_pb2.AssignSeatBotRequest(
            match_id=match_id,
            host_token=created.host_token,
            seat=first,
            replace_player=True,
        )
    )
    _wait_for_turn(match_stub, match_id, tokens[other])  # the bot played the silent seat's turn
    # the person's token reads the seat's view, and its commands are refused
    assert _viewer(match_stub, match_id, tokens[silent]) == first
    submit = match_pb2.SubmitCommandRequest(
        match_id=match_id, seat_token=tokens[silent], command_id="while-the-bot", legal_id="x"
    )
    refused = _refused(lambda: match_stub.SubmitCommand(submit))
    assert refused == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_PLAYED_BY_BOT")
    assert _status(match_stub, match_id, silent) == match_pb2.SEAT_STATUS_BOT_FOR_PLAYER
    match_stub.ReturnSeat(
        match_pb2.ReturnSeatRequest(match_id=match_id, host_token=created.host_token, seat=first)
    )
    assert _status(match_stub, match_id, silent) == match_pb2.SEAT_STATUS_HOST
    assert _play_turn(match_stub, match_id, tokens[other]) > 0
    _wait_for_turn(match_stub, match_id, tokens[silent])  # the bot no longer answers for it
    assert _play_turn(match_stub, match_id, tokens[silent]) > 0
    stored = await stored_batches(stack.config.nats_url, match_id)
    answers = [b.decision.answered_by for b in stored if b.seat == first]
    bot_answers = answers.index(referee.SEAT)  # the bot's, then the person's again
    assert bot_answers > 0 and set(answers[:bot_answers]) == {referee.BUILT_IN_BOT}
    assert set(answers[bot_answers:]) == {referee.SEAT}
