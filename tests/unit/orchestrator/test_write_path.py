"""The write path's state: down on a failed write, one log line per change, health and gauge;
up again only on a write begun while it was down and stored (the probe, or a publish at its
first attempt)."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import cast

import grpc
import nats.errors
import pytest
from grpc_health.v1 import health, health_pb2
from nats.js.errors import APIError, NoStreamResponseError, ServiceUnavailableError

from frontier.engine import Seat
from frontier.orchestrator.clients import DomainClients
from frontier.orchestrator.commit import CommitPath
from frontier.orchestrator.hosted_match import HostedMatch, SubmitResult
from frontier.orchestrator.write_path import WRITE_HEALTH, WritePath, failure_reason
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError, classify
from frontier.runtime.metrics import WRITE_PATH_FAILURES, WRITE_PATH_UP
from frontier.store.snapshot import CommandResult
from frontier.v1 import events_pb2

Status = health_pb2.HealthCheckResponse


def _gauge() -> float:
    return float(WRITE_PATH_UP._value.get())


def _failures(reason: str) -> float:
    return float(WRITE_PATH_FAILURES.labels(reason)._value.get())


def test_each_failure_has_a_reason_label() -> None:
    full = ServiceUnavailableError(code=503, err_code=10023, description="insufficient resources")
    assert failure_reason(full) == "storage_full"
    assert failure_reason(ServiceUnavailableError(code=503, err_code=10008)) == (
        "jetstream_unavailable"
    )
    assert failure_reason(nats.errors.TimeoutError()) == "no_answer"
    assert failure_reason(TimeoutError()) == "no_answer"
    assert failure_reason(nats.errors.NoRespondersError()) == "jetstream_disabled"
    assert failure_reason(NoStreamResponseError()) == "jetstream_disabled"
    assert failure_reason(nats.errors.ConnectionClosedError()) == "disconnected"
    assert failure_reason(APIError(code=400, err_code=1, description="x")) == "refused"
    assert failure_reason(ValueError()) == "other"


async def test_down_on_failure_and_up_on_success_with_one_line_each(
    caplog: pytest.LogCaptureFixture,
) -> None:
    servicer = health.aio.HealthServicer()
    path = WritePath()
    await path.attach(servicer)

    async def status() -> int:
        request = health_pb2.HealthCheckRequest(service=WRITE_HEALTH)
        return int((await servicer.Check(request, None)).status)  # type: ignore[arg-type]

    assert await status() == Status.SERVING and _gauge() == 1
    path.check()  # up: no refusal
    counted = _failures("no_answer")
    with caplog.at_level(logging.INFO, logger="frontier.write_path"):
        for _ in range(5):
            await path.failed(nats.errors.TimeoutError())
        assert not path.up and path.reason == "no_answer"
        assert await status() == Status.NOT_SERVING and _gauge() == 0
        assert _failures("no_answer") == counted + 5
        with pytest.raises(ServiceError) as refused:
            path.check()
        code, message, reason = classify(refused.value)
        assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "WRITE_PATH_DOWN")
        assert "same command id" in message
        for _ in range(3):
            await path.succeeded(path.begin())
    lines = [r.getMessage() for r in caplog.records if r.name == "frontier.write_path"]
    assert len(lines) == 2, lines
    assert lines[0].startswith("write path DOWN") and "did not answer" in lines[0]
    assert lines[1].startswith("write path UP again")
    assert path.reason == "" and await status() == Status.SERVING and _gauge() == 1
    path.check()  # up again: no refusal


async def test_a_write_begun_before_the_path_went_down_does_not_bring_it_up() -> None:
    """A nearly full store may take a small write in flight while a batch fails: the path
    stays down until a write begun since is stored (no DOWN, UP, DOWN flapping)."""
    path = WritePath()
    in_flight = path.begin()  # e.g. the probe's message, sent while the path was up
    await path.failed(nats.errors.TimeoutError())
    await path.succeeded(in_flight)
    assert _gauge() == 0
    with pytest.raises(ServiceError):
        path.check()
    await path.succeeded(path.begin())
    assert _gauge() == 1
    path.check()  # up: no refusal
    again = path.begin()
    await path.failed(nats.errors.TimeoutError())
    await path.succeeded(again)  # begun while up, before the second failure
    assert _gauge() == 0
    with pytest.raises(ServiceError):
        path.check()


async def test_the_probe_brings_the_path_back_by_itself() -> None:
    outcomes: list[BaseException | None] = [nats.errors.TimeoutError(), None]
    probed = asyncio.Event()

    async def probe() -> None:
        outcome = outcomes.pop(0) if outcomes else None
        if not outcomes:
            probed.set()
        if outcome is not None:
            raise outcome

    path = WritePath(probe, interval_s=0.001, down_interval_s=0.001)
    running = asyncio.ensure_future(path.run())
    try:
        await asyncio.wait_for(probed.wait(), 30)
        await asyncio.sleep(0)
    finally:
        running.cancel()
    assert path.up and path.reason == ""


class _LandedEarlier:
    """A bus whose first publish of a batch gets no answer in time, though the batch was
    stored; the retry is answered with that stored copy (as a duplicate is)."""

    def __init__(self) -> None:
        self.calls = 0

    async def publish_batch(self, batch: events_pb2.EventBatch, expected_last_seq: int) -> int:
        self.calls += 1
        if self.calls == 1:
            raise nats.errors.TimeoutError()
        return expected_last_seq + 1


def _commit_path(bus: object, path: WritePath) -> CommitPath:
    clients = cast(DomainClients, None)  # publishing calls no domain service
    return CommitPath(cast(Bus, bus), clients, 0, lambda hosted: None, write_path=path)


async def test_a_retry_answered_with_the_copy_stored_before_does_not_bring_the_path_up() -> None:
    """A publish whose first answer never came marks the path down; its retry, answered
    with the batch an earlier attempt stored, says nothing of the store now: the path stays
    down (commands are refused at once) until the probe stores a write."""
    path = WritePath()
    bus = _LandedEarlier()
    hosted = cast(
        HostedMatch, SimpleNamespace(match_id="m", stream_seq=4, state=SimpleNamespace(version=3))
    )
    batch = events_pb2.EventBatch(match_id="m")
    assert await _commit_path(bus, path)._publish(hosted, batch) == 5
    assert bus.calls == 2 and not path.up
    with pytest.raises(ServiceError):
        path.check()


async def test_a_write_stored_at_the_first_attempt_brings_the_path_up() -> None:
    path = WritePath()
    await path.failed(nats.errors.TimeoutError())
    bus = _LandedEarlier()
    bus.calls = 1  # its next publish is answered at once
    hosted = cast(
        HostedMatch, SimpleNamespace(match_id="m", stream_seq=4, state=SimpleNamespace(version=3))
    )
    assert await _commit_path(bus, path)._publish(hosted, events_pb2.EventBatch()) == 5
    assert path.up


async def test_a_retry_of_an_accepted_command_is_answered_while_the_path_is_down() -> None:
    """The client was told "retry later with the same command id": once the command is
    accepted (its first publish settled after all), the retry gets its result even while the
    path is down, since answering it writes nothing; a new command is refused at once."""
    path = WritePath()
    await path.failed(nats.errors.TimeoutError())
    accepted = SubmitResult([], Seat.B1, "")
    hosted = cast(
        HostedMatch,
        SimpleNamespace(
            command_ids={("A1", "c1"): CommandResult(1, 2, "end", "B1", "")},
            latest={Seat.A1: ("c1", accepted)},
        ),
    )
    commits = _commit_path(None, path)
    commits.check_writable(hosted, Seat.A1, "c1")
    assert await commits._submit(hosted, Seat.A1, "c1", -1, None, "end") is accepted
    for new_id in ("c2", ""):
        with pytest.raises(ServiceError) as refused:
            commits.check_writable(hosted, Seat.A1, new_id)
        assert classify(refused.value)[2] == "WRITE_PATH_DOWN"
