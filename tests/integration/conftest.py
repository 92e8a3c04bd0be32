"""Fixtures that run the real server: nats-server and every service as processes on loopback."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from frontier.bench.campaign_bots import NODE_BOT_DIR
from frontier.ops.stack import Stack, StackConfig
from frontier.v1 import match_pb2_grpc

from .test_jetstream_startup import Nats


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One shared stack for tests that do not kill processes."""
    config = StackConfig.ephemeral(tmp_path_factory.mktemp("stack"), sync="always")
    with Stack(config) as running:
        yield running


@pytest.fixture
def own_stack(tmp_path: Path) -> Iterator[Stack]:
    """A stack of its own, for tests that kill and restart processes."""
    config = StackConfig.ephemeral(tmp_path, sync="always")
    with Stack(config) as running:
        yield running


@pytest.fixture
def match_stub(stack: Stack) -> Iterator[match_pb2_grpc.MatchServiceStub]:
    with grpc.insecure_channel(stack.config.address("orchestrator")) as channel:
        yield match_pb2_grpc.MatchServiceStub(channel)


@pytest.fixture
def jetstream_server(tmp_path: Path) -> Iterator[Nats]:
    """One nats-server with JetStream, alone (no services), that a test may restart."""
    server = Nats(tmp_path)
    server.start(jetstream=True)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def node() -> str:
    """The `node` binary, with bots/node's dependencies installed; skips without Node.js."""
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed: the Node.js bot cannot run here")
    if not (NODE_BOT_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        if shutil.which("npm") is None:
            pytest.skip("npm is not installed: cannot install bots/node's dependencies")
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=NODE_BOT_DIR,
            check=True,
            timeout=300,
        )
    return found
