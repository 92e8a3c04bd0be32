"""A long-running orchestrator forgets finished matches after FRONTIER_FINISHED_TTL_S, and
reloads one from NATS, whole, when somebody asks about it again."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest

from frontier.ops.stack import Stack, StackConfig
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc

from .client import Match

pytestmark = pytest.mark.integration


def _unloaded(stack: Stack, match_id: str, timeout: float = 15.0) -> bool:
    log = stack.logs / "orchestrator.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if match_id in log.read_text() and "unloaded" in log.read_text():
            return True
        time.sleep(0.1)
    return False


def test_finished_match_is_unloaded_then_served_again_from_nats(tmp_path: Path) -> None:
    config = StackConfig.ephemeral(
        tmp_path, extra_env={"FRONTIER_FINISHED_TTL_S": "0.3", "FRONTIER_LOG_LEVEL": "INFO"}
    )
    with Stack(config) as stack, grpc.insecure_channel(config.address("orchestrator")) as ch:
        stub = match_pb2_grpc.MatchServiceStub(ch)
        match = Match.create(stub, seed=4)
        match.play_out()
        before = stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
        events = list(stub.WatchEvents(match_pb2.WatchEventsRequest(match_id=match.match_id)))
        assert before.winner and len(events) == before.version
        assert _unloaded(stack, match.match_id), "the finished match was never unloaded"
        after = stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
        assert after == before
        again = list(stub.WatchEvents(match_pb2.WatchEventsRequest(match_id=match.match_id)))
        assert again == events
        # the command ids came back too: the retry of a seat's latest command gets its first
        # answer; an older one is refused as any command in an ended match, and applied to
        # nothing (an ended match keeps only each seat's latest id: docs/operations.md, "Errors")
        seat = match.sent[0][0]
        mine = [i for i, (s, _) in enumerate(match.sent) if s == seat]
        assert len(mine) >= 2, "seed 4 gives the first seat several commands"

        def resend(i: int) -> match_pb2.SubmitCommandResponse:
            request = match_pb2.SubmitCommandRequest(
                match_id=match.match_id,
                seat_token=match.tokens[seat],
                command_id=match.submitted[i],
                legal_id=match.sent[i][1],
            )
            response: match_pb2.SubmitCommandResponse = stub.SubmitCommand(request)
            return response

        latest = resend(mine[-1])
        assert 0 < latest.version <= before.version
        with pytest.raises(grpc.RpcError) as older:
            resend(mine[0])
        assert older.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_in(older.value.trailing_metadata()) == "MATCH_OVER"
        assert stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view == before
