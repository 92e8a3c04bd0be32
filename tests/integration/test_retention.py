"""FRONTIER_STREAM_MAX_AGE_S: with it a finished match can be exported until its record ages
out and is then gone (NOT_FOUND everywhere, even when reloaded from NATS); without it, a
finished match outlives a restart; and a changed setting updates the existing stream and
buckets instead of failing."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from frontier.ops.stack import Stack, StackConfig, _wait_port, free_port, nats_server_binary
from frontier.runtime.bus import MATCHES_BUCKET, SNAPSHOTS_BUCKET, STANDING_BUCKET, Bus
from frontier.v1 import match_pb2, match_pb2_grpc

from .bot_helpers import wait_for
from .client import Match

pytestmark = pytest.mark.integration

MAX_AGE_S = 5.0


def _finished_match(stub: match_pb2_grpc.MatchServiceStub, seed: int) -> tuple[str, str]:
    """Play a match out; returns its id and its replay, exported right after it ended."""
    match = Match.create(stub, seed=seed)
    match.play_out()
    replay = stub.ExportReplay(match_pb2.ExportReplayRequest(match_id=match.match_id)).json
    assert '"winner"' in replay
    return match.match_id, replay


def _listed(stub: match_pb2_grpc.MatchServiceStub) -> set[str]:
    page = stub.ListMatches(match_pb2.ListMatchesRequest(page_size=1000))
    return {summary.match_id for summary in page.matches}


def _code(call: Callable[[], object]) -> grpc.StatusCode | None:
    """The status code the call fails with, or None when it succeeds."""
    try:
        call()
    except grpc.RpcError as exc:
        return exc.code()
    return None


async def _stored(nats_url: str, match_id: str) -> bool:
    """Whether NATS still has the match's record (read without touching the retention)."""
    bus = await Bus.connect(nats_url)
    try:
        return await bus.get_match(match_id) is not None
    finally:
        await bus.close()


async def test_a_finished_match_is_gone_after_the_max_age(tmp_path: Path) -> None:
    """Judged by what NATS and the orchestrator hold, never by timing: the match is there
    once played (the max age had not removed it early), then NATS drops it (awaited, with a
    generous bound), and a restarted orchestrator no longer knows it."""
    config = StackConfig.ephemeral(
        tmp_path,
        extra_env={"FRONTIER_STREAM_MAX_AGE_S": f"{MAX_AGE_S:g}", "FRONTIER_IDLE_TIMEOUT_S": "2"},
    )
    with Stack(config) as stack:
        with grpc.insecure_channel(config.address("orchestrator")) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            match_id, _ = _finished_match(stub, seed=5)
            assert match_id in _listed(stub)
        assert await _stored(config.nats_url, match_id)

        async def aged_out() -> bool:
            return not await _stored(config.nats_url, match_id)

        # JetStream expires entries within about a second of their max age
        await wait_for(aged_out, MAX_AGE_S + 30, 0.2, "the match never aged out")
        # the orchestrator still holds it in memory (FRONTIER_FINISHED_TTL_S): a restart
        # makes it load the match from NATS again
        stack.kill("orchestrator")
        stack.restart("orchestrator")
        with grpc.insecure_channel(config.address("orchestrator")) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            view = match_pb2.GetViewRequest(match_id=match_id)
            assert _code(lambda: stub.GetView(view)) == grpc.StatusCode.NOT_FOUND
            export = match_pb2.ExportReplayRequest(match_id=match_id)
            assert _code(lambda: stub.ExportReplay(export)) == grpc.StatusCode.NOT_FOUND
            watch = match_pb2.WatchEventsRequest(match_id=match_id)
            assert _code(lambda: list(stub.WatchEvents(watch))) == grpc.StatusCode.NOT_FOUND
            assert match_id not in _listed(stub)


def test_without_a_max_age_a_finished_match_outlives_a_restart(own_stack: Stack) -> None:
    address = own_stack.config.address("orchestrator")
    with grpc.insecure_channel(address) as channel:
        match_id, replay = _finished_match(match_pb2_grpc.MatchServiceStub(channel), seed=6)
    own_stack.kill("orchestrator")
    own_stack.restart("orchestrator")
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        export = stub.ExportReplay(match_pb2.ExportReplayRequest(match_id=match_id))
        assert export.json == replay
        assert match_id in _listed(stub)


@pytest.fixture
def nats_url(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [nats_server_binary(), "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port("127.0.0.1", port, 30, proc, "nats-server")
        yield f"nats://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


async def test_a_changed_max_age_updates_the_existing_stream_and_buckets(nats_url: str) -> None:
    streams = ["FRONTIER_EVENTS"] + [
        f"KV_{name}" for name in (MATCHES_BUCKET, SNAPSHOTS_BUCKET, STANDING_BUCKET)
    ]

    async def ages(max_age_s: float | None) -> list[float]:
        bus = await Bus.connect(nats_url, max_age_s=max_age_s)
        try:
            return [(await bus.js.stream_info(s)).config.max_age or 0.0 for s in streams]
        finally:
            await bus.close()

    async def run() -> tuple[list[float], list[float], list[float], list[float]]:
        return (await ages(0.0), await ages(3600.0), await ages(None), await ages(0.0))

    created, changed, read_only, back = await run()
    assert created == [0.0] * 4
    assert changed == [3600.0] * 4
    assert read_only == [3600.0] * 4  # a reader without the setting leaves it alone
    assert back == [0.0] * 4
