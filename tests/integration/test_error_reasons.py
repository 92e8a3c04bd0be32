"""Each machine-readable error reason (errors.proto), provoked through the real server.

The reasons of failures a healthy loopback stack cannot show (NATS or a domain service
away, another writer, a server bug) are provoked where those failures are: the outage,
failover and unit tests (see test_reasons_are_all_tested in
tests/unit/runtime/test_error_reasons.py, which checks that every reason of the enum is
asserted by some test).
"""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from frontier.engine import Seat
from frontier.ops.stack import Stack
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2

from .bot_helpers import RawStream, wait_until
from .client import MIRROR, Match

pytestmark = pytest.mark.integration


def _reason(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as exc:
        call()
    return exc.value.code(), reason_in(exc.value.trailing_metadata())


def _submit(
    stub: match_pb2_grpc.MatchServiceStub,
    match: Match,
    seat: Seat,
    legal_id: str = "",
    command: types_pb2.Command | None = None,
    expected_version: int | None = None,
) -> Callable[[], object]:
    request = match_pb2.SubmitCommandRequest(
        match_id=match.match_id,
        seat_token=match.tokens[seat],
        command=command,
        expected_version=expected_version,
    )
    if legal_id:
        request.legal_id = legal_id
    return lambda: stub.SubmitCommand(request)


def test_match_not_found(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    assert _reason(lambda: match_stub.GetView(match_pb2.GetViewRequest(match_id="0" * 32))) == (
        grpc.StatusCode.NOT_FOUND,
        "MATCH_NOT_FOUND",
    )


def test_token_required_and_unknown_token(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    match = Match.create(match_stub, seed=7)
    for token, expected in (
        ("", (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_REQUIRED")),
        ("forged", (grpc.StatusCode.PERMISSION_DENIED, "UNKNOWN_TOKEN")),
    ):
        request = match_pb2.ListLegalCommandsRequest(match_id=match.match_id, seat_token=token)

        def listed(r: match_pb2.ListLegalCommandsRequest = request) -> object:
            return match_stub.ListLegalCommands(r)

        assert _reason(listed) == expected


def test_not_your_turn_wrong_seat_illegal_and_unknown_legal_id(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, seed=7)
    assert match.to_act is Seat.A1
    legal = match.legal()
    precondition = grpc.StatusCode.FAILED_PRECONDITION
    other = Seat.B1
    command = types_pb2.Command()
    command.CopyFrom(legal[0].command)
    command.seat = types_pb2.SEAT_B1
    # B1 sends its own (well-formed) command out of turn
    assert _reason(_submit(match_stub, match, other, command=command)) == (
        precondition,
        "NOT_YOUR_TURN",
    )
    # A1's token sends a command for B1
    assert _reason(_submit(match_stub, match, Seat.A1, command=command)) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "WRONG_SEAT",
    )
    illegal = types_pb2.Command()
    illegal.CopyFrom(legal[0].command)
    illegal.kind = types_pb2.COMMAND_KIND_CRAFT
    illegal.cards.append("anvil")
    assert _reason(_submit(match_stub, match, Seat.A1, command=illegal)) == (
        precondition,
        "ILLEGAL_COMMAND",
    )
    assert _reason(_submit(match_stub, match, Seat.A1, legal_id="no-such-id")) == (
        precondition,
        "UNKNOWN_LEGAL_ID",
    )


def test_malformed(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    request = match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(seed=-1))
    assert _reason(lambda: match_stub.CreateMatch(request)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED",
    )


def test_expected_version_is_optional_and_checked_when_set_even_to_zero(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, seed=7)
    first = match.legal()[0].id
    # unset: no check, whatever the version
    reply = match_stub.SubmitCommand(
        match_pb2.SubmitCommandRequest(
            match_id=match.match_id, seat_token=match.tokens[Seat.A1], legal_id=first
        )
    )
    assert reply.version > 0
    match.version = reply.version
    assert match.to_act is Seat.A1
    nxt = match.legal()[0].id
    # set to 0 (a version the match left): checked
    assert _reason(_submit(match_stub, match, Seat.A1, legal_id=nxt, expected_version=0)) == (
        grpc.StatusCode.ABORTED,
        "STALE_VERSION",
    )
    # set to the current version: accepted
    again = match_stub.SubmitCommand(
        match_pb2.SubmitCommandRequest(
            match_id=match.match_id,
            seat_token=match.tokens[Seat.A1],
            legal_id=nxt,
            expected_version=reply.version,
        )
    )
    assert again.version > reply.version


def test_match_over(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    match = Match.create(match_stub, seed=8, lineup=MIRROR)
    match.play_out()
    assert _reason(_submit(match_stub, match, Seat.A1, legal_id="x")) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "MATCH_OVER",
    )


def test_seat_taken_over(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    created = match_stub.CreateMatch(
        match_pb2.CreateMatchRequest(
            config=match_pb2.MatchConfig(
                seed=9, lineup=MIRROR, decision_budget_ms=1, strike_limit=1, takeover_bot="random"
            )
        )
    )
    token = next(s.token for s in created.seats if s.seat == types_pb2.SEAT_A1)

    def submitted() -> tuple[grpc.StatusCode, str]:
        request = match_pb2.SubmitCommandRequest(
            match_id=created.match_id, seat_token=token, legal_id="x"
        )
        return _reason(lambda: match_stub.SubmitCommand(request))

    wait_until(lambda: submitted()[1] == "SEAT_TAKEN_OVER", timeout=60)
    assert submitted() == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN_OVER")


async def test_stream_replaced_and_hello_timeout(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = Match.create(match_stub, seed=10)
    address = stack.config.address("orchestrator")

    async def play() -> tuple[tuple[grpc.StatusCode, str], tuple[grpc.StatusCode, str]]:
        async with RawStream(address) as old, RawStream(address) as new:
            old.hello(match.match_id, match.tokens[Seat.A1])
            await old.expect("welcome")
            new.hello(match.match_id, match.tokens[Seat.A1])
            await new.expect("welcome")
            with pytest.raises(grpc.aio.AioRpcError) as replaced:
                while True:
                    await old.next()
            async with RawStream(address) as silent:
                with pytest.raises(grpc.aio.AioRpcError) as timed_out:
                    await silent.next(timeout=60)
            return (
                (replaced.value.code(), reason_in(replaced.value.trailing_metadata())),
                (timed_out.value.code(), reason_in(timed_out.value.trailing_metadata())),
            )

    replaced, timed_out = await play()
    assert replaced == (grpc.StatusCode.ABORTED, "STREAM_REPLACED")
    assert timed_out == (grpc.StatusCode.DEADLINE_EXCEEDED, "HELLO_TIMEOUT")
