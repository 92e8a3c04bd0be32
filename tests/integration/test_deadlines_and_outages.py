"""No match ever wedges: client deadlines from 1 ms up, and NATS paused (SIGSTOP) or killed.

Each player sends every SubmitCommand with a deadline drawn from 1-60 ms and, when the
answer does not come in time (DEADLINE_EXCEEDED) or NATS is away (UNAVAILABLE), sends the
same request again with the same command id and twice the deadline, as docs/operations.md
tells clients to.  Many commands are so cancelled while the orchestrator waits for their publish,
whose outcome is then unknown.  Meanwhile nats-server is stopped with SIGSTOP and later
killed and restarted.  Every match must still finish, the orchestrator must never be
behind the stream (its view's version is the stream's last event), and each final view
must equal the view of an in-process replay of the stream.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from frontier.engine import Seat
from frontier.engine.view import view
from frontier.ops.stack import Stack
from frontier.v1 import match_pb2, match_pb2_grpc
from frontier.wire.convert import enum_from_proto

from .client import MIRROR
from .stream_check import replay_stream

pytestmark = pytest.mark.integration

RETRY = (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE)
WEDGED_AFTER_S = 60.0  # a command that gets no answer for this long: the match is wedged


@dataclass
class Campaign:
    matches: int
    pauses_s: tuple[float, ...]  # SIGSTOP durations, one after the other
    kill_s: float  # how long nats-server stays dead after SIGKILL (0: not killed)
    seed: int = 7


@dataclass
class Tally:
    commands: int = 0
    attempts: int = 0
    deadline_exceeded: int = 0
    unavailable: int = 0
    wedged: list[str] = field(default_factory=list)


async def _call(method: Any, request: Any, deadline_s: float, tally: Tally, grow: bool) -> Any:
    """``method(request)`` until it answers, retrying the same request on RETRY codes."""
    started = time.monotonic()
    while True:
        tally.attempts += 1
        try:
            return await method(request, timeout=deadline_s)
        except grpc.aio.AioRpcError as exc:
            if exc.code() not in RETRY or time.monotonic() - started > WEDGED_AFTER_S:
                raise
            if exc.code() is grpc.StatusCode.DEADLINE_EXCEEDED:
                tally.deadline_exceeded += 1
            else:
                tally.unavailable += 1
                await asyncio.sleep(0.05)
            if grow:
                deadline_s = min(deadline_s * 2, 10.0)


async def _play(stub: match_pb2_grpc.MatchServiceStub, seed: int, tally: Tally) -> str:
    rng = random.Random(seed)
    created = await _call(
        stub.CreateMatch,
        match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(seed=seed, lineup=MIRROR)),
        10.0,
        tally,
        False,
    )
    match_id: str = created.match_id
    tokens = {enum_from_proto(Seat, s.seat): s.token for s in created.seats}
    reply = await _call(
        stub.GetView, match_pb2.GetViewRequest(match_id=match_id), 10.0, tally, False
    )
    to_act, version = reply.view.to_act, reply.view.version
    try:
        while to_act:
            token = tokens[enum_from_proto(Seat, to_act)]
            legal = await _call(
                stub.ListLegalCommands,
                match_pb2.ListLegalCommandsRequest(match_id=match_id, seat_token=token),
                10.0,
                tally,
                False,
            )
            assert legal.version == version, f"{match_id}: the view is behind the stream"
            request = match_pb2.SubmitCommandRequest(
                match_id=match_id,
                seat_token=token,
                command_id=uuid.uuid4().hex,
                expected_version=version,
                legal_id=rng.choice(legal.commands).id,
            )
            answer = await _call(
                stub.SubmitCommand, request, rng.uniform(0.001, 0.060), tally, True
            )
            tally.commands += 1
            to_act, version = answer.to_act, answer.version
    except grpc.aio.AioRpcError as exc:
        tally.wedged.append(f"{match_id} at version {version}: {exc.code().name} {exc.details()}")
    return match_id


async def _outages(stack: Stack, campaign: Campaign, started: asyncio.Event) -> None:
    await started.wait()
    for pause in campaign.pauses_s:
        await asyncio.sleep(1.0)
        pid = stack.procs["nats"].pid
        os.kill(pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(pause)
        finally:
            os.kill(pid, signal.SIGCONT)
    if campaign.kill_s > 0:
        await asyncio.sleep(1.0)
        await asyncio.to_thread(stack.kill, "nats")
        await asyncio.sleep(campaign.kill_s)
        await asyncio.to_thread(stack.restart, "nats")


async def _campaign(stack: Stack, campaign: Campaign, tally: Tally) -> list[str]:
    started = asyncio.Event()
    async with grpc.aio.insecure_channel(stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)

        async def watch_progress() -> None:
            while tally.commands < 5 * campaign.matches:
                await asyncio.sleep(0.05)
            started.set()

        outages = asyncio.ensure_future(_outages(stack, campaign, started))
        progress = asyncio.ensure_future(watch_progress())
        try:
            ids = await asyncio.gather(
                *(_play(stub, campaign.seed + i, tally) for i in range(campaign.matches))
            )
            started.set()
            await outages  # the stack is whole again before the checks
        finally:
            progress.cancel()
            outages.cancel()
        return list(ids)


async def _run_campaign(stack: Stack, campaign: Campaign) -> Tally:
    tally = Tally()
    ids = await _campaign(stack, campaign, tally)
    assert tally.wedged == [], tally.wedged
    with grpc.insecure_channel(stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        for i, match_id in enumerate(ids):
            state, events = await replay_stream(
                stack.config.nats_url, match_id, campaign.seed + i, MIRROR
            )
            assert state.over, f"{match_id} did not finish"
            shown = stub.GetView(match_pb2.GetViewRequest(match_id=match_id), timeout=10).view
            assert shown.version == events, f"{match_id}: the orchestrator is behind its stream"
            assert json.loads(shown.json) == view(state, None)
    print(
        f"\ndeadline/outage campaign: {campaign.matches} matches, {tally.commands} commands, "
        f"{tally.attempts} calls, {tally.deadline_exceeded} DEADLINE_EXCEEDED, "
        f"{tally.unavailable} UNAVAILABLE, NATS paused {campaign.pauses_s} s and killed "
        f"{campaign.kill_s} s, wedged: {len(tally.wedged)}"
    )
    return tally


@pytest.mark.timeout(300)
async def test_short_deadlines_and_nats_outages_wedge_no_match(own_stack: Stack) -> None:
    tally = await _run_campaign(own_stack, Campaign(matches=8, pauses_s=(0.5, 3.0), kill_s=2.0))
    assert tally.deadline_exceeded > 0, "the deadlines were short enough to cut commands"


@pytest.mark.slow
@pytest.mark.timeout(1200)
async def test_long_deadline_and_outage_campaign(own_stack: Stack) -> None:
    await _run_campaign(
        own_stack, Campaign(matches=24, pauses_s=(0.2, 2.0, 6.0, 15.0), kill_s=15.0, seed=101)
    )
