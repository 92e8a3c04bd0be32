"""The arena's loop against a stand-in MatchService: a plan becomes a CreateMatch with HELD
seats for the outside bots and BOT seats for the rest, each outside bot gets its seat, a
watched match's end is read as a spectator (rated, void, left), a restart forgets what the
board counted and watches the rest again."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, cast

import grpc
import pytest

from frontier.arena.lobby import Lobby
from frontier.arena.ratings import Board, MatchResult, SeatResult
from frontier.arena.runner import Arena, ArenaConfig, create_request, history_of, result_of
from frontier.arena.scheduler import Entrant, builtin_entrant, plan_match
from frontier.arena.store import ArenaStore
from frontier.engine import Seat
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import enum_from_proto

from .memory_kv import MemoryKV

CONFIG = ArenaConfig("orch:1", "public:1", builtins=("random", "greedy"), max_rounds=1)


class Stub:
    """MatchService as the arena calls it; ``views`` maps a match id to its view."""

    def __init__(self) -> None:
        self.created: list[match_pb2.CreateMatchRequest] = []
        self.views: dict[str, dict[str, Any]] = {}
        self.taken_over: set[int] = set()  # seats taken over in every match
        self.taken_over_in: dict[str, set[int]] = {}  # ... in one match
        self.struck: set[int] = set()
        self.ended = asyncio.Event()
        self.events: list[match_pb2.WatchEventsResponse] = [match_pb2.WatchEventsResponse()]

    async def CreateMatch(self, request: Any, **_: Any) -> match_pb2.CreateMatchResponse:
        self.created.append(request)
        held = [s.seat for s in request.seat_setup if s.mode == match_pb2.SEAT_MODE_HELD]
        tokens = [match_pb2.SeatToken(seat=seat, token=f"t{seat}") for seat in held]
        return match_pb2.CreateMatchResponse(match_id=f"m{len(self.created)}", seats=tokens)

    def WatchEvents(self, request: Any, **_: Any) -> AsyncIterator[Any]:
        async def events() -> AsyncIterator[Any]:
            await self.ended.wait()
            if request.match_id not in self.views:
                raise grpc.aio.AioRpcError(
                    grpc.StatusCode.NOT_FOUND, grpc.aio.Metadata(), grpc.aio.Metadata()
                )
            for event in self.events:  # the events themselves do not matter to the arena
                yield event

        return events()

    async def GetView(self, request: Any, **_: Any) -> match_pb2.GetViewResponse:
        view = types_pb2.View(json=json.dumps(self.views[request.match_id]))
        return match_pb2.GetViewResponse(view=view)

    async def GetMatchInfo(self, request: Any, **_: Any) -> match_pb2.GetMatchInfoResponse:
        taken_over = self.taken_over | self.taken_over_in.get(request.match_id, set())
        records = [
            match_pb2.SeatPlayRecord(
                seat=cast(types_pb2.Seat.ValueType, seat),
                taken_over=seat in taken_over,
                strikes=int(seat in self.struck),
            )
            for seat in taken_over | self.struck
        ]
        return match_pb2.GetMatchInfoResponse(seat_records=records)


@pytest.fixture
def stub() -> Stub:
    return Stub()


@pytest.fixture
def kv() -> MemoryKV:
    return MemoryKV()


def arena_of(stub: Stub, kv: MemoryKV, lobby: Lobby | None = None) -> Arena:
    typed = cast("match_pb2_grpc.MatchServiceAsyncStub", stub)
    return Arena(CONFIG, ArenaStore(kv.as_bucket()), lobby or Lobby(), typed)


def test_outside_bots_hold_their_seats_and_the_rest_are_the_servers_bots():
    plan = plan_match([Entrant("b1", "one")], [builtin_entrant("random")], {}, 3, 0)
    assert plan is not None
    request = create_request(plan, CONFIG)
    modes = {s.seat: (s.mode, s.bot) for s in request.seat_setup}
    assert sorted(m for m, _ in modes.values()).count(match_pb2.SEAT_MODE_HELD) == 3
    bots = sorted(bot for mode, bot in modes.values() if mode == match_pb2.SEAT_MODE_BOT)
    assert bots == ["random"] * 3  # the built-in entrant's team
    alone = plan_match([Entrant("b1", "one")], [], {}, 3, 0)
    assert alone is not None
    fillers = [s.bot for s in create_request(alone, CONFIG).seat_setup if s.bot]
    assert fillers == ["greedy"] * 3  # no other entrant: a team of fillers
    assert request.config.max_rounds == 1 and request.config.lineup == plan.lineup
    assert request.config.decision_budget_ms > 0  # a bot that leaves is struck, not waited on


async def finish(stub: Stub, arena: Arena, views: dict[str, dict[str, Any]]) -> None:
    stub.views.update(views)
    stub.ended.set()
    while arena.in_play:
        await asyncio.sleep(0)
        await asyncio.gather(*arena._tasks)


async def test_a_match_is_created_assigned_watched_and_rated(stub: Stub, kv: MemoryKV):
    lobby = Lobby()
    presence = lobby.enter("b1", "one", capacity=1)
    arena = arena_of(stub, kv, lobby)
    assert await arena.schedule()
    assert len(stub.created) == 1 and lobby.free_entrants() == []  # its one seat is taken
    assignment = presence.outbox[-1].assignment
    assert assignment.match_id == "m1" and assignment.orchestrator_address == "public:1"
    assert assignment.seat_token == f"t{assignment.seat}"
    stub.taken_over = {assignment.seat}
    await finish(stub, arena, {"m1": {"winner": "A", "scores": {"A": 3, "B": 1}}})
    board, _ = await arena.store.board()
    assert board.applied == ["m1"] and board.recent[0].score_a == 3
    assert board.entrants["b1"].left == 1  # taken over for missed deadlines: it left
    assert lobby.free_entrants() == [Entrant("b1", "one")]
    assert await arena.store.matches_in_play() == []


async def test_an_abandoned_or_unknown_match_is_void(stub: Stub, kv: MemoryKV):
    lobby = Lobby()
    lobby.enter("b1", "one", capacity=2)
    arena = arena_of(stub, kv, lobby)
    await arena.schedule()
    assert len(stub.created) == 2
    await finish(stub, arena, {"m1": {"winner": "", "end_reason": "abandoned"}})
    board, _ = await arena.store.board()
    assert sorted(board.applied) == ["m1", "m2"]  # m2: the server knows it no more
    assert all(m.state == "void" for m in board.recent) and board.entrants == {}


async def test_a_bot_that_leaves_is_marked_in_its_matches(stub: Stub, kv: MemoryKV):
    lobby = Lobby()
    presence = lobby.enter("b1", "one", capacity=1)
    arena = arena_of(stub, kv, lobby)
    await arena.schedule()
    await arena.left("b1", lobby.leave(presence))
    (stored,) = await arena.store.matches_in_play()
    assert [s.left for s in stored.seats if s.bot_id == "b1"] == [True] * 3
    await finish(stub, arena, {"m1": {"winner": "B", "scores": {}}})
    board, _ = await arena.store.board()
    assert board.entrants["b1"].left == 1


async def test_a_restart_forgets_counted_matches_and_watches_the_others(stub: Stub, kv: MemoryKV):
    store = ArenaStore(kv.as_bucket())
    seats = [
        SeatResult(seat="A1", bot_id="b1", name="one", faction="marquise"),
        SeatResult(seat="B1", bot_id="b2", name="two", faction="marquise"),
    ]
    counted = MatchResult(match_id="m1", lineup="l", seats=seats, state="rated", winner="A")
    await store.record_result(counted)
    await store.put_match(counted.model_copy(update={"state": "playing"}))  # a crash's leftover
    await store.put_match(MatchResult(match_id="m2", lineup="l", seats=seats))
    arena = arena_of(stub, kv)
    await arena.resume()
    assert list(arena.in_play) == ["m2"] and arena.index == 2  # m1 counted, m2 in play
    assert arena.history == {
        "b1": {"faction:marquise": 2, "team:A": 2, "met:b2": 2},
        "b2": {"faction:marquise": 2, "team:B": 2, "met:b1": 2},
    }
    await finish(stub, arena, {"m2": {"winner": "draw", "scores": {}}})
    board, _ = await store.board()
    assert board.applied == ["m1", "m2"] and board.entrants["b1"].played == 2


def test_the_history_follows_the_board_and_a_plan_lists_its_seats():
    plan = plan_match([Entrant("b1", "one")], [], {}, 1, 0)
    assert plan is not None
    record = result_of("m1", plan)
    assert [s.seat for s in record.seats] == ["A1", "B1", "A2", "B2", "A3", "B3"]
    assert [s.bot_id for s in record.seats] == ["b1", "", "b1", "", "b1", ""]  # team A, say
    assert history_of(Board()) == {}


async def test_a_bot_that_comes_back_and_plays_on_has_not_left(stub: Stub, kv: MemoryKV):
    lobby = Lobby()
    presence = lobby.enter("b1", "one", capacity=1)
    arena = arena_of(stub, kv, lobby)
    await arena.schedule()
    await arena.left("b1", lobby.leave(presence))
    again = lobby.enter("b1", "one", 1, arena.playing("b1"))  # its stream broke; it is back
    assert again.seats == {"m1"} and lobby.free_entrants() == []
    await finish(stub, arena, {"m1": {"winner": "A", "scores": {}}})
    board, _ = await arena.store.board()
    assert board.entrants["b1"].left == 0 and board.entrants["b1"].played == 1


async def test_a_bot_back_in_the_arena_whose_seat_missed_deadlines_has_left(
    stub: Stub, kv: MemoryKV
):
    # its process died mid-match and a new one entered: the old seat was struck, and the
    # match ended before the strike limit took it over
    lobby = Lobby()
    presence = lobby.enter("b1", "one", capacity=1)
    arena = arena_of(stub, kv, lobby)
    await arena.schedule()
    seat = presence.outbox[-1].assignment.seat
    await arena.left("b1", lobby.leave(presence))
    lobby.enter("b1", "one", 1, arena.playing("b1"))
    stub.struck = {seat}
    await finish(stub, arena, {"m1": {"winner": "A", "scores": {}}})
    board, _ = await arena.store.board()
    assert board.entrants["b1"].left == 1
    left = {s.seat: s.left for s in board.recent[0].seats if s.bot_id == "b1"}
    assert left[enum_from_proto(Seat, seat).value]  # the struck seat only
    assert sum(left.values()) == 1
