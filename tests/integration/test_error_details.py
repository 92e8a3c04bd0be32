"""Errors decode into data through the real server: the Python SDK's ``error_details``
(grpcio-status) reads each status's ErrorInfo reason and metadata, a bot's refused answer
carries the same as ``reason_code`` and ``metadata``, and the seats' statuses tell who holds
a seat (the creator, an invitee, the built-in bot after a takeover).
"""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from frontier.bots.sdk import BotClient, BotError, ErrorDetails, RandomStrategy, error_details
from frontier.engine import Seat
from frontier.ops.stack import Stack
from frontier.v1 import bot_pb2, errors_pb2, match_pb2, match_pb2_grpc, types_pb2

from .bot_helpers import RawStream, wait_until
from .client import MIRROR, Match, summary_of

pytestmark = pytest.mark.integration

A1, B1 = types_pb2.SEAT_A1, types_pb2.SEAT_B1


def _details(call: Callable[[], object]) -> ErrorDetails:
    with pytest.raises(grpc.RpcError) as exc:
        call()
    return error_details(exc.value)


def test_an_unknown_match_names_its_field_and_echoes_only_a_bounded_id(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    unknown = "0" * 32
    found = _details(lambda: match_stub.GetView(match_pb2.GetViewRequest(match_id=unknown)))
    assert (found.code, found.reason, found.domain) == (
        grpc.StatusCode.NOT_FOUND,
        "MATCH_NOT_FOUND",
        "frontier.v1",
    )
    assert found.metadata == {"field": "match_id", "match_id": unknown}
    long_id = "f" * 100  # under the request limit, over what an error echoes
    cut = _details(lambda: match_stub.GetView(match_pb2.GetViewRequest(match_id=long_id)))
    assert cut.reason == "MATCH_NOT_FOUND" and cut.metadata == {"field": "match_id"}


def test_a_stale_version_says_the_version_now(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, seed=21)
    match.step()
    request = match_pb2.SubmitCommandRequest(
        match_id=match.match_id,
        seat_token=match.tokens[Seat.A1],
        legal_id=match.legal()[0].id,
        expected_version=0,
    )
    stale = _details(lambda: match_stub.SubmitCommand(request))
    assert (stale.code, stale.reason) == (grpc.StatusCode.ABORTED, "STALE_VERSION")
    assert stale.metadata == {
        "field": "expected_version",
        "current_version": str(match.version),
    }


def test_refusals_name_the_request_field_at_fault(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, seed=22)

    def submit(**fields: object) -> Callable[[], object]:
        request = match_pb2.SubmitCommandRequest(match_id=match.match_id, **fields)  # type: ignore[arg-type]
        return lambda: match_stub.SubmitCommand(request)

    token = match.tokens[Seat.A1]
    cases = {
        "seat_token": submit(legal_id="x"),
        "legal_id": submit(seat_token=token, legal_id="no-such-id"),
        "command": submit(seat_token=token),
    }
    for field, call in cases.items():
        assert _details(call).metadata.get("field") == field, field
    illegal = types_pb2.Command()
    illegal.CopyFrom(match.legal()[0].command)
    illegal.kind = types_pb2.COMMAND_KIND_CRAFT
    illegal.cards.append("anvil")
    refused = _details(submit(seat_token=token, command=illegal))
    assert (refused.reason, refused.metadata) == ("ILLEGAL_COMMAND", {"field": "command"})
    for config, field in (
        (match_pb2.MatchConfig(seed=-1), "config.seed"),
        (match_pb2.MatchConfig(lineup="A=nobody"), "config"),
    ):
        request = match_pb2.CreateMatchRequest(config=config)

        def create(r: match_pb2.CreateMatchRequest = request) -> object:
            return match_stub.CreateMatch(r)

        bad = _details(create)
        assert (bad.reason, bad.metadata) == ("MALFORMED", {"field": field})


def _summary_statuses(
    stub: match_pb2_grpc.MatchServiceStub, match_id: str
) -> dict[int, tuple[int, str]]:
    summary = summary_of(stub, match_id)
    return {s.seat: (s.status, s.bot) for s in summary.seats}


def test_the_creator_claims_its_own_invite_only_when_it_asks_to(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    created = match_stub.CreateMatch(
        match_pb2.CreateMatchRequest(
            config=match_pb2.MatchConfig(seed=23, lineup=MIRROR),
            seat_setup=[match_pb2.SeatSetup(seat=B1, mode=match_pb2.SEAT_MODE_OPEN)],
        )
    )
    match_id, host = created.match_id, created.host_token
    code = created.invites[0].invite_code

    def claim(host_token: str, allow: bool) -> match_pb2.ClaimSeatResponse:
        reply: match_pb2.ClaimSeatResponse = match_stub.ClaimSeat(
            match_pb2.ClaimSeatRequest(
                match_id=match_id, invite_code=code, host_token=host_token, allow_host_claim=allow
            )
        )
        return reply

    refused = _details(lambda: claim(host, False))
    assert (refused.code, refused.reason) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "HOST_CLAIM_REFUSED",
    )
    assert refused.metadata == {"field": "allow_host_claim"}
    forged = _details(lambda: claim("not-the-host", True))
    assert (forged.reason, forged.metadata) == ("NOT_HOST", {"field": "host_token"})
    assert _summary_statuses(match_stub, match_id)[B1][0] == match_pb2.SEAT_STATUS_OPEN

    assert claim(host, True).seat.seat == B1
    statuses = _summary_statuses(match_stub, match_id)
    assert statuses == {A1: (match_pb2.SEAT_STATUS_HOST, ""), B1: (match_pb2.SEAT_STATUS_HOST, "")}


def test_an_invitees_seat_is_claimed(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    created = match_stub.CreateMatch(
        match_pb2.CreateMatchRequest(
            config=match_pb2.MatchConfig(seed=24, lineup=MIRROR),
            seat_setup=[match_pb2.SeatSetup(seat=B1, mode=match_pb2.SEAT_MODE_OPEN)],
        )
    )
    code = created.invites[0].invite_code
    match_stub.ClaimSeat(match_pb2.ClaimSeatRequest(match_id=created.match_id, invite_code=code))
    statuses = _summary_statuses(match_stub, created.match_id)
    assert statuses[B1] == (match_pb2.SEAT_STATUS_CLAIMED, "")
    assert statuses[A1] == (match_pb2.SEAT_STATUS_HOST, "")


def test_a_seat_the_built_in_bot_took_over_says_so_and_names_the_bot(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    created = match_stub.CreateMatch(
        match_pb2.CreateMatchRequest(
            config=match_pb2.MatchConfig(
                seed=25, lineup=MIRROR, decision_budget_ms=1, strike_limit=1, takeover_bot="random"
            )
        )
    )

    def a1() -> tuple[int, str]:
        return _summary_statuses(match_stub, created.match_id)[A1]

    wait_until(lambda: a1()[0] != match_pb2.SEAT_STATUS_HOST, timeout=60)
    assert a1() == (match_pb2.SEAT_STATUS_TAKEN_OVER, "random")


async def test_a_refused_answer_carries_its_reason_code_and_metadata(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = Match.create(match_stub, seed=26)
    async with RawStream(stack.config.address("orchestrator")) as stream:
        stream.hello(match.match_id, match.tokens[Seat.A1])
        await stream.expect("welcome")
        decision = (await stream.expect("decision")).decision
        stream.answer("12345", decision.legal[0].id)
        unknown = (await stream.expect("rejected")).rejected
        stream.answer(decision.decision_id, "no-such-id")
        bad_id = (await stream.expect("rejected")).rejected
    assert unknown.reason_code == errors_pb2.ERROR_REASON_UNKNOWN_DECISION
    assert dict(unknown.metadata) == {
        "field": "decision_id",
        "current_version": decision.decision_id,
    }
    assert bad_id.reason_code == errors_pb2.ERROR_REASON_UNKNOWN_LEGAL_ID
    assert dict(bad_id.metadata) == {"field": "command_id"}
    assert isinstance(bad_id, bot_pb2.AnswerRejected) and bad_id.reason


async def test_the_sdk_bot_stops_with_the_decoded_refusal(stack: Stack) -> None:
    client = BotClient(stack.config.address("orchestrator"), "0" * 32, "any-token")
    with pytest.raises(BotError) as refused:
        await client.play(RandomStrategy(1))
    details = refused.value.details
    assert details is not None and details.reason == "MATCH_NOT_FOUND"
    assert details.metadata == {"field": "match_id", "match_id": "0" * 32}
