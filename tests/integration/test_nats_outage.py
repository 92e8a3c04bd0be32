"""With NATS unreachable every call answers UNAVAILABLE in time, and a retried command settles.

nats-server is stopped with SIGSTOP (it keeps its connections, and answers nothing), the
calls that need it are made, then it is resumed.  What a client sees: UNAVAILABLE with a
message telling it to retry with the same command id, within the server's call timeout;
the retry then tells it whether the command was applied, and it is applied exactly once.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest

from frontier.ops.stack import Stack, StackConfig
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc

from .client import MIRROR, Match
from .stream_check import stored_batches

pytestmark = pytest.mark.integration

CALL_TIMEOUT_S = 1.5
CLIENT_DEADLINE_S = 30.0


@pytest.fixture
def quick_stack(tmp_path: Path) -> Iterator[Stack]:
    config = StackConfig.ephemeral(
        tmp_path, sync="always", extra_env={"FRONTIER_CALL_TIMEOUT_S": str(CALL_TIMEOUT_S)}
    )
    with Stack(config) as running:
        yield running


def _code(call: Callable[[], object]) -> tuple[grpc.StatusCode, str, str]:
    try:
        call()
    except grpc.RpcError as exc:
        return exc.code(), exc.details() or "", reason_in(exc.trailing_metadata())
    return grpc.StatusCode.OK, "", ""


def _once_writable(call: Callable[[], match_pb2.SubmitCommandResponse]) -> Any:
    """``call``'s answer, retried while the orchestrator still reports its write path down
    (WRITE_PATH_DOWN: its probe has not yet seen NATS back), as a client retries."""
    deadline = time.monotonic() + CLIENT_DEADLINE_S
    while True:
        try:
            return call()
        except grpc.RpcError as exc:
            down = reason_in(exc.trailing_metadata()) == "WRITE_PATH_DOWN"
            if not down or time.monotonic() > deadline:
                raise
        time.sleep(0.1)


async def test_nats_outage_answers_unavailable_and_the_retry_settles(quick_stack: Stack) -> None:
    address = quick_stack.config.address("orchestrator")
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        match = Match.create(stub, 5, MIRROR)
        assert match.to_act is not None
        legal_id = match.legal()[0].id
        submit = match_pb2.SubmitCommandRequest(
            match_id=match.match_id,
            seat_token=match.tokens[match.to_act],
            command_id=uuid.uuid4().hex,
            expected_version=0,
            legal_id=legal_id,
        )
        calls = {
            "SubmitCommand": lambda: stub.SubmitCommand(submit, timeout=CLIENT_DEADLINE_S),
            "CreateMatch": lambda: stub.CreateMatch(
                match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(lineup=MIRROR)),
                timeout=CLIENT_DEADLINE_S,
            ),
            "ListMatches": lambda: stub.ListMatches(
                match_pb2.ListMatchesRequest(), timeout=CLIENT_DEADLINE_S
            ),
            "GetView": lambda: stub.GetView(
                match_pb2.GetViewRequest(match_id=uuid.uuid4().hex), timeout=CLIENT_DEADLINE_S
            ),
        }
        nats = quick_stack.procs["nats"].pid
        os.kill(nats, signal.SIGSTOP)
        try:
            with ThreadPoolExecutor(len(calls)) as pool:
                futures = {name: pool.submit(_code, call) for name, call in calls.items()}
                answers = {name: f.result() for name, f in futures.items()}
        finally:
            os.kill(nats, signal.SIGCONT)
        # "in time": UNAVAILABLE from the server, not DEADLINE_EXCEEDED from the client's
        # own generous deadline (CLIENT_DEADLINE_S, many times the server's call timeout)
        for name, (code, details, reason) in answers.items():
            assert reason in ("NATS_UNAVAILABLE", "NOT_SETTLED", "WRITE_PATH_DOWN"), (name, reason)
            assert code is grpc.StatusCode.UNAVAILABLE, (name, code, details)
            assert "retry" in details, (name, details)
        assert "same command id" in answers["SubmitCommand"][1]
        # the retry with the same id settles it: applied once, with the first result
        first = _once_writable(lambda: stub.SubmitCommand(submit, timeout=CLIENT_DEADLINE_S))
        again = stub.SubmitCommand(submit, timeout=CLIENT_DEADLINE_S)
        assert first == again
        assert first.version > 0
    batches = await stored_batches(quick_stack.config.nats_url, match.match_id)
    assert [b.command_id for b in batches] == [submit.command_id]
