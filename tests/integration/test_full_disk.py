"""A full JetStream store is visible (health, metric, a fast UNAVAILABLE) and the match goes on
once space is freed, with no restart of nats-server or of any service.

nats-server's store is a small tmpfs of its own; the test fills it with a file of its own
while a match is played, so that JetStream fails to write ("no space left on device").
nats-server then refuses every write to a stream whose store failed until JetStream is
enabled again; freeing the space is not enough.  The test does what the runbook
(docs/operations.md, "Write path down") tells an operator: delete what filled the disk,
then reload nats-server's configuration with JetStream disabled and again enabled (a
reload, not a restart: the process, its connections and its clients stay).  The
orchestrator notices by itself (its probe) and takes commands again.

Needs root (mount); skipped elsewhere, failed instead under FRONTIER_REQUIRE_ROOT=1 (CI).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import nats
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from frontier.engine import Seat
from frontier.ops.stack import Stack, StackConfig
from frontier.orchestrator.write_path import WRITE_HEALTH
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc
from frontier.wire.convert import enum_from_proto

from .bot_helpers import wait_for, wait_until
from .client import MIRROR, Match
from .stream_check import stored_batches
from .test_metrics import scrape, total

pytestmark = pytest.mark.integration

STORE_MIB = 16
CALL_TIMEOUT_S = 1.5
Status = health_pb2.HealthCheckResponse


def _unusable(problem: str) -> None:
    if os.environ.get("FRONTIER_REQUIRE_ROOT") == "1":
        pytest.fail(f"FRONTIER_REQUIRE_ROOT=1 but {problem}")
    pytest.skip(problem)


@pytest.fixture
def small_store(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path/jetstream`` (where the stack's nats-server keeps its store) on a tmpfs."""
    store = tmp_path / "jetstream"
    store.mkdir()
    if os.geteuid() != 0:
        _unusable("mounting a tmpfs for the JetStream store needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={STORE_MIB}m", "tmpfs", str(store)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        _unusable(f"cannot mount a tmpfs: {mounted.stderr.strip()}")
    try:
        yield store
    finally:
        subprocess.run(["umount", "-l", str(store)], check=False)


@pytest.fixture
def full_disk_stack(tmp_path: Path, small_store: Path) -> Iterator[Stack]:
    config = StackConfig.ephemeral(
        tmp_path, sync="always", extra_env={"FRONTIER_CALL_TIMEOUT_S": str(CALL_TIMEOUT_S)}
    )
    with Stack(config) as running:
        yield running


def _fill(directory: Path) -> Path:
    """A file that takes every free byte of ``directory``'s file system."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for size in (1 << 20, 1 << 12, 1):
            with contextlib.suppress(OSError):  # ENOSPC: on to smaller pieces
                while os.write(fd, b"\0" * size):
                    pass
    finally:
        os.close(fd)
    return filler


def _write_health(channel: grpc.Channel, service: str = WRITE_HEALTH) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    request = health_pb2.HealthCheckRequest(service=service)
    return int(stub.Check(request, timeout=10).status)  # type: ignore[attr-defined]


def _sync(match: Match) -> None:
    """Read where the match is (after a command whose answer was lost)."""
    view = match.stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    match.version = view.version
    match.to_act = enum_from_proto(Seat, view.to_act) if view.to_act else None


def _try_step(match: Match, acknowledged: list[str]) -> grpc.RpcError | None:
    """One command of the seat to act; its id is kept once acknowledged."""
    command_id = uuid.uuid4().hex
    try:
        match.submit(match.legal()[0].id, command_id)
    except grpc.RpcError as exc:
        return exc
    acknowledged.append(command_id)
    return None


async def _reload_jetstream(stack: Stack) -> None:
    """The runbook's step: JetStream disabled, then enabled, by two configuration reloads."""
    conf = stack.config.workdir / "nats.conf"
    enabled = conf.read_text()
    pid = stack.procs["nats"].pid
    conf.write_text(enabled.replace("jetstream {", "jetstream {\n  enabled: false", 1))
    os.kill(pid, signal.SIGHUP)
    nc = await nats.connect(stack.config.nats_url)
    try:
        js = nc.jetstream(timeout=2)

        async def disabled() -> bool:
            try:
                await js.account_info()
            except Exception:  # no responders, or "JetStream not enabled"
                return True
            return False

        await wait_for(disabled)
    finally:
        await nc.close()
    conf.write_text(enabled)
    os.kill(pid, signal.SIGHUP)


async def test_a_full_store_is_reported_and_the_match_goes_on_once_space_is_freed(
    full_disk_stack: Stack, small_store: Path
) -> None:
    stack = full_disk_stack
    nats_pid = stack.procs["nats"].pid
    acknowledged: list[str] = []
    with grpc.insecure_channel(stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        match = Match.create(stub, 7, MIRROR)
        for _ in range(5):
            assert _try_step(match, acknowledged) is None
        assert _write_health(channel) == Status.SERVING
        assert total(scrape(stack, "orchestrator"), "frontier_write_path_up") == 1

        filler = _fill(small_store)
        failure = None
        for _ in range(200):  # a few may still fit in the store's last pages
            failure = _try_step(match, acknowledged)
            if failure is not None:
                break
        assert failure is not None, "the full store took every command"
        assert failure.code() is grpc.StatusCode.UNAVAILABLE, failure
        in_flight_at = match.version  # the failed command's publish goes on in the server

        # health and metric tell the truth; reads still serve
        wait_until(lambda: _write_health(channel) == Status.NOT_SERVING)
        assert _write_health(channel, "") == Status.SERVING
        samples = scrape(stack, "orchestrator")
        assert total(samples, "frontier_write_path_up") == 0
        assert total(samples, "frontier_write_path_failures_total") >= 1
        _sync(match)
        # a command fails at once with a reason of its own, instead of waiting for NATS
        refused = _try_step(match, acknowledged)
        assert refused is not None
        assert refused.code() is grpc.StatusCode.UNAVAILABLE
        assert reason_in(refused.trailing_metadata()) == "WRITE_PATH_DOWN"
        assert "event store" in (refused.details() or "")

        # the operator frees space and re-enables JetStream; nothing is restarted
        filler.unlink()
        await _reload_jetstream(stack)
        wait_until(lambda: _write_health(channel) == Status.SERVING, timeout=60)
        assert total(scrape(stack, "orchestrator"), "frontier_write_path_up") == 1
        assert stack.procs["nats"].pid == nats_pid and stack.procs["nats"].poll() is None
        assert all(stack.alive().values())

        # the match goes on: the command in flight when the store filled settles on its own
        def settled() -> bool:
            _sync(match)
            return match.version > in_flight_at

        wait_until(settled)
        before = match.version
        assert _try_step(match, acknowledged) is None
        assert match.version > before

    # one log line per change of state, not one per failed write
    log = (stack.logs / "orchestrator.log").read_text()
    assert log.count("write path DOWN") == 1 and log.count("write path UP again") == 1, log

    stored = [b.command_id for b in await stored_batches(stack.config.nats_url, match.match_id)]
    missing = [cid for cid in acknowledged if cid not in stored]
    assert not missing, f"acknowledged commands lost: {missing}"
    assert len(stored) == len(set(stored)), "a command was stored twice"
    assert [cid for cid in stored if cid in acknowledged] == acknowledged
