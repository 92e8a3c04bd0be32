"""ArenaService's refusals without a server: registering needs a live host key on a keyed
server (and records it as the owner), an Enter stream needs an EnterHello with a known bot
key and a capacity in range; each refusal has its reason, and nothing is stored."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import grpc
import pytest

from frontier.arena.lobby import Lobby
from frontier.arena.registry import new_bot
from frontier.arena.runner import Arena, ArenaConfig
from frontier.arena.service import ArenaServicer
from frontier.arena.store import ArenaStore
from frontier.runtime.errors import GrpcContext, reason_in
from frontier.runtime.settings import HOST_KEY_METADATA
from frontier.store.host_keys import HostKeyStore, Quotas
from frontier.v1 import arena_pb2

from .memory_kv import MemoryKV


class Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, trailer: Any) -> None:
        super().__init__(code.name)
        self.code = code
        self.reason = reason_in(trailer)


class Context:
    """The parts of a gRPC servicer context the arena's handlers use."""

    def __init__(self, host_key: str = "") -> None:
        self.metadata = ((HOST_KEY_METADATA, host_key),) if host_key else ()

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.metadata

    def peer(self) -> str:
        return "ipv4:127.0.0.1:5000"

    async def abort(self, code: grpc.StatusCode, message: str, trailer: Any = ()) -> None:
        raise Aborted(code, trailer)


@pytest.fixture
def arena_kv() -> MemoryKV:
    return MemoryKV()


@pytest.fixture
def keys() -> HostKeyStore:
    return HostKeyStore(MemoryKV().as_bucket())


def servicer(arena_kv: MemoryKV, keys: HostKeyStore | None) -> ArenaServicer:
    store, lobby = ArenaStore(arena_kv.as_bucket()), Lobby()
    arena = Arena(ArenaConfig("127.0.0.1:1", "127.0.0.1:1"), store, lobby, stub=None)  # type: ignore[arg-type]
    return ArenaServicer(arena, store, lobby, keys)


REQUEST = arena_pb2.RegisterBotRequest(name="alpha", description="d")


async def test_a_keyed_server_registers_for_a_live_host_key_only(
    arena_kv: MemoryKV, keys: HostKeyStore
):
    service = servicer(arena_kv, keys)
    with pytest.raises(Aborted) as missing:
        await service.RegisterBot(REQUEST, Context())
    assert missing.value.code is grpc.StatusCode.UNAUTHENTICATED
    assert missing.value.reason == "HOST_KEY_REQUIRED"
    with pytest.raises(Aborted) as unknown:
        await service.RegisterBot(REQUEST, Context("fk_0123456789ab_" + "s" * 32))
    assert unknown.value.code is grpc.StatusCode.PERMISSION_DENIED
    assert unknown.value.reason == "UNKNOWN_HOST_KEY"
    assert arena_kv.values == {}
    host, key = await keys.create("author", Quotas())
    reply = await service.RegisterBot(REQUEST, Context(key))
    bot = await service.store.check_key(reply.bot_key)
    assert bot is not None and bot.owner == host.key_id and bot.bot_id == reply.bot_id


async def test_a_bad_name_is_refused_with_its_reason(arena_kv: MemoryKV):
    service = servicer(arena_kv, None)
    with pytest.raises(Aborted) as refused:
        await service.RegisterBot(arena_pb2.RegisterBotRequest(name="a b"), Context())
    assert refused.value.code is grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.reason == "INVALID_BOT_NAME"
    assert arena_kv.values == {}


async def stream(*messages: arena_pb2.EnterRequest) -> AsyncIterator[arena_pb2.EnterRequest]:
    for message in messages:
        yield message


async def enter(service: ArenaServicer, *messages: arena_pb2.EnterRequest) -> list[Any]:
    context = cast(GrpcContext, Context())
    return [reply async for reply in service.Enter(stream(*messages), context)]


def hello(key: str, capacity: int = 1, whole_teams: bool = True) -> arena_pb2.EnterRequest:
    return arena_pb2.EnterRequest(
        hello=arena_pb2.EnterHello(bot_key=key, capacity=capacity, whole_teams=whole_teams)
    )


