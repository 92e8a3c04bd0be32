"""Several orchestrators share matches through leases; SIGKILL the owner, the other takes over."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from frontier.ops.stack import Stack, StackConfig
from frontier.orchestrator.leases import Leases
from frontier.play.load import ROUND_ROBIN, MatchRun, play_match
from frontier.runtime.bus import Bus
from frontier.v1 import match_pb2, match_pb2_grpc

from .client import MIRROR
from .stream_check import check_stream

pytestmark = pytest.mark.integration

DEFAULT = "A=marquise,eyrie,thief;B=marquise,alliance,tinker"  # long enough to kill mid-way


@pytest.fixture
def two_orchestrators(tmp_path: Path) -> Iterator[Stack]:
    config = StackConfig.ephemeral(
        tmp_path, orchestrators=2, extra_env={"FRONTIER_LEASE_TTL_S": "1.5"}
    )
    with Stack(config) as stack:
        yield stack


def test_any_orchestrator_serves_any_match(two_orchestrators: Stack) -> None:
    config = two_orchestrators.config
    with (
        grpc.insecure_channel(config.address("orchestrator")) as a,
        grpc.insecure_channel(config.address("orchestrator-2")) as b,
    ):
        stub_a = match_pb2_grpc.MatchServiceStub(a)
        stub_b = match_pb2_grpc.MatchServiceStub(b)
        created = stub_a.CreateMatch(
            match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(seed=4, lineup=MIRROR))
        )
        # the match lives on A; B answers for it by forwarding
        via_a = stub_a.GetView(match_pb2.GetViewRequest(match_id=created.match_id)).view
        via_b = stub_b.GetView(match_pb2.GetViewRequest(match_id=created.match_id)).view
        assert via_a == via_b
        token = created.seats[0].token
        legal = stub_b.ListLegalCommands(
            match_pb2.ListLegalCommandsRequest(match_id=created.match_id, seat_token=token)
        )
        reply = stub_b.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=created.match_id,
                seat_token=token,
                command_id="c1",
                legal_id=legal.commands[0].id,
            )
        )
        assert reply.version > 0
        listed = stub_b.ListMatches(match_pb2.ListMatchesRequest()).matches
        assert [m.version for m in listed if m.match_id == created.match_id] == [reply.version]


async def test_sigkill_the_owner_and_the_other_orchestrator_takes_over(
    two_orchestrators: Stack,
) -> None:
    config = two_orchestrators.config
    runs: list[MatchRun] = []

    async def play() -> None:
        async with grpc.aio.insecure_channel(
            config.orchestrator_target, options=ROUND_ROBIN
        ) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            tasks = [asyncio.ensure_future(play_match(stub, s, DEFAULT)) for s in (31, 32, 33)]
            runs.extend(await asyncio.gather(*tasks))

    player = asyncio.ensure_future(play())
    # Kill the owner of a match that is under way: no guessing from timing.  The blocking
    # calls go to a thread, so the matches play on meanwhile
    victim_match = await asyncio.to_thread(_a_match_in_progress, config.address("orchestrator-2"))
    owner = await _owner_address(config.nats_url, victim_match)
    victim = next(n for n in config.orchestrator_names if config.address(n) == owner)
    await asyncio.to_thread(two_orchestrators.kill, victim)
    await asyncio.wait_for(player, 300)
    assert len(runs) == 3 and all(r.winner for r in runs)
    assert sum(r.retries for r in runs) > 0  # the failure was really felt
    for run in runs:
        await check_stream(config.nats_url, run.match_id, run.seed, DEFAULT)


def _a_match_in_progress(address: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        while time.monotonic() < deadline:
            for m in stub.ListMatches(match_pb2.ListMatchesRequest()).matches:
                if m.version >= 30 and not m.winner:
                    return m.match_id
            time.sleep(0.05)
    raise TimeoutError("no match got under way")


async def _owner_address(nats_url: str, match_id: str) -> str:
    bus = await Bus.connect(nats_url)
    try:
        leases = Leases(await bus.leases_bucket(), "test-reader", "", ttl_s=1.0)
        lease = await leases.get(match_id)
        assert lease is not None
        return lease.address
    finally:
        await bus.close()
