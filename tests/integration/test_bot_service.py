"""BotService over real processes: bots as processes, reconnects, rejections, seat tokens."""

from __future__ import annotations

import json

import grpc
import pytest

from frontier.bots.sdk import Decision
from frontier.engine import Seat
from frontier.ops.stack import Stack
from frontier.runtime.errors import reason_in
from frontier.v1 import bot_pb2, match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.kinds import DECISIONS, PIECES

from .bot_helpers import MIRROR, RawStream, bot_processes, create, replay
from .stream_check import stored_batches

pytestmark = pytest.mark.integration


def _version(stub: match_pb2_grpc.MatchServiceStub, match_id: str) -> int:
    return stub.GetView(match_pb2.GetViewRequest(match_id=match_id)).view.version


async def test_frontier_bot_processes_play_a_whole_match(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    """Greedy on A and random on B, each `frontier bot` its own process, token from the env."""
    match = create(match_stub, seed=31)
    address = stack.config.address("orchestrator")
    kinds = {seat: "greedy" if seat is Seat.A1 else "random" for seat in match.tokens}
    outputs = bot_processes(address, match, kinds)
    view = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    assert view.winner in {"A", "B", "draw"}
    for seat, out in outputs.items():
        assert out["seat"] == seat.value and out["winner"] == view.winner
        assert (out["scores"]["A"], out["scores"]["B"]) == (view.score_a, view.score_b)
        assert out["decisions"] > 0 and out["strikes"] == 0
    stored = await stored_batches(stack.config.nats_url, match.match_id)
    states = [after for *_, after in replay(match.config, stored)]
    assert states[-1].over and states[-1].winner == view.winner


async def test_a_reconnected_bot_gets_the_open_decision_again(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = create(match_stub, seed=32)
    address = stack.config.address("orchestrator")

    async def scenario() -> None:
        async with RawStream(address) as first:
            first.hello(match.match_id, match.tokens[Seat.A1])
            welcome = (await first.expect("welcome")).welcome
            assert welcome.match_id == match.match_id and welcome.lineup == MIRROR
            sent = (await first.expect("decision")).decision
        # the stream is gone without an answer; a new one gets the same decision
        async with RawStream(address) as second:
            second.hello(match.match_id, match.tokens[Seat.A1])
            await second.expect("welcome")
            again = (await second.expect("decision")).decision
            assert again.decision_id == sent.decision_id
            assert [c.id for c in again.legal] == [c.id for c in sent.legal]
            assert json.loads(again.view.json)["hands"].keys() == {"A1"}
            second.answer(again.decision_id, again.legal[0].id)
            following = (await second.expect("decision")).decision  # A1 goes on with setup
            assert int(following.decision_id) > int(sent.decision_id)

    await scenario()
    assert _version(match_stub, match.match_id) > 0


async def test_wrong_answers_are_rejected_and_the_decision_stays_open(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = create(match_stub, seed=33)
    address = stack.config.address("orchestrator")

    async def scenario() -> None:
        async with RawStream(address) as bot:
            bot.hello(match.match_id, match.tokens[Seat.A1])
            await bot.expect("welcome")
            decision = (await bot.expect("decision")).decision
            wrong = [
                ("999999", decision.legal[0].id, "no open decision"),
                ("not-a-number", decision.legal[0].id, "no open decision"),
                ("", decision.legal[0].id, "no open decision"),
                (decision.decision_id, "no such command", "no legal command"),
                (decision.decision_id, "", "no legal command"),
            ]
            for decision_id, command_id, reason in wrong:
                bot.answer(decision_id, command_id)
                rejected = (await bot.expect("rejected")).rejected
                assert (rejected.decision_id, rejected.command_id) == (decision_id, command_id)
                assert reason in rejected.reason
            assert _version(match_stub, match.match_id) == 0  # nothing changed
            bot.answer(decision.decision_id, decision.legal[-1].id)  # still open: accepted
            following = (await bot.expect("decision")).decision
            assert following.decision_id != decision.decision_id

    await scenario()
    assert _version(match_stub, match.match_id) > 0


async def test_a_token_plays_only_its_own_seat(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = create(match_stub, seed=34)
    address = stack.config.address("orchestrator")

    async def refused(hello: tuple[str, str] | None, code: grpc.StatusCode) -> None:
        async with RawStream(address) as bot:
            if hello is None:
                bot.answer("0", "x")  # an answer before any Hello
            else:
                bot.hello(*hello)
            with pytest.raises(grpc.aio.AioRpcError) as exc:
                await bot.next()
            assert exc.value.code() is code, exc.value.details()

    async def scenario() -> None:
        await refused((match.match_id, "forged"), grpc.StatusCode.PERMISSION_DENIED)
        await refused((match.match_id, ""), grpc.StatusCode.UNAUTHENTICATED)
        await refused(("f" * 32, match.tokens[Seat.A1]), grpc.StatusCode.NOT_FOUND)
        await refused(("", match.tokens[Seat.A1]), grpc.StatusCode.INVALID_ARGUMENT)
        await refused(None, grpc.StatusCode.INVALID_ARGUMENT)
        async with RawStream(address) as a1, RawStream(address) as b1:
            a1.hello(match.match_id, match.tokens[Seat.A1])
            b1.hello(match.match_id, match.tokens[Seat.B1])
            await a1.expect("welcome")
            welcome = (await b1.expect("welcome")).welcome
            assert welcome.seat == 2  # SEAT_B1: the token decides the seat
            decision = (await a1.expect("decision")).decision
            b1.answer(decision.decision_id, decision.legal[0].id)  # B1 answers A1's decision
            rejected = (await b1.expect("rejected")).rejected
            assert "not waiting for seat B1" in rejected.reason
            assert _version(match_stub, match.match_id) == 0
            # a newer stream for A1 replaces the older one, which ends with ABORTED
            async with RawStream(address) as newer:
                newer.hello(match.match_id, match.tokens[Seat.A1])
                await newer.expect("welcome")
                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await a1.next()
                assert exc.value.code() is grpc.StatusCode.ABORTED
                assert (await newer.expect("decision")).decision.decision_id == "0"

    await scenario()


async def test_a_bot_plays_by_legal_id_enum_twins_and_the_decision_version(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    """One encoding per thing: Answer.legal_id, DecisionRequest.decision_version as the
    expected_version, a Command whose enum twin stands in for its string."""
    match = create(match_stub, seed=35)
    address = stack.config.address("orchestrator")
    token = match.tokens[Seat.A1]

    def submit(command: types_pb2.Command, version: int) -> match_pb2.SubmitCommandResponse:
        return match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match.match_id,
                seat_token=token,
                command=command,
                expected_version=version,
            )
        )

    async def scenario() -> None:
        async with RawStream(address) as bot:
            bot.hello(match.match_id, token)
            await bot.expect("welcome")
            decision = (await bot.expect("decision")).decision
            assert decision.decision_version == int(decision.decision_id)
            assert Decision.from_proto(Seat.A1, decision).version == decision.decision_version
            assert decision.decision_kind == DECISIONS[decision.kind]
            first, second = decision.legal[0].id, decision.legal[1].id
            bot.send(
                bot_pb2.PlayRequest(
                    answer=bot_pb2.Answer(
                        decision_id=decision.decision_id, legal_id=first, command_id=second
                    )
                )
            )
            rejected = (await bot.expect("rejected")).rejected
            assert "different" in rejected.reason
            assert rejected.command_id == rejected.legal_id == first
            bot.send(
                bot_pb2.PlayRequest(
                    answer=bot_pb2.Answer(decision_id=decision.decision_id, legal_id=first)
                )
            )
            # the Marquise's setup goes on with its buildings: their piece has a twin
            following = (await bot.expect("decision")).decision
        build = next(c.command for c in following.legal if c.command.piece_kind)
        assert build.piece_kind == PIECES[build.piece]
        disagreeing = types_pb2.Command()
        disagreeing.CopyFrom(build)
        disagreeing.piece_kind = PIECES["wood"]
        with pytest.raises(grpc.RpcError) as exc:
            submit(disagreeing, following.decision_version)
        assert exc.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert reason_in(exc.value.trailing_metadata()) == "MALFORMED"
        by_twin = types_pb2.Command()
        by_twin.CopyFrom(build)
        by_twin.piece = ""  # the twin alone names the building
        reply = submit(by_twin, following.decision_version)
        assert reply.version > following.decision_version
        placed = [e.event for e in reply.events if e.event.piece_kind]
        assert placed and placed[0].piece == build.piece
        assert placed[0].seat_id == types_pb2.SEAT_A1

    await scenario()
