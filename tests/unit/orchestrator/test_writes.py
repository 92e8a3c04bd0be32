"""Writes.serialized's wait: a result once the command's task is done, UNAVAILABLE
(NOT_SETTLED) when it is not done in time, and in neither case is the task stopped: the
command goes on to settle its publish, as a retry with the same id then finds.  Its first
step runs at once and its answer reaches the caller one loop iteration after its last step
(eager.py)."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import grpc
import pytest

from frontier.orchestrator.writes import Writes
from frontier.runtime.errors import ServiceError


def _path(settle_wait_s: float) -> Writes:
    return Writes(settle_wait_s)


class _Hosted:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()


async def test_a_done_task_is_answered() -> None:
    async def work() -> int:
        await asyncio.sleep(0)
        return 7

    hosted: Any = _Hosted()
    assert await _path(5.0).serialized(hosted, work) == 7


async def test_an_error_of_the_work_reaches_the_caller() -> None:
    async def work() -> int:
        raise ServiceError(grpc.StatusCode.ABORTED, "stale", "STALE_VERSION")

    hosted: Any = _Hosted()
    with pytest.raises(ServiceError) as raised:
        await _path(5.0).serialized(hosted, work)
    assert raised.value.reason == "STALE_VERSION"


async def test_not_settled_in_time_is_unavailable_and_the_work_goes_on() -> None:
    release = asyncio.Event()
    finished: list[int] = []

    async def work() -> int:
        await release.wait()
        finished.append(1)
        return 1

    path = _path(0)  # the wait ends on the loop's next iteration: the work waits for the test
    hosted: Any = _Hosted()
    with pytest.raises(ServiceError) as raised:
        await path.serialized(hosted, work)
    assert raised.value.code is grpc.StatusCode.UNAVAILABLE
    assert raised.value.reason == "NOT_SETTLED"
    assert hosted.lock.locked() and not finished  # still under way, not stopped
    release.set()
    await asyncio.gather(*path.under_way)
    assert finished == [1] and not hosted.lock.locked()


async def test_the_callers_cancellation_leaves_the_work_running() -> None:
    release = asyncio.Event()
    finished: list[str] = []

    async def slow() -> str:
        await release.wait()
        await asyncio.sleep(0)  # more steps after the caller is gone
        finished.append("done")
        return "done"

    path = _path(60.0)
    hosted: Any = _Hosted()
    waiting = asyncio.ensure_future(path.serialized(hosted, slow))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert hosted.lock.locked() and not finished
    release.set()
    await asyncio.gather(*path.under_way)
    assert finished == ["done"] and not hosted.lock.locked()


class _Ticks:
    """Counts the loop's iterations: a callback that schedules itself again."""

    def __init__(self) -> None:
        self.count = 0
        self.loop = asyncio.get_running_loop()
        self.handle = self.loop.call_soon(self.tick)

    def tick(self) -> None:
        self.count += 1
        self.handle = self.loop.call_soon(self.tick)


async def test_the_first_step_runs_at_once_and_the_result_follows_the_last_at_once() -> None:
    ticks = _Ticks()
    seen: dict[str, int] = {}

    async def work() -> int:
        seen["first step"] = ticks.count
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        seen["last step"] = ticks.count
        return 3

    before = ticks.count
    assert await _path(5.0).serialized(_Hosted(), work) == 3
    assert seen["first step"] == before  # not behind the ready queue
    assert ticks.count - seen["last step"] <= 1  # the caller resumed in the next one
    ticks.handle.cancel()


async def test_work_that_never_waits_needs_no_task() -> None:
    async def work() -> str:
        return "at once"

    path = _path(5.0)
    hosted: Any = _Hosted()
    assert await path.serialized(hosted, work) == "at once"
    assert not path.under_way and not hosted.lock.locked()


_VAR: contextvars.ContextVar[int] = contextvars.ContextVar("_VAR", default=0)


async def test_a_context_variable_set_in_the_first_step_is_reset_after_a_wait() -> None:
    """OpenTelemetry's spans set a context variable and reset it when they end: the rest of
    the work runs in the context its first step ran in, or the reset raises ValueError."""

    async def work() -> int:
        token = _VAR.set(5)
        await asyncio.sleep(0)
        seen = _VAR.get()
        _VAR.reset(token)
        return seen

    assert await _path(5.0).serialized(_Hosted(), work) == 5
    assert _VAR.get() == 0  # the caller's context is not changed


async def test_cancelling_the_writes_cancels_the_work_and_its_caller() -> None:
    async def forever() -> None:
        await asyncio.Event().wait()

    path = _path(60.0)
    hosted: Any = _Hosted()
    waiting = asyncio.ensure_future(path.serialized(hosted, forever))
    await asyncio.sleep(0)
    path.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await asyncio.sleep(0)
    assert not path.under_way and not hosted.lock.locked()
