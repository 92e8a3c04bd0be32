"""Match leases in a JetStream KV bucket: one owner at a time, takeover after expiry, one
heartbeat per orchestrator renewing all its leases."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client as NatsClient
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from frontier.ops.stack import _wait_port, free_port, nats_server_binary
from frontier.orchestrator.leases import Leases, heartbeat_key
from frontier.runtime.bus import LEASES_BUCKET

pytestmark = pytest.mark.integration


class Clock:
    """Time that moves only when the test says so (unix time and the orchestrators'
    monotonic clock alike): a lease expires because the test moved past its expiry, not
    because the test slept long enough."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


async def _two_owners(url: str) -> tuple[NatsClient, KeyValue, Clock, Leases, Leases]:
    """A connection, the leases bucket, a clock, and two orchestrators' leases with a 0.6 s
    TTL on that clock."""
    nc = await nats.connect(url)
    kv = await nc.jetstream().create_key_value(bucket=LEASES_BUCKET, history=1)
    clock = Clock()
    a = Leases(kv, "orch-a", "127.0.0.1:1", ttl_s=0.6, clock=clock, monotonic=clock)
    b = Leases(kv, "orch-b", "127.0.0.1:2", ttl_s=0.6, clock=clock, monotonic=clock)
    return nc, kv, clock, a, b


async def _scenario(url: str) -> None:
    nc, _, clock, a, b = await _two_owners(url)
    match = "0" * 32
    first = await a.acquire(match)
    assert first is not None and first.owner == "orch-a"
    seen_by_b = await b.acquire(match)  # alive: b must route to a, not take it
    assert seen_by_b is not None and seen_by_b.owner == "orch-a"
    assert seen_by_b.address == "127.0.0.1:1"
    assert await a.heartbeat() == []  # renews a's leases; none lost
    # both race for a free lease: exactly one wins
    other = "1" * 32
    results = await asyncio.gather(a.acquire(other), b.acquire(other))
    owners = {r.owner for r in results if r is not None}
    assert len(owners) == 1
    # a dies (stops renewing); after expiry b takes over, and a finds out on its next heartbeat
    clock.advance(0.8)
    taken = await b.acquire(match)
    assert taken is not None and taken.owner == "orch-b"
    assert await a.heartbeat() == [match]
    assert match not in a.held
    await b.release(match)
    assert await b.get(match) is None
    # a match just created is leased without a read first; were the lease there after all
    # (it cannot be: the id is new), the holder's lease comes back, as after a lost race
    fresh = "2" * 32
    mine = await a.acquire(fresh, new=True)
    assert mine is not None and mine.owner == "orch-a" and fresh in a.held
    clash = await b.acquire(fresh, new=True)
    assert clash is not None and clash.owner == "orch-a" and fresh not in b.held
    await nc.close()


async def _heartbeat_scenario(url: str) -> None:
    nc, kv, clock, a, b = await _two_owners(url)
    assert await a.heartbeat() == []  # holding nothing: nothing is written
    with pytest.raises(KeyNotFoundError):
        await kv.get(heartbeat_key("orch-a"))
    matches = ["2" * 32, "3" * 32]
    for match in matches:
        await a.acquire(match)
    revisions = dict(a.held)
    # one heartbeat write keeps both alive long past their own expiry
    for _ in range(5):
        clock.advance(0.2)
        assert await a.heartbeat() == []
    assert a.held == revisions  # the match entries themselves were not rewritten
    for match in matches:
        seen = await b.acquire(match)
        assert seen is not None and seen.owner == "orch-a"
    # a stalls for longer than a lifetime: b takes one match over, and a's next heartbeat
    # reports exactly that one lost and keeps the other
    clock.advance(0.8)
    taken = await b.acquire(matches[0])
    assert taken is not None and taken.owner == "orch-b"
    assert await a.heartbeat() == [matches[0]]
    assert set(a.held) == {matches[1]}
    # on the way out a lets go of everything at once: b takes the other without waiting
    await a.release_all()
    taken = await b.acquire(matches[1])
    assert taken is not None and taken.owner == "orch-b"
    await nc.close()


async def _stall_before_the_first_heartbeat(url: str) -> None:
    nc, _, clock, a, b = await _two_owners(url)
    match = "4" * 32
    await a.acquire(match)
    # a stalls past the lease's own expiry before it ever beats: b takes the match over, and
    # a's first heartbeat already reports it lost
    clock.advance(0.8)
    taken = await b.acquire(match)
    assert taken is not None and taken.owner == "orch-b"
    assert await a.heartbeat() == [match]
    assert a.held == {}
    await nc.close()


@pytest.fixture
def nats_url(tmp_path: Path) -> Iterator[str]:
    """A nats-server with JetStream of the test's own (a process: a sync fixture)."""
    port = free_port()
    proc = subprocess.Popen(
        [nats_server_binary(), "-js", "-sd", str(tmp_path), "-a", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port("127.0.0.1", port, 20, proc, "nats-server")
        yield f"nats://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


async def test_leases_single_owner_and_takeover_after_expiry(nats_url: str) -> None:
    await _scenario(nats_url)


async def test_one_heartbeat_renews_every_lease_and_reports_the_lost_ones(nats_url: str) -> None:
    await _heartbeat_scenario(nats_url)


async def test_the_first_heartbeat_reports_a_lease_lost_in_a_stall_before_it(
    nats_url: str,
) -> None:
    await _stall_before_the_first_heartbeat(nats_url)
