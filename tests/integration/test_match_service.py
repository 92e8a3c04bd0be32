"""MatchService end to end over real processes: equivalence with the engine, bad input."""

from __future__ import annotations

import json
import threading
import uuid

import grpc
import pytest

from frontier.engine import Seat
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Command, CommandKind, EventKind
from frontier.ops.stack import Stack
from frontier.play.remote_match import play_remote
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import command_to_proto, enum_from_proto

from .client import MIRROR, Match, listed_matches

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stack_events_equal_in_process_engine_event_for_event(stack: Stack, seed: int) -> None:
    result = play_remote(stack.config.address("orchestrator"), seed, MIRROR)
    assert result.verified, result.message
    assert result.winner in {"A", "B", "draw"}
    assert result.replay is not None and len(result.replay.events) > 100


@pytest.mark.parametrize(
    ("seed", "expected"),
    [
        (7, {"contraband_collected", "contraband_moved"}),  # R18: collected, then carried
        (20, {"contraband_seized"}),  # R19
    ],
)
def test_R18_R19_stack_equals_engine_with_contraband_in_the_default_lineup(
    stack: Stack, seed: int, expected: set[str]
) -> None:
    """COLLECT goes to the crafting domain and SEIZE to combat; events still match."""
    result = play_remote(stack.config.address("orchestrator"), seed, R2_DEFAULT_LINEUP)
    assert result.verified, result.message
    assert result.replay is not None
    assert expected <= {e.kind.value for e in result.replay.events}


def _code(exc: pytest.ExceptionInfo[grpc.RpcError]) -> grpc.StatusCode:
    return exc.value.code()


def test_unknown_match_is_not_found(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.GetView(match_pb2.GetViewRequest(match_id="0" * 32))
    assert _code(exc) is grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.GetView(match_pb2.GetViewRequest(match_id="not-a-match"))
    assert _code(exc) is grpc.StatusCode.NOT_FOUND


def test_missing_and_wrong_tokens(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    match = Match.create(match_stub, seed=7)
    legal_id = match.legal()[0].id
    request = match_pb2.SubmitCommandRequest(match_id=match.match_id, legal_id=legal_id)
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.SubmitCommand(request)
    assert _code(exc) is grpc.StatusCode.UNAUTHENTICATED
    request.seat_token = "forged-token"
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.SubmitCommand(request)
    assert _code(exc) is grpc.StatusCode.PERMISSION_DENIED
    # a real token of another seat cannot act for the seat to act
    other = next(s for s in match.tokens if s is not match.to_act)
    assert match.to_act is not None
    command = Command(CommandKind.PLACE_KEEP, match.to_act, clearing="autumn.hill")
    request = match_pb2.SubmitCommandRequest(
        match_id=match.match_id,
        seat_token=match.tokens[other],
        command=command_to_proto(command),
    )
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.SubmitCommand(request)
    assert _code(exc) is grpc.StatusCode.PERMISSION_DENIED


def test_not_your_turn_and_illegal_commands_change_nothing(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, seed=8)
    before = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    waiting = next(s for s in match.tokens if s is not match.to_act)
    not_turn = Command(CommandKind.PLACE_KEEP, waiting, clearing="winter.mound")
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match.match_id,
                seat_token=match.tokens[waiting],
                command=command_to_proto(not_turn),
            )
        )
    assert _code(exc) is grpc.StatusCode.FAILED_PRECONDITION
    assert "not your turn" in str(exc.value.details())
    assert match.to_act is Seat.A1
    illegal = Command(CommandKind.PLACE_KEEP, Seat.A1, clearing="autumn.glade")  # not a corner
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match.match_id,
                seat_token=match.tokens[Seat.A1],
                command=command_to_proto(illegal),
            )
        )
    assert _code(exc) is grpc.StatusCode.FAILED_PRECONDITION
    assert "illegal" in str(exc.value.details())
    with pytest.raises(grpc.RpcError) as exc:
        match.submit("no such legal id")
    assert _code(exc) is grpc.StatusCode.FAILED_PRECONDITION
    after = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    assert after == before


def test_malformed_commands_are_invalid_argument(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, seed=9)
    token = match.tokens[Seat.A1]
    for bad in (
        types_pb2.Command(),  # kind and seat UNSPECIFIED
        types_pb2.Command(
            kind=types_pb2.CommandKind.ValueType(999), seat=types_pb2.SEAT_A1
        ),  # unknown kind number
    ):
        with pytest.raises(grpc.RpcError) as exc:
            match_stub.SubmitCommand(
                match_pb2.SubmitCommandRequest(
                    match_id=match.match_id, seat_token=token, command=bad
                )
            )
        assert _code(exc) is grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as exc:  # neither command nor legal id
        match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(match_id=match.match_id, seat_token=token)
        )
    assert _code(exc) is grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.CreateMatch(
            match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(lineup="A=eyrie;B=marquise"))
        )
    assert _code(exc) is grpc.StatusCode.INVALID_ARGUMENT


