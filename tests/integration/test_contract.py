"""The planning contract end to end: typed views, static data, match facts, labels, and a
client that rebuilds the board from the opening view and the event stream.

Everything here goes through a real stack, the way a bot in another language sees it.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

import grpc
import pytest

from frontier.bots.sdk import BotClient, RandomStrategy
from frontier.engine import Seat, execute, initial_state, legal_commands, make_config
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import EventKind
from frontier.engine.view import view
from frontier.ops.stack import Stack
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.wire import command_from_proto, enum_from_proto, event_from_proto
from frontier.wire.game_data import game_data
from frontier.wire.labels import label, legal_command_to_proto
from frontier.wire.view import view_to_proto

from .bot_helpers import MIRROR, RawStream, create, replay, watch
from .client import Match
from .stream_check import stored_batches

pytestmark = pytest.mark.integration

Board = dict[tuple[str, str, str], int]  # (clearing, seat name, piece kind) -> count


def _served(seat_view: dict[str, Any]) -> types_pb2.View:
    """The engine's view as the server sends it: these tests' matches have a fixed seed,
    which the orchestrator marks on every view (``seed_fixed``, the creator may know the deal)."""
    shown = view_to_proto(seat_view)
    shown.seed_fixed = True
    return shown


def test_game_data_is_served_and_is_the_engines(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    served = match_stub.GetGameData(match_pb2.GetGameDataRequest()).data
    assert served == game_data()
    assert len(served.clearings) == 24 and len(served.cards) == 47


def test_match_info_marks_fixed_seeds_and_shows_the_seeded_suits(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    fixed = create(match_stub, seed=4242, lineup=R2_DEFAULT_LINEUP, max_rounds=2)
    info = match_stub.GetMatchInfo(match_pb2.GetMatchInfoRequest(match_id=fixed.match_id)).info
    state = initial_state(make_config(**fixed.config))
    assert info.seed_fixed and info.max_rounds == 2 and info.lineup == R2_DEFAULT_LINEUP
    assert {s.clearing: s.suit for s in info.suits} == {
        c.id: c.suit for c in view_to_proto(view(state, None)).clearings
    }
    assert info.takeover_bot == "greedy" and info.strike_limit == 3
    shown = type(info)()
    shown.CopyFrom(info)
    shown.ClearField("match_id")  # a random hex id may contain the digits by chance
    assert "4242" not in str(shown)
    secret = match_stub.CreateMatch(match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig()))
    other = match_stub.GetMatchInfo(match_pb2.GetMatchInfoRequest(match_id=secret.match_id))
    assert not other.info.seed_fixed and other.info.max_rounds == 6
    with pytest.raises(grpc.RpcError) as missing:
        match_stub.GetMatchInfo(match_pb2.GetMatchInfoRequest(match_id="0" * 32))
    assert missing.value.code() is grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as empty:
        match_stub.GetMatchInfo(match_pb2.GetMatchInfoRequest())
    assert empty.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_the_initial_view_is_the_opening_deal_as_the_caller_sees_it(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = create(match_stub, seed=515, lineup=R2_DEFAULT_LINEUP)
    state = initial_state(make_config(**match.config))
    for seat, token in [(None, ""), *match.tokens.items()]:
        reply = match_stub.GetMatchInfo(
            match_pb2.GetMatchInfoRequest(match_id=match.match_id, seat_token=token)
        )
        assert reply.initial_view == _served(view(state, seat))
        hands = [s for s in reply.initial_view.seats if s.hand]
        assert [enum_from_proto(Seat, s.seat) for s in hands] == ([seat] if seat else [])


async def test_legal_commands_carry_labels_everywhere(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = Match.create(match_stub, seed=77)
    for n in range(12):
        listed = match.legal()
        assert all(c.label == label(command_from_proto(c.command)) for c in listed)
        reply = match.submit(listed[n % len(listed)].id)
        assert all(c.label == label(command_from_proto(c.command)) for c in reply.next_legal)
    seat = match.to_act
    assert seat is not None

    async def one_request() -> list[types_pb2.LegalCommand]:
        async with RawStream(stack.config.address("orchestrator")) as bot:
            bot.hello(match.match_id, match.tokens[seat])
            await bot.expect("welcome")
            return list((await bot.expect("decision")).decision.legal)

    legal = await one_request()
    assert legal and all(c.label == label(command_from_proto(c.command)) for c in legal)


async def test_each_legal_command_carries_the_engines_verb_cost_and_certain_vp(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    """What ListLegalCommands and each reply's next list say a command is, costs and surely
    scores is the engine's preview on the committed state, through the real stack."""
    match = create(match_stub, seed=313, lineup="A=marquise,eyrie,thief;B=marquise,alliance,tinker")
    m = Match(match_stub, match.match_id, match.tokens, None)
    first = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    m.to_act = enum_from_proto(Seat, first.to_act)
    state = initial_state(make_config(**match.config))
    scoring = 0
    for n in range(60):
        seat = m.to_act
        assert seat is not None
        legal = legal_commands(state, seat)
        expected = [legal_command_to_proto(cmd, state=state) for cmd in legal]
        listed = m.legal()
        assert listed == expected
        scoring += sum(1 for c in listed if c.vp)
        pick = n % len(listed)
        reply = m.submit(listed[pick].id)
        execute(state, legal[pick])
        if m.to_act is seat:
            assert list(reply.next_legal) == m.legal()
    assert scoring > 0  # some command of those lists surely scored


