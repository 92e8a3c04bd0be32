"""Many matches at once through one stack."""

from __future__ import annotations

import pytest

from frontier.ops.stack import Stack
from frontier.play.load import play_many

from .client import MIRROR
from .stream_check import check_stream

pytestmark = pytest.mark.integration


async def test_fifty_matches_at_once_all_finish_correctly(stack: Stack) -> None:
    seeds = list(range(100, 150))
    runs = await play_many([stack.config.address("orchestrator")], seeds, MIRROR)
    assert len(runs) == 50
    assert all(r.winner in {"A", "B", "draw"} for r in runs)
    assert len({r.match_id for r in runs}) == 50
    for run in runs[::10]:  # spot-check the committed streams against the engine
        assert await check_stream(stack.config.nats_url, run.match_id, run.seed, MIRROR) > 0