def test_stale_version_is_aborted_and_retry_is_idempotent(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, seed=10)
    first = match.legal()[0].id
    command_id = uuid.uuid4().hex
    reply = match.submit(first, command_id)
    assert reply.version > 0
    # a retry of the same command id returns the first result and applies nothing
    again = match_stub.SubmitCommand(
        match_pb2.SubmitCommandRequest(
            match_id=match.match_id,
            seat_token=match.tokens[Seat.A1],
            command_id=command_id,
            expected_version=0,
            legal_id=first,
        )
    )
    assert again.version == reply.version
    assert list(again.events) == list(reply.events)
    view = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    assert view.version == reply.version
    # a new command built on an old version is refused
    assert match.to_act is not None
    with pytest.raises(grpc.RpcError) as exc:
        match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match.match_id,
                seat_token=match.tokens[match.to_act],
                command_id=uuid.uuid4().hex,
                expected_version=0,
                legal_id=match.legal()[0].id,
            )
        )
    assert _code(exc) is grpc.StatusCode.ABORTED


def test_views_hide_other_hands_and_watch_is_filtered(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, seed=12)
    view = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    while view.round < 2:  # A1 has had an Evening draw by then
        match.step()
        view = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    a = json.loads(
        match_stub.GetView(
            match_pb2.GetViewRequest(match_id=match.match_id, seat_token=match.tokens[Seat.A1])
        ).view.json
    )
    spectator = json.loads(
        match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view.json
    )
    assert set(a["hands"]) == {"A1"}
    assert spectator["hands"] == {}
    assert "seed" not in json.dumps(spectator) and "rng" not in json.dumps(spectator)
    # history: B1 watches A1's draws without seeing the cards
    version = match.version
    stream = match_stub.WatchEvents(
        match_pb2.WatchEventsRequest(match_id=match.match_id, seat_token=match.tokens[Seat.B1]),
        timeout=10,
    )
    seen = []
    for reply in stream:
        seen.append(reply.envelope)
        if reply.envelope.seq == version:
            stream.cancel()
            break
    assert [e.seq for e in seen] == list(range(1, version + 1))
    draws = [
        e.event
        for e in seen
        if enum_from_proto(EventKind, e.event.kind) is EventKind.CARDS_DRAWN
        and e.event.seat != "B1"
    ]
    assert draws, "A1 drew cards during those commands"
    assert all(set(d.cards) == {"hidden"} for d in draws)


def test_watch_events_delivers_live_events(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    match = Match.create(match_stub, seed=14)
    received: list[int] = []

    def watch() -> None:
        for reply in match_stub.WatchEvents(
            match_pb2.WatchEventsRequest(match_id=match.match_id), timeout=20
        ):
            received.append(reply.envelope.seq)
            if len(received) >= 20:
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    while match.version < 20:
        match.step()
    watcher.join(20)
    assert received[:20] == list(range(1, 21))


def test_list_matches_and_scoreboard(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    from frontier.v1 import scoring_pb2, scoring_pb2_grpc

    match = Match.create(match_stub, seed=13)
    match.play_out()
    listed = listed_matches(match_stub)
    assert listed[match.match_id].winner in {"A", "B", "draw"}
    with grpc.insecure_channel(stack.config.address("scoring")) as channel:
        board = scoring_pb2_grpc.ScoringServiceStub(channel).GetScoreboard(
            scoring_pb2.GetScoreboardRequest()
        )
    row = next(r for r in board.matches if r.match_id == match.match_id)
    assert (row.score_a, row.score_b) == (
        listed[match.match_id].score_a,
        listed[match.match_id].score_b,
    )
    assert row.winner == listed[match.match_id].winner


def test_submit_reply_brings_the_next_legal_commands_of_the_same_seat_only(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    """next_legal equals ListLegalCommands when the caller acts again, and is empty (it would
    leak another seat's options) once the match waits for somebody else."""
    match = Match.create(match_stub, seed=11)
    seen_again = seen_other = 0
    while match.to_act is not None and (seen_again < 5 or seen_other < 5):
        seat = match.to_act
        reply = match.step(seen_again + seen_other)
        if match.to_act is seat:
            seen_again += 1
            listed = match.legal()
            assert [c.id for c in reply.next_legal] == [c.id for c in listed]
            assert list(reply.next_legal) == listed
        else:
            seen_other += 1
            assert not reply.next_legal
    assert seen_again >= 5 and seen_other >= 5
