"""Match clocks over real processes: deadlines, the default command, strikes and takeovers.

Everything the referee does must be an ordinary committed command: in the JetStream batches
(with its DecisionRecord), in every reader's WatchEvents, and replayable with the engine.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from frontier.bots import default_command
from frontier.bots.sdk import BotClient, RandomStrategy
from frontier.engine import Seat, legal_commands
from frontier.ops.stack import Stack, StackConfig
from frontier.orchestrator import referee
from frontier.v1 import match_pb2, match_pb2_grpc
from frontier.wire.convert import command_from_proto

from .bot_helpers import RawStream, create, records, replay, wait_for, watch
from .stream_check import stored_batches

pytestmark = pytest.mark.integration


async def test_missed_deadlines_give_the_default_command_strikes_and_then_the_bot(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    """Nobody plays: each seat times out twice (default command, strike), the second strike
    hands it to the built-in bot, and the bots finish the match."""
    match = create(match_stub, seed=41, decision_budget_ms=150, strike_limit=2)
    watched = watch(match_stub, match.match_id)  # ends when the match is over
    stored = await stored_batches(stack.config.nats_url, match.match_id)
    assert len(records(watched)) == len(stored)
    by_seat: dict[Seat, list[int]] = {Seat.A1: [], Seat.B1: []}
    for (batch, cmd, before, after), record in zip(
        replay(match.config, stored), records(watched), strict=True
    ):
        assert record == batch.decision  # the public stream shows what was committed
        seat, final = cmd.seat, after
        by_seat[seat].append(record.answered_by)
        if record.answered_by == referee.TIMEOUT:
            assert cmd == default_command(legal_commands(before, seat))
            assert record.elapsed_ms == 150 and record.reserve_ms == 0
            assert batch.command_id == f"timeout:{seat.value}:{before.version}"
            assert record.taken_over == (record.strikes == 2)
        else:
            assert record.answered_by == referee.BUILT_IN_BOT
            assert record.strikes == 2
    assert final.over and watched[-1].envelope.seq == final.version
    for answers in by_seat.values():
        assert answers[:2] == [referee.TIMEOUT, referee.TIMEOUT]
        assert set(answers[2:]) <= {referee.BUILT_IN_BOT}
    # a bot connecting now learns it was taken over
    async with RawStream(stack.config.address("orchestrator")) as bot:
        bot.hello(match.match_id, match.tokens[Seat.A1])
        hello = (await bot.expect("welcome")).welcome
        assert (hello.strikes, hello.strike_limit, hello.taken_over) == (2, 2, True)
        assert (await bot.expect("match_over")).match_over.winner == final.winner


async def test_the_reserve_pays_for_slow_answers_and_deadlines_are_announced(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    """Judged by what the server measured and stamped (the time it charged each decision,
    the reserve it left, when it sent each request), never by timing the test itself."""
    match = create(match_stub, seed=42, decision_budget_ms=300, reserve_ms=400, strike_limit=3)
    async with RawStream(stack.config.address("orchestrator")) as bot:
        bot.hello(match.match_id, match.tokens[Seat.A1])
        hello = (await bot.expect("welcome")).welcome
        assert (hello.decision_budget_ms, hello.reserve_ms, hello.strike_limit) == (300, 400, 3)
        first = (await bot.expect("decision")).decision
        assert (first.budget_ms, first.reserve_ms) == (300, 400)
        assert first.deadline_unix_ms - first.server_time_unix_ms <= 300 + 400
        await asyncio.sleep(0.5)  # at least 200 ms beyond the budget
        bot.answer(first.decision_id, first.legal[0].id)
        second = (await bot.expect("decision")).decision  # A1 goes on with its setup
        # no answer now: the deadline passes, the default command is played
        strike = (await bot.expect("strike")).strike
        assert strike.decision_id == second.decision_id
        assert (strike.strikes, strike.strike_limit, strike.taken_over) == (1, 3, False)
        legal = [command_from_proto(c.command) for c in second.legal]
        assert strike.command_id == strike.legal_id == default_command(legal).key()
        third = (await bot.expect("decision")).decision
        assert third.reserve_ms == 0
    slow, timed_out, *_ = [
        b.decision for b in await stored_batches(stack.config.nats_url, match.match_id)
    ]
    assert slow.answered_by == referee.SEAT and slow.elapsed_ms >= 500
    # the reserve paid exactly for the time beyond the budget, as the server measured it
    assert second.reserve_ms == slow.reserve_ms == max(0, 400 - (slow.elapsed_ms - 300))
    assert second.reserve_ms <= 200
    assert timed_out.answered_by == referee.TIMEOUT and timed_out.strikes == 1
    # a timeout is charged the whole allowance, and is not played before the deadline the
    # server announced (the next request goes out after the default command's commit)
    assert timed_out.elapsed_ms == 300 + second.reserve_ms
    assert timed_out.reserve_ms == 0
    assert third.server_time_unix_ms >= second.deadline_unix_ms


async def test_a_taken_over_seat_refuses_its_own_commands(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = create(match_stub, seed=43, decision_budget_ms=800, strike_limit=1)
    address = stack.config.address("orchestrator")
    replies = match_stub.WatchEvents(
        match_pb2.WatchEventsRequest(match_id=match.match_id), timeout=30
    )
    for reply in replies:
        if reply.decision.taken_over:
            break
    replies.cancel()
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match.match_id,
                seat_token=match.tokens[Seat.A1],
                legal_id="anything",
                expected_version=-1,
            )
        )
    assert exc.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "built-in bot" in str(exc.value.details())
    # B1 plays on through its bot stream against the built-in bot, to the end
    result = await BotClient(address, match.match_id, match.tokens[Seat.B1]).play(RandomStrategy(1))
    assert result.winner in {"A", "B", "draw"} and result.strikes == 0
    stored = await stored_batches(stack.config.nats_url, match.match_id)
    kinds = {b.decision.answered_by for b in stored}
    assert kinds == {referee.TIMEOUT, referee.BUILT_IN_BOT, referee.SEAT}


def test_bad_clock_settings_are_invalid_argument(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    for config in (
        {"decision_budget_ms": -1},
        {"reserve_ms": 1000},
        {"decision_budget_ms": 100, "strike_limit": 1000},
        {"decision_budget_ms": 100, "takeover_bot": "psychic"},
    ):
        with pytest.raises(grpc.RpcError) as exc:
            create(match_stub, seed=1, **config)
        assert exc.value.code() is grpc.StatusCode.INVALID_ARGUMENT, config


async def test_clocks_and_strikes_survive_an_orchestrator_restart(tmp_path: Path) -> None:
    """Strikes come back from the snapshot and the stream; the restarted orchestrator resumes
    the match's deadlines by itself (no client touches the match after the restart)."""
    config = StackConfig.ephemeral(tmp_path, extra_env={"FRONTIER_SNAPSHOT_EVERY": "1"})
    with Stack(config) as stack:
        address = config.address("orchestrator")
        with grpc.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            match = create(stub, seed=44, decision_budget_ms=700, strike_limit=2)
            replies = stub.WatchEvents(
                match_pb2.WatchEventsRequest(match_id=match.match_id), timeout=30
            )
            first = next(r for r in replies if r.HasField("decision"))
            replies.cancel()
        assert first.decision.answered_by == referee.TIMEOUT and first.decision.strikes == 1
        stack.kill("orchestrator")
        # the second deadline had not passed yet: it is the restarted orchestrator's
        assert len(await stored_batches(config.nats_url, match.match_id)) == 1
        stack.restart("orchestrator")

        async def over() -> bool:
            stored = await stored_batches(config.nats_url, match.match_id)
            return bool(stored) and any(e.event.kind == 32 for e in stored[-1].envelopes)

        await wait_for(over, timeout=60, every=0.3)  # GAME_ENDED, with no client involved
        stored = await stored_batches(config.nats_url, match.match_id)
        a1 = [b.decision for b in stored if b.seat == 1]
        assert [r.strikes for r in a1[:2]] == [1, 2]  # not reset by the restart
        assert a1[1].answered_by == referee.TIMEOUT and a1[1].taken_over
        states = [after for *_, after in replay(match.config, stored)]
        assert states[-1].over