@pytest.mark.parametrize(
    ("messages", "code", "reason"),
    [
        ((), grpc.StatusCode.INVALID_ARGUMENT, "BAD_ENTRY"),
        (
            (arena_pb2.EnterRequest(heartbeat=arena_pb2.ArenaHeartbeat()),),
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_ENTRY",
        ),
        ((hello("KEY", capacity=0),), grpc.StatusCode.INVALID_ARGUMENT, "BAD_ENTRY"),
        ((hello("KEY", capacity=17),), grpc.StatusCode.INVALID_ARGUMENT, "BAD_ENTRY"),
        (
            (hello("KEY", whole_teams=False),),
            grpc.StatusCode.FAILED_PRECONDITION,
            "WHOLE_TEAMS_REQUIRED",
        ),
        ((hello(""),), grpc.StatusCode.UNAUTHENTICATED, "UNKNOWN_BOT_KEY"),
        (
            (hello("fb_0123456789ab_" + "x" * 32),),
            grpc.StatusCode.PERMISSION_DENIED,
            "UNKNOWN_BOT_KEY",
        ),
    ],
)
async def test_a_bad_entry_is_refused_and_nobody_enters(
    arena_kv: MemoryKV,
    messages: tuple[arena_pb2.EnterRequest, ...],
    code: grpc.StatusCode,
    reason: str,
):
    service = servicer(arena_kv, None)
    record, key = new_bot("alpha", "", owner="")
    await service.store.register(record)
    messages = tuple(
        hello(key, m.hello.capacity, m.hello.whole_teams) if m.hello.bot_key == "KEY" else m
        for m in messages
    )
    with pytest.raises(Aborted) as refused:
        await enter(service, *messages)
    assert (refused.value.code, refused.value.reason) == (code, reason)
    assert service.lobby.present() == []


async def test_a_good_entry_is_welcomed_and_leaving_empties_the_lobby(arena_kv: MemoryKV):
    service = servicer(arena_kv, None)
    record, key = new_bot("alpha", "", owner="")
    await service.store.register(record)
    replies = await enter(service, hello(key, 2))  # the stream ends after the hello
    assert replies[0].welcome.bot_id == record.bot_id and replies[0].welcome.name == "alpha"
    assert service.lobby.present() == []


async def test_a_host_key_registers_up_to_its_bots_quota(arena_kv: MemoryKV, keys: HostKeyStore):
    service = servicer(arena_kv, keys)
    service.bots_per_key = 2
    _, key = await keys.create("author", Quotas())
    for name in ("one", "two"):
        await service.RegisterBot(arena_pb2.RegisterBotRequest(name=name), Context(key))
    before = dict(arena_kv.values)
    with pytest.raises(Aborted) as refused:
        await service.RegisterBot(arena_pb2.RegisterBotRequest(name="three"), Context(key))
    assert refused.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert refused.value.reason == "QUOTA_EXCEEDED"
    assert arena_kv.values == before
    _, other = await keys.create("another", Quotas())  # another key is not affected
    await service.RegisterBot(arena_pb2.RegisterBotRequest(name="three"), Context(other))


async def test_a_seat_done_that_says_leaving_gets_the_bot_no_more_seats(arena_kv: MemoryKV):
    """A bot on its way out says so with its last SeatDone: the arena seats it nowhere
    again, though its stream is still open and its capacity would allow it."""
    service = servicer(arena_kv, None)
    presence = service.lobby.enter("bot-1", "alpha", capacity=2)
    for match_id in ("m1", "m2"):
        service.lobby.assign("bot-1", arena_pb2.SeatAssignment(match_id=match_id))

    async def requests(*done: arena_pb2.SeatDone) -> AsyncIterator[arena_pb2.EnterRequest]:
        for message in done:
            yield arena_pb2.EnterRequest(seat_done=message)

    await service._read(requests(arena_pb2.SeatDone(match_id="m1")), presence)
    assert presence.free == 1  # a plain SeatDone frees its seat
    await service._read(requests(arena_pb2.SeatDone(match_id="m2", leaving=True)), presence)
    assert presence.seats == set() and presence.free == 0
    assert service.lobby.free_entrants() == []
