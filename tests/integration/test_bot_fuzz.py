"""Fuzzing the bot stream: random and malformed messages never crash the orchestrator and
never change a match (only a valid answer from the right seat does)."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.engine import Seat
from frontier.ops.stack import Stack
from frontier.v1 import bot_pb2, match_pb2, match_pb2_grpc

from .bot_helpers import Created, RawStream, create

pytestmark = pytest.mark.integration

PLAY = "/frontier.v1.BotService/Play"

texts = st.text(max_size=300) | st.sampled_from(["0", "1", "-1", "", " ", "\x00", "9" * 40])


def _requests(match_id: str, tokens: list[str]) -> st.SearchStrategy[bot_pb2.PlayRequest]:
    ids = texts | st.just(match_id)
    secrets = texts | st.sampled_from(tokens)
    hello = st.builds(
        lambda m, t: bot_pb2.PlayRequest(hello=bot_pb2.Hello(match_id=m, seat_token=t)),
        ids,
        secrets,
    )
    answer = st.builds(
        lambda d, c: bot_pb2.PlayRequest(answer=bot_pb2.Answer(decision_id=d, command_id=c)),
        texts,
        texts,
    )
    beat = st.just(bot_pb2.PlayRequest(heartbeat=bot_pb2.Heartbeat()))
    return st.one_of(hello, answer, beat, st.just(bot_pb2.PlayRequest()))


def _alive(stack: Stack) -> None:
    assert stack.alive()["orchestrator"], "the orchestrator process died"
    with grpc.insecure_channel(stack.config.address("orchestrator")) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(  # type: ignore[attr-defined]
            health_pb2.HealthCheckRequest(service=""), timeout=5
        )
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


@pytest.fixture(scope="module")
def fuzzed(stack: Stack) -> Created:
    with grpc.insecure_channel(stack.config.address("orchestrator")) as channel:
        return create(match_pb2_grpc.MatchServiceStub(channel), seed=81)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
async def test_random_messages_never_crash_the_server_or_change_the_match(
    stack: Stack,
    match_stub: match_pb2_grpc.MatchServiceStub,
    fuzzed: Created,
    data: st.DataObject,
) -> None:
    match = fuzzed
    before = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    tokens = list(match.tokens.values())
    messages = data.draw(st.lists(_requests(match.match_id, tokens), max_size=8))
    if data.draw(st.booleans()):  # half the time inside an authenticated stream
        token = data.draw(st.sampled_from(tokens))
        hello = bot_pb2.Hello(match_id=match.match_id, seat_token=token)
        messages.insert(0, bot_pb2.PlayRequest(hello=hello))

    async def send() -> None:
        async with RawStream(stack.config.address("orchestrator")) as bot:
            for message in messages:
                bot.send(message)
            try:
                while True:  # read whatever the server says until it goes quiet or ends
                    await bot.next(timeout=0.3)
            except (TimeoutError, grpc.aio.AioRpcError, StopAsyncIteration):
                pass

    await send()
    after = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    assert after == before


async def test_malformed_bytes_never_crash_the_server(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    """Bytes that are not a PlayRequest at all, sent on the raw HTTP/2 stream."""
    match = create(match_stub, seed=82)
    garbage = [b"\xff" * 7, b"\x0a\x05hello", b"\x12\x80\x80\x80\x80\x10", bytes(range(256)), b""]
    with grpc.insecure_channel(stack.config.address("orchestrator")) as channel:
        play = channel.stream_stream(
            PLAY, request_serializer=lambda b: b, response_deserializer=lambda b: b
        )
        for blob in garbage:
            first = bot_pb2.PlayRequest(
                hello=bot_pb2.Hello(match_id=match.match_id, seat_token=match.tokens[Seat.A1])
            ).SerializeToString()
            call = play(iter([first, blob]), timeout=3)
            try:
                for _ in call:
                    pass
            except grpc.RpcError as exc:
                assert exc.code() in {
                    grpc.StatusCode.INTERNAL,
                    grpc.StatusCode.INVALID_ARGUMENT,
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    grpc.StatusCode.CANCELLED,
                    grpc.StatusCode.UNKNOWN,
                }, exc
            _alive(stack)
    view = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    assert view.version == 0

    # and a well-behaved bot still plays the match afterwards
    async def good() -> None:
        async with RawStream(stack.config.address("orchestrator")) as bot:
            bot.hello(match.match_id, match.tokens[Seat.A1])
            await bot.expect("welcome")
            decision = (await bot.expect("decision")).decision
            bot.answer(decision.decision_id, decision.legal[0].id)
            await bot.expect("decision")

    await good()
    assert match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view.version > 0
