"""Quick restarts of nats-server or a domain service under play: play resumes, nothing is
lost or applied twice, and a NATS request whose connection died is told at once.

How soon play resumes is measured by ``frontier bench recovery`` (docs/performance.md); these
tests assert no times.  What they assert instead:

* a JetStream request (the commit path's publish, and nats-py's own requests) still waiting
  for its answer when the connection to nats-server is lost fails then with
  :class:`frontier.runtime.answers.ConnectionLost` -- an unknown outcome, as a timeout is --
  (nats-py's own requests: with its timeout error, which ConnectionLost is one of) rather
  than waiting out its timeout (here ten minutes, far beyond the test's bound); the
  batch published again once the server is back is in the stream exactly once.
* a match played through several sub-second nats-server restarts, and through several
  restarts of a domain service, ends with every acknowledged command's events in the stream
  once, in order, equal to the engine's.
"""

from __future__ import annotations

import asyncio
import functools
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import grpc
import nats.errors
import pytest

from frontier.ops.stack import Stack
from frontier.runtime.answers import ConnectionLost
from frontier.runtime.bus import Bus
from frontier.runtime.errors import NATS_UNREACHABLE
from frontier.v1 import events_pb2, match_pb2, match_pb2_grpc

from .client import MIRROR, Match
from .stream_check import check_stream
from .test_jetstream_startup import Nats

pytestmark = pytest.mark.integration

T = TypeVar("T")
NEVER_S = 600.0  # a JetStream timeout no step of these tests may wait out
BOUND_S = 60.0  # the generous bound on each wait


def _batch(match_id: str) -> events_pb2.EventBatch:
    batch = events_pb2.EventBatch(match_id=match_id, command_id="c1")
    batch.envelopes.add(match_id=match_id, seq=1, state_version=1)
    return batch


async def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + BOUND_S
    while not condition():
        assert time.monotonic() < deadline, "the condition did not hold within the bound"
        await asyncio.sleep(0.01)


def _stopped(pid: int) -> bool:
    """Every thread of ``pid`` is stopped.  SIGSTOP is delivered asynchronously: a thread of
    nats-server still running on the other core could answer a request sent just after
    ``os.kill`` returned, and the request would not be in flight when the server dies."""
    states = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            states.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
        except FileNotFoundError:  # a thread that ended meanwhile
            continue
    return all(state in ("T", "t") for state in states)


async def test_requests_in_flight_when_nats_dies_fail_at_once_and_the_retry_lands_once(
    jetstream_server: Nats,
) -> None:
    bus = await Bus.connect(jetstream_server.url, timeout_s=NEVER_S)
    try:
        batch = _batch("healing")
        proc = jetstream_server.proc
        assert proc is not None
        sent = bus.nc.stats["out_msgs"]
        # stopped, the server reads nothing: both requests stay unanswered ...
        os.kill(proc.pid, signal.SIGSTOP)
        await _until(lambda: _stopped(proc.pid))
        publishing = asyncio.ensure_future(bus.publish_batch(batch, 0))
        reading = asyncio.ensure_future(bus.last_stream_seq("healing"))
        await _until(lambda: bus.nc.stats["out_msgs"] >= sent + 2)
        # ... until it dies and comes back: both fail as the connection is lost
        proc.kill()
        proc.wait()
        jetstream_server.start(jetstream=True)
        with pytest.raises(ConnectionLost):
            await asyncio.wait_for(publishing, BOUND_S)
        # nats-py raises its own timeout for its request (ConnectionLost is one)
        with pytest.raises(nats.errors.TimeoutError):
            await asyncio.wait_for(reading, BOUND_S)
        # what the commit path does next: the same batch again, until NATS answers
        seq = await _settle(lambda: bus.publish_batch(batch, 0))
        assert await _settle(lambda: bus.publish_batch(batch, 0)) == seq  # a duplicate
        stored = await bus.read_batches("healing")
        assert [(s.stream_seq, s.batch) for s in stored] == [(seq, batch)]
    finally:
        await bus.close()


async def _settle(publish: Callable[[], object]) -> int:
    """``publish()`` again after each unknown outcome (JetStream still starting)."""
    deadline = time.monotonic() + BOUND_S
    while True:
        try:
            return await asyncio.wait_for(publish(), BOUND_S)  # type: ignore[arg-type]
        except NATS_UNREACHABLE:
            assert time.monotonic() < deadline, "JetStream did not answer within the bound"
            await asyncio.sleep(0.05)


def _retry(call: Callable[[], T]) -> T:
    """``call()`` again after UNAVAILABLE or DEADLINE_EXCEEDED (same request, same id)."""
    deadline = time.monotonic() + BOUND_S
    while True:
        try:
            return call()
        except grpc.RpcError as exc:
            retryable = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
            if exc.code() not in retryable or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class Player(threading.Thread):
    """Plays one match to its end, each failed call sent again unchanged."""

    def __init__(self, address: str, seed: int) -> None:
        super().__init__(daemon=True)
        self.address, self.seed = address, seed
        self.commands = 0
        self.match: Match | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with grpc.insecure_channel(self.address) as channel:
                stub = match_pb2_grpc.MatchServiceStub(channel)
                match = self.match = _retry(lambda: Match.create(stub, self.seed, MIRROR))
                while match.to_act is not None:
                    options = _retry(match.legal)
                    legal_id = options[self.commands % len(options)].id
                    _retry(functools.partial(match.submit, legal_id, uuid.uuid4().hex))
                    self.commands += 1
        except BaseException as exc:  # the test reports it
            self.error = exc


def _reached(player: Player, commands: int) -> bool:
    return player.commands >= commands or not player.is_alive()


@pytest.mark.parametrize("victim", ["nats", "map"])
async def test_play_goes_on_through_quick_restarts_losing_and_doubling_nothing(
    own_stack: Stack, victim: str
) -> None:
    address = own_stack.config.address("orchestrator")
    player = Player(address, 23)
    player.start()
    for after in (10, 30, 50):
        await _until(functools.partial(_reached, player, after))
        if not player.is_alive():
            break
        own_stack.kill(victim)
        if victim == "nats":
            await asyncio.sleep(0.2)  # a sub-second restart
        await asyncio.to_thread(own_stack.restart, victim)
    await asyncio.to_thread(player.join, 240)
    assert not player.is_alive() and player.error is None, player.error
    assert player.commands > 50, "the match ended before every restart was made"
    match = player.match
    assert match is not None
    events = await check_stream(own_stack.config.nats_url, match.match_id, 23, MIRROR)
    with grpc.insecure_channel(address) as channel:
        view = (
            match_pb2_grpc.MatchServiceStub(channel)
            .GetView(match_pb2.GetViewRequest(match_id=match.match_id))
            .view
        )
    assert view.version == events == match.version
