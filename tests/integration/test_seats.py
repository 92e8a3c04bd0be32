"""Claimable seats end to end: open seats and their invite codes, built-in bot seats, the
host credential, and what ListMatches and views say about them."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2

from .client import MIRROR, listed_matches, summary_of

pytestmark = pytest.mark.integration

A1 = types_pb2.SEAT_A1
B1 = types_pb2.SEAT_B1


def _refused(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as exc:
        call()
    return exc.value


def _create(
    stub: match_pb2_grpc.MatchServiceStub, *setup: match_pb2.SeatSetup, seed: int = 0
) -> match_pb2.CreateMatchResponse:
    reply: match_pb2.CreateMatchResponse = stub.CreateMatch(
        match_pb2.CreateMatchRequest(
            config=match_pb2.MatchConfig(seed=seed, lineup=MIRROR), seat_setup=list(setup)
        )
    )
    return reply


def _summary(stub: match_pb2_grpc.MatchServiceStub, match_id: str) -> match_pb2.MatchSummary:
    return summary_of(stub, match_id)


def _statuses(summary: match_pb2.MatchSummary) -> dict[int, int]:
    return {s.seat: s.status for s in summary.seats}


OPEN_B1 = match_pb2.SeatSetup(seat=B1, mode=match_pb2.SEAT_MODE_OPEN)


def test_without_seat_setup_the_creator_holds_every_seat(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    created = _create(match_stub)
    assert {s.seat for s in created.seats} == {A1, B1}
    assert not created.invites and created.host_token
    statuses = _statuses(_summary(match_stub, created.match_id))
    assert statuses == {A1: match_pb2.SEAT_STATUS_HOST, B1: match_pb2.SEAT_STATUS_HOST}


def test_an_open_seat_is_claimed_exactly_once_and_its_token_plays(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    created = _create(match_stub, OPEN_B1)
    assert [s.seat for s in created.seats] == [A1]
    assert [i.seat for i in created.invites] == [B1]
    match_id, code = created.match_id, created.invites[0].invite_code
    assert _statuses(_summary(match_stub, match_id))[B1] == match_pb2.SEAT_STATUS_OPEN

    claimed = match_stub.ClaimSeat(match_pb2.ClaimSeatRequest(match_id=match_id, invite_code=code))
    assert claimed.seat.seat == B1 and claimed.seat.token
    assert _statuses(_summary(match_stub, match_id))[B1] == match_pb2.SEAT_STATUS_CLAIMED
    # the claimed token is the seat's: it sees the seat's view and hand
    view = match_stub.GetView(
        match_pb2.GetViewRequest(match_id=match_id, seat_token=claimed.seat.token)
    ).view
    assert view.viewer == B1

    again = _refused(
        lambda: match_stub.ClaimSeat(
            match_pb2.ClaimSeatRequest(match_id=match_id, invite_code=code)
        )
    )
    assert again.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert reason_in(again.trailing_metadata()) == "SEAT_ALREADY_CLAIMED"

    wrong = _refused(
        lambda: match_stub.ClaimSeat(
            match_pb2.ClaimSeatRequest(match_id=match_id, invite_code="nope")
        )
    )
    assert wrong.code() is grpc.StatusCode.PERMISSION_DENIED
    assert reason_in(wrong.trailing_metadata()) == "UNKNOWN_INVITE"
    # the invite code itself is no seat token
    denied = _refused(
        lambda: match_stub.ListLegalCommands(
            match_pb2.ListLegalCommandsRequest(match_id=match_id, seat_token=code)
        )
    )
    assert denied.code() is grpc.StatusCode.PERMISSION_DENIED


def test_bot_seats_are_played_by_the_server(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    created = _create(
        match_stub,
        match_pb2.SeatSetup(seat=A1, mode=match_pb2.SEAT_MODE_BOT, bot="random"),
        match_pb2.SeatSetup(seat=B1, mode=match_pb2.SEAT_MODE_BOT),
    )
    assert not created.seats and not created.invites
    summary = _summary(match_stub, created.match_id)
    assert {(s.seat, s.status, s.bot) for s in summary.seats} == {
        (A1, match_pb2.SEAT_STATUS_BOT, "random"),
        (B1, match_pb2.SEAT_STATUS_BOT, "greedy"),
    }
    watch = match_stub.WatchEvents(
        match_pb2.WatchEventsRequest(match_id=created.match_id, from_version=0), timeout=120
    )
    kinds = [item.envelope.event.kind for item in watch if item.envelope.event.kind]
    # the stream of a finished match ends after its last event
    assert kinds[-1] == types_pb2.EVENT_KIND_GAME_ENDED
    assert _summary(match_stub, created.match_id).status == match_pb2.MATCH_STATUS_FINISHED


def test_the_host_sees_what_a_spectator_sees_and_acts_for_no_seat(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    created = _create(match_stub, seed=5)
    match_id, host = created.match_id, created.host_token
    spectator = match_stub.GetView(match_pb2.GetViewRequest(match_id=match_id)).view
    as_host = match_stub.GetView(match_pb2.GetViewRequest(match_id=match_id, seat_token=host))
    assert as_host.view == spectator and as_host.view.viewer == types_pb2.SEAT_UNSPECIFIED
    for call in (
        lambda: match_stub.ListLegalCommands(
            match_pb2.ListLegalCommandsRequest(match_id=match_id, seat_token=host)
        ),
        lambda: match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(match_id=match_id, seat_token=host, legal_id="x")
        ),
    ):
        error = _refused(call)
        assert error.code() is grpc.StatusCode.PERMISSION_DENIED
        assert reason_in(error.trailing_metadata()) == "HOST_CANNOT_ACT"
    # a fixed seed is marked in ListMatches and in every view
    assert _summary(match_stub, match_id).seed_fixed and spectator.seed_fixed
    assert not _summary(match_stub, _create(match_stub).match_id).seed_fixed


def test_the_host_gives_an_open_seat_to_a_bot_and_only_an_open_one(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    created = _create(match_stub, OPEN_B1)
    match_id, host = created.match_id, created.host_token

    not_host = _refused(
        lambda: match_stub.AssignSeatBot(
            match_pb2.AssignSeatBotRequest(
                match_id=match_id, host_token=created.seats[0].token, seat=B1
            )
        )
    )
    assert not_host.code() is grpc.StatusCode.PERMISSION_DENIED
    assert reason_in(not_host.trailing_metadata()) == "NOT_HOST"
    held = _refused(
        lambda: match_stub.AssignSeatBot(
            match_pb2.AssignSeatBotRequest(match_id=match_id, host_token=host, seat=A1)
        )
    )
    assert reason_in(held.trailing_metadata()) == "SEAT_NOT_OPEN"
    bad_bot = _refused(
        lambda: match_stub.AssignSeatBot(
            match_pb2.AssignSeatBotRequest(match_id=match_id, host_token=host, seat=B1, bot="x")
        )
    )
    assert bad_bot.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert _statuses(_summary(match_stub, match_id))[B1] == match_pb2.SEAT_STATUS_OPEN

    reply = match_stub.AssignSeatBot(
        match_pb2.AssignSeatBotRequest(match_id=match_id, host_token=host, seat=B1, bot="random")
    )
    assert {(s.seat, s.status) for s in reply.seats} == {
        (A1, match_pb2.SEAT_STATUS_HOST),
        (B1, match_pb2.SEAT_STATUS_BOT),
    }
    claim = _refused(
        lambda: match_stub.ClaimSeat(
            match_pb2.ClaimSeatRequest(
                match_id=match_id, invite_code=created.invites[0].invite_code
            )
        )
    )
    assert claim.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert reason_in(claim.trailing_metadata()) == "SEAT_NOT_OPEN"


def test_the_host_abandons_a_match_once(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    created = _create(match_stub)
    match_id = created.match_id
    match_stub.AbandonMatch(
        match_pb2.AbandonMatchRequest(match_id=match_id, host_token=created.host_token)
    )
    assert _summary(match_stub, match_id).status == match_pb2.MATCH_STATUS_ABANDONED
    again = _refused(
        lambda: match_stub.AbandonMatch(
            match_pb2.AbandonMatchRequest(match_id=match_id, host_token=created.host_token)
        )
    )
    assert reason_in(again.trailing_metadata()) == "MATCH_ABANDONED"


@pytest.mark.parametrize(
    ("setup", "why"),
    [
        ([match_pb2.SeatSetup(seat=types_pb2.SEAT_A2, mode=match_pb2.SEAT_MODE_OPEN)], "empty"),
        ([OPEN_B1, OPEN_B1], "twice"),
        ([match_pb2.SeatSetup(seat=B1, mode=match_pb2.SEAT_MODE_BOT, bot="nobody")], "unknown"),
        ([match_pb2.SeatSetup(seat=B1, mode=match_pb2.SEAT_MODE_OPEN, bot="random")], "only for"),
        ([match_pb2.SeatSetup(seat=B1, mode=match_pb2.SeatMode.ValueType(9))], "not valid"),
    ],
)
def test_a_bad_seat_setup_is_invalid_and_creates_nothing(
    match_stub: match_pb2_grpc.MatchServiceStub, setup: list[match_pb2.SeatSetup], why: str
) -> None:
    before = _listed(match_stub)
    error = _refused(lambda: _create(match_stub, *setup))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT and why in (error.details() or "")
    # no match appeared; earlier tests' finished matches may be unloaded meanwhile (their
    # time to live ran out), so the list may shrink but never gain one
    assert _listed(match_stub) <= before


def _listed(match_stub: match_pb2_grpc.MatchServiceStub) -> set[str]:
    return set(listed_matches(match_stub))
