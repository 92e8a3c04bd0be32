"""Every string field has a limit, requests a maximum size, and garbage a short answer.

What an outside client may send, and what it gets back: INVALID_ARGUMENT for a field over
its limit or a request that does not decode (and one log line, not a traceback per
request), RESOURCE_EXHAUSTED from gRPC beyond the maximum request size, and error messages
that repeat at most 64 characters of what it sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from frontier.ops.stack import Stack
from frontier.runtime.errors import reason_in
from frontier.runtime.guard import MAX_ID_BYTES, MAX_REQUEST_BYTES
from frontier.v1 import bot_pb2, bot_pb2_grpc, match_pb2, match_pb2_grpc

from .client import MIRROR, Match
from .stream_check import stored_batches

pytestmark = pytest.mark.integration


def _refused(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        call()
    return refused.value


async def test_a_command_id_over_the_limit_is_refused_and_stores_nothing(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = Match.create(match_stub, 41, MIRROR)
    assert match.to_act is not None
    legal_id = match.legal()[0].id
    request = match_pb2.SubmitCommandRequest(
        match_id=match.match_id,
        seat_token=match.tokens[match.to_act],
        command_id="x" * (MAX_ID_BYTES + 1),
        expected_version=0,
        legal_id=legal_id,
    )
    error = _refused(lambda: match_stub.SubmitCommand(request))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "command_id is 129 bytes; at most 128 bytes" in (error.details() or "")
    assert reason_in(error.trailing_metadata()) == "FIELD_TOO_LONG"
    assert await stored_batches(stack.config.nats_url, match.match_id) == []
    request.command_id = "x" * MAX_ID_BYTES  # at the limit: accepted
    assert match_stub.SubmitCommand(request).version > 0


def test_error_messages_repeat_at_most_64_characters(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, 42, MIRROR)
    seat = match.to_act
    assert seat is not None
    long_id = "y" * 500
    error = _refused(
        lambda: match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match.match_id,
                seat_token=match.tokens[seat],
                legal_id=long_id,
            )
        )
    )
    assert error.code() is grpc.StatusCode.FAILED_PRECONDITION
    details = error.details() or ""
    assert "y" * 64 + "'..." in details and "y" * 65 not in details
    error = _refused(
        lambda: match_stub.GetView(match_pb2.GetViewRequest(match_id="z" * MAX_ID_BYTES))
    )
    assert error.code() is grpc.StatusCode.NOT_FOUND
    assert "z" * 65 not in (error.details() or "")


def test_a_request_over_the_maximum_size_is_refused_by_grpc(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    huge = match_pb2.GetViewRequest(match_id="m", seat_token="t" * (MAX_REQUEST_BYTES + 1))
    error = _refused(lambda: match_stub.GetView(huge))
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    big = match_pb2.GetViewRequest(match_id="m", seat_token="t" * 1000)
    error = _refused(lambda: match_stub.GetView(big))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_undecodable_requests_answer_invalid_argument_and_log_one_line(stack: Stack) -> None:
    log_file = stack.logs / "orchestrator.log"
    before = log_file.read_text() if log_file.exists() else ""
    with grpc.insecure_channel(stack.config.address("orchestrator")) as channel:
        raw: Any = channel.unary_unary("/frontier.v1.MatchService/GetView")
        for _ in range(50):
            error = _refused(lambda: raw(b"\xff\xff\xff\xff", timeout=5))
            assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
            assert "does not decode" in (error.details() or "")
            assert reason_in(error.trailing_metadata()) == "UNDECODABLE_REQUEST"
    logged = (log_file.read_text() if log_file.exists() else "")[len(before) :]
    assert logged.count("undecodable request") == 1
    assert "Traceback" not in logged


async def test_a_bot_stream_with_a_field_over_its_limit_ends_invalid_argument(stack: Stack) -> None:
    async def play() -> grpc.StatusCode:
        async with grpc.aio.insecure_channel(stack.config.address("orchestrator")) as channel:
            stub = bot_pb2_grpc.BotServiceStub(channel)
            hello = bot_pb2.Hello(match_id="m" * 32, seat_token="t" * (MAX_ID_BYTES + 1))
            call = stub.Play(iter([bot_pb2.PlayRequest(hello=hello)]), timeout=10)
            try:
                async for _ in call:
                    pass
            except grpc.aio.AioRpcError as exc:
                assert "seat_token is 129 bytes" in (exc.details() or "")
                return exc.code()
            return grpc.StatusCode.OK

    assert await play() is grpc.StatusCode.INVALID_ARGUMENT
