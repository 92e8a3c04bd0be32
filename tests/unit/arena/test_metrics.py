"""The arena's metrics through its own code paths: a bot enters through ArenaService.Enter,
the loop seats it in a match against a stand-in MatchService, the match ends and is rated;
each step moves the counters and the scraped gauges by what happened, no more."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, cast

import pytest
from prometheus_client import REGISTRY

from frontier.arena.lobby import Lobby
from frontier.arena.metrics import watch_arena
from frontier.arena.registry import new_bot
from frontier.arena.service import ArenaServicer
from frontier.runtime.errors import GrpcContext
from frontier.v1 import arena_pb2

from .memory_kv import MemoryKV
from .test_runner import Stub, arena_of, finish
from .test_service import Aborted, Context, hello

COUNTERS = {
    "started": ("frontier_arena_matches_started_total", {}),
    "rated": ("frontier_arena_matches_ended_total", {"outcome": "rated"}),
    "void": ("frontier_arena_matches_ended_total", {"outcome": "void"}),
    "left": ("frontier_arena_seats_left_total", {}),
    "ratings": ("frontier_arena_rating_updates_total", {}),
    "welcomed": ("frontier_arena_enters_total", {"result": "welcomed"}),
    "refused": ("frontier_arena_enters_total", {"result": "refused"}),
    "hello": ("frontier_arena_enter_streams", {"state": "hello"}),
    "entered": ("frontier_arena_enter_streams", {"state": "entered"}),
    "present": ("frontier_arena_bots_present", {}),
    "capacity": ("frontier_arena_seat_capacity", {}),
    "seats": ("frontier_arena_seats_in_play", {}),
    "matches": ("frontier_arena_matches_in_play", {}),
}


def sample(name: str) -> float:
    metric, labels = COUNTERS[name]
    return REGISTRY.get_sample_value(metric, labels) or 0.0


@pytest.fixture
def delta() -> Callable[[], dict[str, float]]:
    """What moved since the test began (the registry is the process's, shared by tests)."""
    before = {name: sample(name) for name in COUNTERS}
    return lambda: {n: sample(n) - v for n, v in before.items() if sample(n) != v}


@pytest.fixture
def stub() -> Stub:
    return Stub()


@pytest.fixture
def kv() -> MemoryKV:
    return MemoryKV()


@pytest.fixture
def service(stub: Stub, kv: MemoryKV) -> Iterator[ArenaServicer]:
    lobby = Lobby()
    arena = arena_of(stub, kv, lobby)
    unwatch = watch_arena(arena, lobby)
    yield ArenaServicer(arena, arena.store, lobby, host_keys=None)
    unwatch()


class Bot:
    """One Enter stream through the servicer, open until :meth:`leave`."""

    def __init__(self, service: ArenaServicer, key: str, capacity: int) -> None:
        self.gone = asyncio.Event()
        self.replies = service.Enter(self.requests(key, capacity), cast(GrpcContext, Context()))

    async def requests(self, key: str, capacity: int) -> AsyncIterator[arena_pb2.EnterRequest]:
        yield hello(key, capacity)
        await self.gone.wait()

    async def next(self) -> Any:
        return await anext(self.replies)

    async def leave(self) -> None:
        self.gone.set()
        async for _ in self.replies:
            pass


async def test_a_rated_match_moves_each_metric_by_what_happened(
    service: ArenaServicer, stub: Stub, delta: Callable[[], dict[str, float]]
):
    record, key = new_bot("alpha", "", owner="")
    await service.store.register(record)
    bot = Bot(service, key, capacity=2)
    assert (await bot.next()).WhichOneof("message") == "welcome"
    assert delta() == {"welcomed": 1, "entered": 1, "present": 1, "capacity": 2}

    assert await service.arena.schedule()  # room for two matches: its team in each
    assigned = [(await bot.next()).assignment for _ in range(6)]
    assert [a.match_id for a in assigned] == ["m1"] * 3 + ["m2"] * 3
    assert delta() == {
        "welcomed": 1,
        "entered": 1,
        "present": 1,
        "capacity": 2,
        "started": 2,
        "seats": 6,
        "matches": 2,
    }

    status = await service.GetArenaStatus(
        arena_pb2.GetArenaStatusRequest(), cast(GrpcContext, Context())
    )
    (present,) = status.bots
    assert (present.capacity, present.seats_in_play) == (2, 6)  # room in matches, seats played

    stub.taken_over_in = {"m2": {assigned[-1].seat, assigned[-2].seat}}  # two of its seats
    await finish(stub, service.arena, {"m1": {"winner": "A", "scores": {}}, "m2": {"winner": "B"}})
    await bot.leave()
    # each match rates the bot and the built-in it met; it left one match, however many seats
    assert delta() == {"welcomed": 1, "started": 2, "rated": 2, "ratings": 4, "left": 1}


async def test_a_void_match_rates_nobody(
    service: ArenaServicer, stub: Stub, delta: Callable[[], dict[str, float]]
):
    record, key = new_bot("alpha", "", owner="")
    await service.store.register(record)
    bot = Bot(service, key, capacity=1)
    await bot.next()
    await service.arena.schedule()
    await bot.leave()  # it left with its seat in play
    await finish(stub, service.arena, {"m1": {"winner": "", "end_reason": "abandoned"}})
    assert delta() == {"welcomed": 1, "started": 1, "void": 1, "left": 1}


async def test_a_refused_entry_is_counted_and_holds_no_stream(
    service: ArenaServicer, delta: Callable[[], dict[str, float]]
):
    bot = Bot(service, "fb_0123456789ab_" + "x" * 32, capacity=1)
    with pytest.raises(Aborted):
        await bot.next()
    assert delta() == {"refused": 1}
