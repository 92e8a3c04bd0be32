"""FRONTIER_NATS_REPLICAS: the stream and KV buckets get that many copies on a JetStream
cluster (three real nats-servers on loopback here), and a count the cluster cannot hold stops
the process with a readable error instead of a half-made bus."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from frontier.ops.stack import _wait_port, free_port, nats_server_binary
from frontier.runtime.bus import MATCHES_BUCKET, Bus, servers_of

pytestmark = pytest.mark.integration


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[list[str]]:
    """Three JetStream nodes in one cluster; yields their client URLs."""
    client = [free_port() for _ in range(3)]
    routes = [free_port() for _ in range(3)]
    procs = []
    try:
        for i in range(3):
            conf = tmp_path / f"n{i}.conf"
            routes_conf = ", ".join(f"nats://127.0.0.1:{p}" for p in routes)
            conf.write_text(
                f'server_name: n{i}\nlisten: "127.0.0.1:{client[i]}"\n'
                f'jetstream {{ store_dir: "{tmp_path / f"js{i}"}" }}\n'
                f"cluster {{ name: t, listen: 127.0.0.1:{routes[i]}, routes: [{routes_conf}] }}\n"
            )
            log = open(tmp_path / f"n{i}.log", "wb")  # noqa: SIM115 - owned by the process
            procs.append(
                subprocess.Popen([nats_server_binary(), "-c", str(conf)], stdout=log, stderr=log)
            )
            log.close()
        for port, proc in zip(client, procs, strict=True):
            _wait_port("127.0.0.1", port, 30, proc, "nats-server")
        yield [f"nats://127.0.0.1:{p}" for p in client]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)


async def _connect_when_the_cluster_has_a_leader(url: str, replicas: int) -> Bus:
    """A new cluster elects its JetStream meta leader within seconds; until then the
    JetStream API does not answer."""
    last: Exception | None = None
    for _ in range(60):
        try:
            return await Bus.connect(url, replicas=replicas)
        except Exception as exc:
            if "replica" in str(exc):
                raise
            last = exc
            await asyncio.sleep(0.5)
    raise AssertionError(f"no JetStream leader: {last!r}")


async def test_the_stream_and_the_buckets_get_three_replicas(cluster: list[str]) -> None:
    async def run() -> tuple[int, int, int]:
        bus = await _connect_when_the_cluster_has_a_leader(",".join(cluster), 3)
        try:
            info = await bus.js.stream_info(bus.stream)
            status = await bus.matches.status()
            leases = await (await bus.leases_bucket()).status()
            return (
                int(info.config.num_replicas or 0),
                int(status.stream_info.config.num_replicas or 0),
                int(leases.stream_info.config.num_replicas or 0),
            )
        finally:
            await bus.close()

    assert await run() == (3, 3, 3)


async def test_more_replicas_than_nodes_is_a_clear_error(cluster: list[str]) -> None:
    async def run() -> str:
        with pytest.raises(RuntimeError) as caught:
            bus = await _connect_when_the_cluster_has_a_leader(cluster[0], 5)
            await bus.close()
        return str(caught.value)

    message = await run()
    assert "5 replica(s)" in message
    assert "FRONTIER_EVENTS" in message or MATCHES_BUCKET in message


def test_a_server_list_is_split_and_an_empty_one_refused() -> None:
    assert servers_of("nats://a:4222, nats://b:4222,") == ["nats://a:4222", "nats://b:4222"]
    with pytest.raises(ValueError, match="no NATS server"):
        servers_of(" , ")
