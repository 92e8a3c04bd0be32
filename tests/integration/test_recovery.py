"""Failures: SIGKILL the orchestrator or a domain service mid-match; nothing is lost or doubled."""

from __future__ import annotations

import functools
import threading
import time
import uuid
from collections.abc import Callable
from typing import TypeVar

import grpc
import pytest

from frontier.engine import Seat
from frontier.ops.stack import Stack
from frontier.v1 import match_pb2, match_pb2_grpc
from frontier.wire.convert import enum_from_proto

from .client import MIRROR, Match
from .stream_check import check_stream

pytestmark = pytest.mark.integration

T = TypeVar("T")


def _play_with_retries(address: str, seed: int, stop_after: threading.Event) -> Match:
    """Plays to the end; a failed submit is retried with the SAME command id."""
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        match = _retry(lambda: Match.create(stub, seed, MIRROR))
        n = 0
        while match.to_act is not None:
            options = _retry(match.legal)
            submit = functools.partial(match.submit, options[n % len(options)].id, uuid.uuid4().hex)
            _retry(submit)
            n += 1
            if n == 25:
                stop_after.set()
        return match


def _retry(call: Callable[[], T]) -> T:
    deadline = time.monotonic() + 60
    while True:
        try:
            return call()
        except grpc.RpcError as exc:
            if exc.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.mark.parametrize("victim", ["orchestrator", "turn_order", "map"])
async def test_sigkill_mid_match_loses_and_doubles_nothing(own_stack: Stack, victim: str) -> None:
    address = own_stack.config.address("orchestrator")
    midway = threading.Event()
    result: dict[str, Match] = {}
    player = threading.Thread(
        target=lambda: result.setdefault("match", _play_with_retries(address, 21, midway))
    )
    player.start()
    assert midway.wait(60)
    own_stack.kill(victim)
    time.sleep(0.5)  # the player keeps trying (and failing) meanwhile
    own_stack.restart(victim)
    player.join(240)
    assert not player.is_alive()
    match = result["match"]
    events = await check_stream(own_stack.config.nats_url, match.match_id, 21, MIRROR)
    with grpc.insecure_channel(address) as channel:
        view = (
            match_pb2_grpc.MatchServiceStub(channel)
            .GetView(match_pb2.GetViewRequest(match_id=match.match_id))
            .view
        )
    assert view.version == events == match.version
    assert view.winner


def test_restarted_orchestrator_answers_retries_from_the_stream(own_stack: Stack) -> None:
    """A command accepted just before a crash is not applied again when retried after it."""
    address = own_stack.config.address("orchestrator")
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        match = Match.create(stub, 22, MIRROR)
        for _ in range(11):
            match.step()
        seat = match.to_act  # command ids belong to their seat: the retry comes from it
        assert seat is not None
        last_legal = match.legal()[0].id
        first = match.submit(last_legal)
        last_id = match.submitted[-1]
        own_stack.kill("orchestrator")
        own_stack.restart("orchestrator")
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        before = stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
        assert before.version == match.version
        again = stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match.match_id,
                seat_token=match.tokens[seat],
                command_id=last_id,
                legal_id=last_legal,
            )
        )
        assert again.version == match.version
        assert (again.to_act, list(again.events)) == (first.to_act, list(first.events))
        after = stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
        assert after.version == match.version
        assert enum_from_proto(Seat, after.to_act) is match.to_act
