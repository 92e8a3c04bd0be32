"""When an owner trusts what it holds of a match: for the trusted part of a lifetime after
the write that last made its lease safe, by its own monotonic clock; past that (a pause) it
confirms the lease with compare-and-set first, and a match lost meanwhile is dropped and
asked for afresh instead of answered from memory."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, cast

import grpc
import pytest
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KeyValue

from frontier.engine import Seat, initial_state, make_config
from frontier.engine.model import Command
from frontier.orchestrator.hosted_match import HostedMatch, NotOwner
from frontier.orchestrator.leases import SAFETY, Leases
from frontier.orchestrator.match_host import MatchHost
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError
from frontier.v1 import events_pb2

TTL = 3.0
MATCH = "a" * 32


class Clock:
    """Time that moves only when the test says so: unix time and monotonic time alike."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class _Entry:
    value: bytes
    revision: int


class FakeKV:
    """The KV operations leases use, with JetStream's revisions and compare-and-set, in
    memory; ``down`` makes every call fail as NATS away does; ``writes`` counts them."""

    def __init__(self) -> None:
        self.entries: dict[str, _Entry] = {}
        self.revision = 0
        self.down = False
        self.writes = 0
        self.gate: asyncio.Event | None = None  # when set, updates wait for it

    def _check(self) -> None:
        if self.down:
            raise TimeoutError("nats: timeout")

    def _store(self, key: str, value: bytes) -> int:
        self.writes += 1
        self.revision += 1
        self.entries[key] = _Entry(value, self.revision)
        return self.revision

    async def get(self, key: str) -> Any:
        self._check()
        entry = self.entries.get(key)
        if entry is None:
            raise KeyNotFoundError
        return entry

    async def put(self, key: str, value: bytes) -> int:
        self._check()
        return self._store(key, value)

    async def create(self, key: str, value: bytes) -> int:
        self._check()
        if key in self.entries:
            raise KeyWrongLastSequenceError("key exists")
        return self._store(key, value)

    async def update(self, key: str, value: bytes, last: int) -> int:
        self._check()
        if self.gate is not None:
            await self.gate.wait()
        entry = self.entries.get(key)
        if entry is None or entry.revision != last:
            raise KeyWrongLastSequenceError("wrong last sequence")
        return self._store(key, value)

    async def delete(self, key: str, last: int | None = None) -> bool:
        self._check()
        self.entries.pop(key, None)
        return True


def _owners() -> tuple[FakeKV, Clock, Leases, Leases]:
    kv, clock = FakeKV(), Clock()
    store = cast(KeyValue, kv)
    a = Leases(store, "orch-a", "a:1", ttl_s=TTL, clock=clock, monotonic=clock)
    b = Leases(store, "orch-b", "b:1", ttl_s=TTL, clock=clock, monotonic=clock)
    return kv, clock, a, b


TRUST = TTL * (1 - SAFETY)


async def test_a_lease_is_trusted_for_the_trusted_part_of_a_lifetime_after_its_write() -> None:
    _, clock, a, _ = _owners()
    assert not a.trusted(MATCH)  # not held
    await a.acquire(MATCH)
    assert a.trusted(MATCH)
    clock.advance(TRUST - 0.01)
    assert a.trusted(MATCH)
    clock.advance(0.01)  # the safety margin is kept: still a fifth of the lifetime left
    assert not a.trusted(MATCH)


async def test_heartbeats_keep_every_lease_trusted_without_rewriting_them() -> None:
    kv, clock, a, _ = _owners()
    await a.acquire(MATCH)
    revision = a.held[MATCH]
    for _ in range(10):
        clock.advance(TTL / 3)
        assert await a.heartbeat() == []
        assert a.trusted(MATCH)
    assert a.held[MATCH] == revision  # one heartbeat write each time, not one per match
    assert kv.entries[MATCH].revision == revision


async def test_after_a_pause_a_lease_still_ours_is_confirmed_and_trusted_again() -> None:
    kv, clock, a, _ = _owners()
    await a.acquire(MATCH)
    clock.advance(TTL * 5)  # paused: nobody took it
    assert not a.trusted(MATCH)
    assert await a.confirm(MATCH)
    assert a.trusted(MATCH)
    assert kv.entries[MATCH].revision == a.held[MATCH]
    assert json.loads(kv.entries[MATCH].value)["expires"] == clock.now + TTL


async def test_after_a_pause_a_lease_taken_over_is_lost_not_trusted() -> None:
    _, clock, a, b = _owners()
    await a.acquire(MATCH)
    clock.advance(TTL * 2)
    taken = await b.acquire(MATCH)
    assert taken is not None and taken.owner == "orch-b"
    assert not a.trusted(MATCH)
    assert not await a.confirm(MATCH)
    assert MATCH not in a.held and not a.trusted(MATCH)


