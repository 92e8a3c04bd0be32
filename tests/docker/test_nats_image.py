"""The frontier-nats image on its own, through testcontainers' NATS module: JetStream is on,
writes survive a restart of the container, and the image's health check turns healthy."""

from __future__ import annotations

import asyncio
import time

import nats
import pytest
from nats.js.api import StreamConfig
from testcontainers.community.nats import NatsContainer
from testcontainers.core.config import testcontainers_config

from frontier.ops.stack import free_port

from .support import NATS_IMAGE, host_network

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]

SECOND = 1_000_000_000  # Docker's health check durations are in nanoseconds


def _container(monkeypatch: pytest.MonkeyPatch) -> tuple[NatsContainer, str | None]:
    """The container, and its client URL where it is known before start (host network)."""
    # Ryuk, testcontainers' reaper, is an image from a registry; `with` removes ours instead.
    monkeypatch.setattr(testcontainers_config, "ryuk_disabled", True)
    container = NatsContainer(NATS_IMAGE)
    healthcheck = {"test": ["CMD", "nats-healthcheck"], "interval": SECOND, "retries": 30}
    if not host_network():
        container.with_kwargs(healthcheck=healthcheck)
        return container, None
    port = free_port()
    container.with_env("NATS_HOST", "127.0.0.1").with_env("NATS_PORT", str(port))
    container.with_env("NATS_HTTP_PORT", str(free_port()))
    container.with_kwargs(network_mode="host", healthcheck=healthcheck)
    container.ports = {}  # nothing to publish with the host's network
    return container, f"nats://127.0.0.1:{port}"


async def _publish(url: str, count: int) -> list[int]:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        js = nc.jetstream()
        await js.add_stream(StreamConfig(name="IMAGE_TEST", subjects=["image.test"]))
        return [(await js.publish("image.test", f"m{i}".encode())).seq for i in range(count)]
    finally:
        await nc.close()


async def _read(url: str) -> list[bytes]:
    deadline = time.monotonic() + 30
    while True:  # the restarted server may not listen yet
        try:
            nc = await nats.connect(url, connect_timeout=2, max_reconnect_attempts=0)
            break
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)
    try:
        js = nc.jetstream()
        info = await js.stream_info("IMAGE_TEST")
        return [
            (await js.get_msg("IMAGE_TEST", seq)).data or b""
            for seq in range(1, info.state.messages + 1)
        ]
    finally:
        await nc.close()


async def test_jetstream_store_survives_a_restart_and_the_image_is_healthy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    container, url = _container(monkeypatch)
    with container:
        url = url or container.nats_uri()
        assert await _publish(url, 3) == [1, 2, 3]
        wrapped = container.get_wrapped_container()
        wrapped.restart(timeout=10)
        if not host_network():  # a restart may publish other host ports
            url = container.nats_uri()
        assert await _read(url) == [b"m0", b"m1", b"m2"]
        deadline = time.monotonic() + 60
        while (status := _health(wrapped)) != "healthy":
            assert time.monotonic() < deadline, f"health: {status}"
            time.sleep(1)
        assert wrapped.attrs["Config"]["User"] == "frontier"  # not root


def _health(container: object) -> str:
    container.reload()  # type: ignore[attr-defined]
    state = container.attrs["State"]  # type: ignore[attr-defined]
    return str(state.get("Health", {}).get("Status", "none"))
