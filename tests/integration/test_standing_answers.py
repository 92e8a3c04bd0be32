"""Standing answers over real processes: applied through the pipeline, private to their seat.

The position is found in-process first (random play until another seat's action opens an
out-of-turn decision), then the same commands are sent through MatchService: the server's
match is then the same match, and its referee must answer that decision on its own.
"""

from __future__ import annotations

import json

import grpc
import pytest

from frontier.bots import RandomBot
from frontier.bots.standing import StandingPolicy, choose
from frontier.engine import (
    Command,
    Seat,
    execute,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.ops.stack import Stack
from frontier.orchestrator import referee
from frontier.play.match_runner import bot_seed
from frontier.v1 import match_pb2, match_pb2_grpc
from frontier.wire.convert import command_to_proto

from .bot_helpers import MIRROR, create, replay, wait_for
from .stream_check import stored_batches

pytestmark = pytest.mark.integration

OUT_OF_TURN = {
    "ambush": StandingPolicy.DECLINE,  # never ambush
    "field_hospitals": StandingPolicy.ACCEPT,  # always pay while holding a matching card
}


def _prefix() -> tuple[int, list[Command], Seat, str]:
    """A seed and the commands after which an out-of-turn decision opens for a seat."""
    for seed in range(60):
        state = initial_state(make_config(seed=seed, lineup=MIRROR))
        bots = {s: RandomBot(bot_seed(seed, s)) for s in state.order}
        played: list[Command] = []
        while (seat := to_act(state)) is not None:
            pending = state.decisions[0] if state.decisions else None
            if pending is not None and pending.kind in OUT_OF_TURN and seat != state.turn_seat:
                return seed, played, seat, pending.kind
            cmd = bots[seat].choose(state, seat, legal_commands(state, seat))
            execute(state, cmd)
            played.append(cmd)
    raise AssertionError("no out-of-turn decision in 60 random matches")


def _policy(
    stub: match_pb2_grpc.MatchServiceStub, match_id: str, token: str, answers: dict[str, str]
) -> match_pb2.SetStandingAnswersResponse:
    return stub.SetStandingAnswers(
        match_pb2.SetStandingAnswersRequest(
            match_id=match_id,
            seat_token=token,
            answers=[
                match_pb2.StandingAnswer(
                    decision_kind=kind, policy=match_pb2.StandingPolicy.Value(policy)
                )
                for kind, policy in answers.items()
            ],
        )
    )


async def test_a_standing_answer_answers_an_out_of_turn_decision(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    seed, prefix, seat, kind = _prefix()
    match = create(match_stub, seed=seed)
    set_reply = _policy(
        match_stub,
        match.match_id,
        match.tokens[seat],
        {"ambush": "STANDING_POLICY_DECLINE", "field_hospitals": "STANDING_POLICY_ACCEPT"},
    )
    assert [a.decision_kind for a in set_reply.answers] == ["ambush", "field_hospitals"]
    for cmd in prefix:
        match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match.match_id,
                seat_token=match.tokens[cmd.seat],
                command=command_to_proto(cmd),
                expected_version=-1,
            )
        )

    async def answered() -> bool:  # the standing answer is committed after the prefix
        return len(await stored_batches(stack.config.nats_url, match.match_id)) > len(prefix)

    await wait_for(answered)
    stored = await stored_batches(stack.config.nats_url, match.match_id)
    batch, cmd, before, _ = list(replay(match.config, stored))[len(prefix)]
    assert batch.decision.answered_by == referee.STANDING_ANSWER
    assert cmd.seat is seat and before.decisions[0].kind == kind
    assert cmd == choose(OUT_OF_TURN[kind], legal_commands(before, seat))
    assert batch.command_id == f"standing:{seat.value}:{before.version}"
    first_seq = batch.envelopes[0].seq

    def shown(token: str) -> int:
        for reply in match_stub.WatchEvents(
            match_pb2.WatchEventsRequest(
                match_id=match.match_id, seat_token=token, from_version=first_seq - 1
            ),
            timeout=10,
        ):
            assert reply.envelope.seq == first_seq
            return reply.decision.answered_by
        raise AssertionError("no event")

    other = next(s for s in match.tokens if s is not seat)
    assert shown(match.tokens[seat]) == referee.STANDING_ANSWER  # the seat sees its own
    assert shown(match.tokens[other]) == referee.SEAT  # others cannot tell
    assert shown("") == referee.SEAT
    for token, expected in ((match.tokens[seat], "STANDING_ANSWER"), (match.tokens[other], "SEAT")):
        exported = json.loads(
            match_stub.ExportReplay(
                match_pb2.ExportReplayRequest(match_id=match.match_id, seat_token=token)
            ).json
        )
        entry = next(b for b in exported["batches"] if b["first_seq"] == first_seq)
        assert entry["answered_by"] == f"ANSWERED_BY_{expected}"


def test_standing_answers_are_private_and_validated(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = create(match_stub, seed=51)
    a1, b1 = match.tokens[Seat.A1], match.tokens[Seat.B1]
    _policy(match_stub, match.match_id, a1, {"ambush": "STANDING_POLICY_DECLINE"})

    def get(token: str) -> list[tuple[str, int]]:
        reply = match_stub.GetStandingAnswers(
            match_pb2.GetStandingAnswersRequest(match_id=match.match_id, seat_token=token)
        )
        return [(a.decision_kind, a.policy) for a in reply.answers]

    assert get(a1) == [("ambush", match_pb2.STANDING_POLICY_DECLINE)]
    assert get(b1) == []  # B1 sees only its own (none)
    _policy(match_stub, match.match_id, a1, {})  # empty clears
    assert get(a1) == []
    for token, answers, code in (
        ("", {"ambush": "STANDING_POLICY_DECLINE"}, grpc.StatusCode.UNAUTHENTICATED),
        ("forged", {"ambush": "STANDING_POLICY_DECLINE"}, grpc.StatusCode.PERMISSION_DENIED),
        (a1, {"Ambush!": "STANDING_POLICY_DECLINE"}, grpc.StatusCode.INVALID_ARGUMENT),
        (a1, {"ambush": "STANDING_POLICY_UNSPECIFIED"}, grpc.StatusCode.INVALID_ARGUMENT),
    ):
        with pytest.raises(grpc.RpcError) as exc:
            _policy(match_stub, match.match_id, token, answers)
        assert exc.value.code() is code
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.SetStandingAnswers(
            match_pb2.SetStandingAnswersRequest(
                match_id=match.match_id,
                seat_token=a1,
                answers=[match_pb2.StandingAnswer(decision_kind="ambush", policy=99)],  # type: ignore[arg-type]
            )
        )
    assert exc.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert get(a1) == []  # a refused request changed nothing
