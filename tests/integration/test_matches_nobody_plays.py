"""Matches nobody plays: the idle timeout, the cap on hosted matches, ListMatches paging and
the stream's retention (everything is kept: a finished match can always be exported).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from frontier.ops.stack import Stack, StackConfig
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc

from .client import MIRROR, Match
from .stream_check import stored_batches

pytestmark = pytest.mark.integration

IDLE_S = 1.5
CAP = 3


@pytest.fixture
def idle_stack(tmp_path: Path) -> Iterator[Stack]:
    env = {
        "FRONTIER_IDLE_TIMEOUT_S": str(IDLE_S),
        "FRONTIER_MAX_MATCHES": str(CAP),
        "FRONTIER_FINISHED_TTL_S": "0.3",
    }
    with Stack(StackConfig.ephemeral(tmp_path, extra_env=env)) as running:
        yield running


def _status(stub: match_pb2_grpc.MatchServiceStub, match_id: str) -> int:
    listed = stub.ListMatches(match_pb2.ListMatchesRequest(page_size=1000)).matches
    return next(m.status for m in listed if m.match_id == match_id)


def _wait_status(stub: match_pb2_grpc.MatchServiceStub, match_id: str, status: int) -> None:
    deadline = time.monotonic() + 20 * IDLE_S
    while _status(stub, match_id) != status:
        assert time.monotonic() < deadline, f"{match_id} never got status {status}"
        time.sleep(0.1)


async def test_idle_matches_end_abandoned_and_free_their_place(idle_stack: Stack) -> None:
    with grpc.insecure_channel(idle_stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        played = Match.create(stub, 1, MIRROR)
        played.step()
        others = [Match.create(stub, seed, MIRROR) for seed in (2, 3)]
        with pytest.raises(grpc.RpcError) as full:
            Match.create(stub, 4, MIRROR)
        assert full.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "FRONTIER_MAX_MATCHES" in (full.value.details() or "")
        assert reason_in(full.value.trailing_metadata()) == "TOO_MANY_MATCHES"
        assert _status(stub, played.match_id) == match_pb2.MATCH_STATUS_IN_PROGRESS
        _wait_status(stub, played.match_id, match_pb2.MATCH_STATUS_ABANDONED)
        for other in others:
            _wait_status(stub, other.match_id, match_pb2.MATCH_STATUS_ABANDONED)
        # recorded in the stream: the last batch says so, and has no events
        batches = await stored_batches(idle_stack.config.nats_url, played.match_id)
        assert batches[-1].abandoned and not batches[-1].envelopes
        assert not any(b.abandoned for b in batches[:-1])
        # an abandoned match takes no command, and leaves room for a new one
        with pytest.raises(grpc.RpcError) as refused:
            played.step()
        assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert "abandoned" in (refused.value.details() or "")
        assert reason_in(refused.value.trailing_metadata()) == "MATCH_ABANDONED"
        assert Match.create(stub, 5, MIRROR).match_id
        # after a restart the match is still abandoned (read back from the stream)
        idle_stack.kill("orchestrator")
        idle_stack.restart("orchestrator")
    with grpc.insecure_channel(idle_stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        assert _status(stub, played.match_id) == match_pb2.MATCH_STATUS_ABANDONED
        replay = stub.ExportReplay(match_pb2.ExportReplayRequest(match_id=played.match_id))
        assert '"abandoned": true' in replay.json


def test_list_matches_pages_and_filters(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    created = {Match.create(match_stub, seed, MIRROR).match_id for seed in range(60, 65)}
    seen: list[str] = []
    token = ""
    while True:
        page = match_stub.ListMatches(match_pb2.ListMatchesRequest(page_size=2, page_token=token))
        assert len(page.matches) <= 2
        seen.extend(m.match_id for m in page.matches)
        token = page.next_page_token
        if not token:
            break
    assert seen == sorted(set(seen)) and created <= set(seen)
    running = match_stub.ListMatches(
        match_pb2.ListMatchesRequest(page_size=1000, status=match_pb2.MATCH_STATUS_IN_PROGRESS)
    ).matches
    assert created <= {m.match_id for m in running}
    assert all(m.status == match_pb2.MATCH_STATUS_IN_PROGRESS for m in running)
    with pytest.raises(grpc.RpcError) as bad:
        match_stub.ListMatches(match_pb2.ListMatchesRequest(page_token="not a token"))
    assert bad.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_a_finished_match_is_kept_and_exported_after_it_left_memory(idle_stack: Stack) -> None:
    address = idle_stack.config.address("orchestrator")
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        match = Match.create(stub, 66, MIRROR)
        match.play_out()
        request = match_pb2.ExportReplayRequest(match_id=match.match_id)
        before = stub.ExportReplay(request).json
        finished = match_pb2.ListMatchesRequest(
            page_size=1000, status=match_pb2.MATCH_STATUS_FINISHED
        )
        assert match.match_id in {m.match_id for m in stub.ListMatches(finished).matches}
        time.sleep(3 * IDLE_S)  # a finished match is never abandoned
        assert _status(stub, match.match_id) == match_pb2.MATCH_STATUS_FINISHED
        # retention: the stream keeps every batch; a restart forgets everything in memory
        idle_stack.kill("orchestrator")
        idle_stack.restart("orchestrator")
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        assert stub.ExportReplay(request, timeout=10).json == before