def _board(v: types_pb2.View) -> Board:
    out: Board = {}
    for c in v.clearings:
        for p in c.pieces:
            seat = enum_from_proto(Seat, p.seat).value
            counts = [("warrior", p.warriors), *((b.kind, b.count) for b in p.buildings)]
            for kind, n in [*counts, *((t.kind, t.count) for t in p.tokens)]:
                if n:
                    out[(c.id, seat, kind)] = n
    return out


def _fold(board: Board, scores: dict[str, int], event: types_pb2.Event) -> None:
    """What a client does with each event it is sent: the board and the scores."""
    e = event_from_proto(event)
    if e.kind in (EventKind.PIECES_PLACED, EventKind.KEEP_PLACED):
        board[(e.clearing, e.seat, e.piece)] = board.get((e.clearing, e.seat, e.piece), 0) + e.count
    elif e.kind is EventKind.PIECES_MOVED:
        board[(e.clearing, e.seat, e.piece)] -= e.count
        board[(e.to, e.seat, e.piece)] = board.get((e.to, e.seat, e.piece), 0) + e.count
    elif e.kind is EventKind.PIECES_REMOVED:
        board[(e.clearing, e.seat, e.piece)] -= e.count
    elif e.kind is EventKind.WOOD_SPENT:
        for clearing in e.clearings:
            board[(clearing, e.seat, "wood")] -= 1
    elif e.kind is EventKind.SCORED:
        scores[e.target] += e.amount
    for key in [k for k, n in board.items() if n == 0]:
        del board[key]


@pytest.mark.parametrize("lineup", [MIRROR, R2_DEFAULT_LINEUP])
async def test_a_client_following_the_stream_from_version_0_reaches_the_same_view(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub, lineup: str
) -> None:
    """The documented recipe: GetMatchInfo's initial_view, then every WatchEvents event in
    order, gives the board and the scores that GetView shows at the end, for every reader."""
    match = create(match_stub, seed=808, lineup=lineup, max_rounds=2)
    address = stack.config.address("orchestrator")

    async def play() -> None:
        await asyncio.gather(
            *(
                BotClient(address, match.match_id, t).play(RandomStrategy(i))
                for i, t in enumerate(match.tokens.values())
            )
        )

    await play()
    for seat, token in [(None, ""), *match.tokens.items()]:
        start = match_stub.GetMatchInfo(
            match_pb2.GetMatchInfoRequest(match_id=match.match_id, seat_token=token)
        ).initial_view
        board = _board(start)
        scores: dict[str, int] = defaultdict(int, {"A": start.score_a, "B": start.score_b})
        replies = watch(match_stub, match.match_id, token)
        for reply in replies:
            _fold(board, scores, reply.envelope.event)
        final = match_stub.GetView(
            match_pb2.GetViewRequest(match_id=match.match_id, seat_token=token)
        ).view
        assert replies[-1].envelope.seq == final.version
        assert board == _board(final), seat
        assert (scores["A"], scores["B"]) == (final.score_a, final.score_b), seat


async def test_the_served_typed_view_is_the_engines_view_of_the_committed_state(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    match = create(match_stub, seed=909, lineup="A=marquise,eyrie;B=marquise,alliance")
    m = Match(match_stub, match.match_id, match.tokens, None)
    first = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    m.to_act = enum_from_proto(Seat, first.to_act)
    for n in range(40):
        m.step(n)
    stored = await stored_batches(stack.config.nats_url, match.match_id)
    state = [after for *_, after in replay(match.config, stored)][-1]
    for seat, token in [(None, ""), *match.tokens.items()]:
        shown = match_stub.GetView(
            match_pb2.GetViewRequest(match_id=match.match_id, seat_token=token)
        ).view
        assert shown == _served(view(state, seat))