async def test_a_confirmation_stops_a_takeover_that_read_the_old_lease() -> None:
    """b read a's expired lease before a confirmed it: b's compare-and-set then fails, so
    a trusted owner and a new one never coexist."""
    kv, clock, a, b = _owners()
    await a.acquire(MATCH)
    clock.advance(TTL * 2)
    seen = await b.get(MATCH)
    assert seen is not None and not seen.alive(clock.now)
    assert await a.confirm(MATCH)
    with pytest.raises(KeyWrongLastSequenceError):
        await kv.update(MATCH, b"{}", last=seen.revision)


async def test_concurrent_confirmations_share_one_write() -> None:
    kv, clock, a, _ = _owners()
    await a.acquire(MATCH)
    clock.advance(TTL * 2)
    kv.gate = asyncio.Event()
    writes = kv.writes
    waiting = [asyncio.ensure_future(a.confirm(MATCH)) for _ in range(5)]
    await asyncio.sleep(0)
    kv.gate.set()
    assert await asyncio.gather(*waiting) == [True] * 5
    assert kv.writes == writes + 1


async def test_a_heartbeat_after_a_gap_confirms_each_lease_and_reports_the_lost() -> None:
    _, clock, a, b = _owners()
    kept, taken = MATCH, "b" * 32
    await a.acquire(kept)
    await a.acquire(taken)
    assert await a.heartbeat() == []
    clock.advance(TTL * 2)
    await b.acquire(taken)
    assert await a.heartbeat() == [taken]
    assert a.trusted(kept) and not a.trusted(taken)


async def test_a_heartbeat_that_fails_midway_leaves_the_leases_suspect() -> None:
    kv, clock, a, _ = _owners()
    await a.acquire(MATCH)
    clock.advance(TTL * 2)
    kv.down = True
    with pytest.raises(TimeoutError):
        await a.heartbeat()
    kv.down = False
    assert not a.trusted(MATCH)  # nothing confirmed: still not trusted


class _Bus:
    """The one bus call MatchHost.get makes before it takes a lease: the match exists."""

    async def get_match(self, match_id: str) -> dict[str, object]:
        return {}


def _host(leases: Leases) -> tuple[MatchHost, HostedMatch]:
    host = MatchHost(cast(Bus, _Bus()), lambda hosted: None, leases)
    config = make_config(seed=5, lineup="A=marquise;B=marquise")
    hosted = HostedMatch(MATCH, config, initial_state(config), 0, {}, {})
    host.matches[MATCH] = hosted
    return host, hosted


class _Session:
    """A bot stream attached to a seat: remembers how it was ended."""

    def __init__(self) -> None:
        self.closed: tuple[grpc.StatusCode, str] | None = None

    def on_commit(self, seat: Seat, command: Command, record: events_pb2.DecisionRecord) -> None:
        pass

    def poke(self) -> None:
        pass

    def close(self, code: grpc.StatusCode, reason: str) -> None:
        self.closed = (code, reason)


async def test_a_paused_owner_forwards_to_the_new_owner_instead_of_answering() -> None:
    _, clock, a, b = _owners()
    await a.acquire(MATCH)
    host, hosted = _host(a)
    session = _Session()
    hosted.attach(hosted.state.order[0], session)
    clock.advance(TTL * 2)
    await b.acquire(MATCH)
    with pytest.raises(NotOwner) as raised:
        await host.get(MATCH)
    assert raised.value.address == "b:1"
    assert MATCH not in host.matches and MATCH not in a.held
    # its bot stream ends, so the bot connects again and is forwarded to the new owner
    assert session.closed is not None and session.closed[0] is grpc.StatusCode.UNAVAILABLE


async def test_a_paused_owner_still_holding_the_lease_answers_after_confirming() -> None:
    kv, clock, a, _ = _owners()
    await a.acquire(MATCH)
    host, hosted = _host(a)
    clock.advance(TTL * 2)
    writes = kv.writes
    assert await host.get(MATCH) is hosted
    assert kv.writes == writes + 1  # the confirmation
    assert await host.get(MATCH) is hosted
    assert kv.writes == writes + 1  # trusted again: no more writes


async def test_a_paused_owner_that_cannot_reach_nats_refuses_with_unavailable() -> None:
    kv, clock, a, _ = _owners()
    await a.acquire(MATCH)
    host, _ = _host(a)
    clock.advance(TTL * 2)
    kv.down = True
    with pytest.raises(ServiceError) as raised:
        await host.get(MATCH)
    assert raised.value.code is grpc.StatusCode.UNAVAILABLE
    assert raised.value.reason == "SERVER_UNAVAILABLE"
    assert MATCH in host.matches  # nothing known: kept, and confirmed on the next request
    kv.down = False
    assert (await host.get(MATCH)).match_id == MATCH
