"""A service that starts before JetStream answers waits for it (FRONTIER_NATS_STARTUP_WAIT_S).

Why this is tested: CI once saw the map service of the three-node compose cluster exit with
"nats: timeout" on its first stream request, because the cluster had not elected its
JetStream leader yet, and the whole stack's start failed with it.  Here a real nats-server
first runs without JetStream (every JetStream request goes unanswered, as in a cluster with
no leader), then is restarted on the same port with JetStream, while the bus keeps trying.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from frontier.ops.stack import _wait_port, free_port, nats_server_binary
from frontier.runtime.bus import Bus

pytestmark = pytest.mark.integration


class Nats:
    """One nats-server on a fixed port that can be restarted with or without JetStream."""

    def __init__(self, tmp_path: Path) -> None:
        self.port = free_port()
        self.store = tmp_path / "js"
        self.log = tmp_path / "nats.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self, jetstream: bool) -> None:
        args = [nats_server_binary(), "-a", "127.0.0.1", "-p", str(self.port)]
        if jetstream:
            args += ["-js", "-sd", str(self.store)]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=log)
        _wait_port("127.0.0.1", self.port, 30, self.proc, "nats-server")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


@pytest.fixture
def nats_server(tmp_path: Path) -> Iterator[Nats]:
    server = Nats(tmp_path)
    try:
        yield server
    finally:
        server.stop()


async def test_a_service_started_before_jetstream_waits_for_it(nats_server: Nats) -> None:
    nats_server.start(jetstream=False)

    async def run() -> tuple[bool, str]:
        connecting = asyncio.create_task(
            Bus.connect(nats_server.url, timeout_s=0.5, startup_wait_s=60)
        )
        await asyncio.sleep(1.5)  # several unanswered attempts
        waited = not connecting.done()
        nats_server.stop()
        nats_server.start(jetstream=True)
        bus = await asyncio.wait_for(connecting, 60)
        try:
            info = await bus.js.stream_info(bus.stream)
            return waited, str(info.config.name)
        finally:
            await bus.close()

    waited, stream = await run()
    assert waited, "the bus gave up (or succeeded) while JetStream could not answer"
    assert stream == "FRONTIER_EVENTS"


async def test_jetstream_that_never_answers_is_a_clear_error_after_the_wait(
    nats_server: Nats,
) -> None:
    nats_server.start(jetstream=False)

    async def run() -> str:
        with pytest.raises(RuntimeError) as caught:
            await Bus.connect(nats_server.url, timeout_s=0.3, startup_wait_s=1.0)
        return str(caught.value)

    message = await run()
    assert "JetStream did not answer within 1 s" in message
