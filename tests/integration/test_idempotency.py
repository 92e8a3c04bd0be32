"""Command ids belong to a seat: (match, seat, command id) is the idempotency key.

A retry with the same id gets exactly the first response; another seat's identical id is a
command of its own; the same seat reusing an id for another command is refused.
"""

from __future__ import annotations

import grpc
import pytest

from frontier.engine import Seat
from frontier.ops.stack import Stack
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc
from frontier.wire.convert import enum_from_proto

from .client import MIRROR, Match
from .stream_check import stored_batches

pytestmark = pytest.mark.integration


def _request(
    match: Match, seat: Seat, command_id: str, legal_id: str
) -> match_pb2.SubmitCommandRequest:
    return match_pb2.SubmitCommandRequest(
        match_id=match.match_id,
        seat_token=match.tokens[seat],
        command_id=command_id,
        expected_version=-1,
        legal_id=legal_id,
    )


def _play_until(match: Match, seat: Seat) -> None:
    """Play the first legal command until ``seat`` is to act."""
    while match.to_act is not seat:
        match.submit(match.legal()[0].id)


async def test_two_seats_may_use_the_same_command_id(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = Match.create(match_stub, 31, MIRROR)
    assert match.to_act is Seat.A1
    match.submit(match.legal()[0].id, command_id="1")
    _play_until(match, Seat.B1)
    before = match.version
    reply = match.submit(match.legal()[0].id, command_id="1")
    assert reply.version > before, "B1's command was applied, not answered with A1's result"
    batches = await stored_batches(stack.config.nats_url, match.match_id)
    ones = [b for b in batches if b.command_id == "1"]
    assert [b.seat for b in ones] == [batches[0].seat, batches[-1].seat]
    assert ones[0].seat != ones[1].seat


def test_a_retry_gets_the_first_response_even_after_the_match_moved_on(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, 32, MIRROR)
    seat = match.to_act
    assert seat is not None
    first_request = _request(match, seat, "first", match.legal()[0].id)
    first = match_stub.SubmitCommand(first_request)
    match.version, match.to_act = first.version, seat
    assert first.to_act and first.next_legal, "the seat still acts after its first command"
    assert match_stub.SubmitCommand(first_request) == first  # byte for byte
    _play_until(match, Seat.B1)  # the match moves on, and another seat is to act
    again = match_stub.SubmitCommand(first_request)
    assert (again.version, again.to_act, again.winner) == (
        first.version,
        first.to_act,
        first.winner,
    )
    assert list(again.events) == list(first.events)
    assert not again.next_legal, "the first legal list is stale now: not sent again"


def test_reusing_an_id_for_another_command_is_refused_and_changes_nothing(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, 33, MIRROR)
    seat = match.to_act
    assert seat is not None
    first = match_stub.SubmitCommand(_request(match, seat, "same", match.legal()[0].id))
    other = [c.id for c in first.next_legal if c.id != match.legal()[0].id]
    assert other
    with pytest.raises(grpc.RpcError) as refused:
        match_stub.SubmitCommand(_request(match, seat, "same", other[0]))
    assert refused.value.code() is grpc.StatusCode.ALREADY_EXISTS
    assert reason_in(refused.value.trailing_metadata()) == "COMMAND_ID_REUSED"
    assert "command id 'same'" in (refused.value.details() or "")
    view = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    assert view.version == first.version


def test_after_the_end_the_last_command_is_still_answered_and_older_ones_never_applied(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, 34, MIRROR)
    requests: list[match_pb2.SubmitCommandRequest] = []
    replies: list[match_pb2.SubmitCommandResponse] = []
    while match.to_act is not None:
        seat = match.to_act
        request = _request(match, seat, f"c{len(requests)}", match.legal()[0].id)
        reply = match_stub.SubmitCommand(request)
        requests.append(request)
        replies.append(reply)
        match.version = reply.version
        match.to_act = enum_from_proto(Seat, reply.to_act) if reply.to_act else None
    assert replies[-1].winner, "played to its end"
    assert match_stub.SubmitCommand(requests[-1]) == replies[-1]  # byte for byte
    with pytest.raises(grpc.RpcError) as refused:
        match_stub.SubmitCommand(requests[0])  # an older one: forgotten, and not applied
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert reason_in(refused.value.trailing_metadata()) == "MATCH_OVER"
    view = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    assert view.version == replies[-1].version
