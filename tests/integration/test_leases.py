"""Match leases in a JetStream KV bucket: one owner at a time, takeover after expiry."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import nats
import pytest

from frontier.ops.stack import _wait_port, free_port, nats_server_binary
from frontier.orchestrator.leases import LeaseLost, Leases
from frontier.runtime.bus import LEASES_BUCKET

pytestmark = pytest.mark.integration


async def _scenario(url: str) -> None:
    nc = await nats.connect(url)
    js = nc.jetstream()
    kv = await js.create_key_value(bucket=LEASES_BUCKET, history=1)
    a = Leases(kv, "orch-a", "127.0.0.1:1", ttl_s=0.6)
    b = Leases(kv, "orch-b", "127.0.0.1:2", ttl_s=0.6)
    match = "0" * 32
    first = await a.acquire(match)
    assert first is not None and first.owner == "orch-a"
    seen_by_b = await b.acquire(match)  # alive: b must route to a, not take it
    assert seen_by_b is not None and seen_by_b.owner == "orch-a"
    assert seen_by_b.address == "127.0.0.1:1"
    await a.renew(match)
    # both race for a free lease: exactly one wins
    other = "1" * 32
    results = await asyncio.gather(a.acquire(other), b.acquire(other))
    owners = {r.owner for r in results if r is not None}
    assert len(owners) == 1
    # a dies (stops renewing); after expiry b takes over, and a finds out on renewal
    await asyncio.sleep(0.8)
    taken = await b.acquire(match)
    assert taken is not None and taken.owner == "orch-b"
    with pytest.raises(LeaseLost):
        await a.renew(match)
    await b.release(match)
    assert await b.get(match) is None
    await nc.close()


def test_leases_single_owner_and_takeover_after_expiry(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [nats_server_binary(), "-js", "-sd", str(tmp_path), "-a", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port("127.0.0.1", port, 20, proc, "nats-server")
        asyncio.run(_scenario(f"nats://127.0.0.1:{port}"))
    finally:
        proc.terminate()
        proc.wait(10)
