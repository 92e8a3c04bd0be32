"""The search bot as a remote bot process: ``frontier bot --kind search`` plays a whole match
through BotService with only the seat's view and legal commands, within the match clock."""

from __future__ import annotations

import pytest

from frontier.engine import Seat
from frontier.ops.stack import Stack
from frontier.v1 import match_pb2, match_pb2_grpc

from .bot_helpers import bot_processes, create, replay
from .stream_check import stored_batches

pytestmark = pytest.mark.integration


async def test_frontier_bot_kind_search_plays_within_the_clock(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    """Search on A1, random on B1; a 500 ms budget gives the search about 150 ms a decision."""
    match = create(match_stub, seed=41, max_rounds=1, decision_budget_ms=500, reserve_ms=30_000)
    address = stack.config.address("orchestrator")
    kinds = {seat: "search" if seat is Seat.A1 else "random" for seat in match.tokens}
    outputs = bot_processes(address, match, kinds, timeout=180)
    view = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    searcher = outputs[Seat.A1]
    assert searcher["winner"] == view.winner and searcher["decisions"] > 0
    assert searcher["strikes"] == 0 and searcher["rejected"] == 0
    states = [
        after
        for *_, after in replay(
            match.config, await stored_batches(stack.config.nats_url, match.match_id)
        )
    ]
    assert states[-1].over
