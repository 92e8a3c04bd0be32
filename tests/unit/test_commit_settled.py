"""CommitPath.serialized's wait: an answer once the command's task is done, UNAVAILABLE
(NOT_SETTLED) when it is not done in time, and in neither case is the task stopped: the
command goes on to settle its publish, as a retry with the same id then finds."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from frontier.orchestrator.commit import CommitPath, _settled
from frontier.runtime.errors import ServiceError


def _path(settle_wait_s: float) -> CommitPath:
    bus: Any = None
    clients: Any = None
    return CommitPath(bus, clients, 50, lambda hosted: None, settle_wait_s)


class _Hosted:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()


def test_a_done_task_is_answered() -> None:
    async def main() -> None:
        async def work() -> int:
            await asyncio.sleep(0)
            return 7

        hosted: Any = _Hosted()
        assert await _path(5.0).serialized(hosted, work) == 7

    asyncio.run(main())


def test_an_error_of_the_work_reaches_the_caller() -> None:
    async def main() -> None:
        async def work() -> int:
            raise ServiceError(grpc.StatusCode.ABORTED, "stale", "STALE_VERSION")

        hosted: Any = _Hosted()
        with pytest.raises(ServiceError) as raised:
            await _path(5.0).serialized(hosted, work)
        assert raised.value.reason == "STALE_VERSION"

    asyncio.run(main())


def test_not_settled_in_time_is_unavailable_and_the_work_goes_on() -> None:
    async def main() -> None:
        release = asyncio.Event()
        finished: list[int] = []

        async def work() -> int:
            await release.wait()
            finished.append(1)
            return 1

        path = _path(0.01)
        hosted: Any = _Hosted()
        with pytest.raises(ServiceError) as raised:
            await path.serialized(hosted, work)
        assert raised.value.code is grpc.StatusCode.UNAVAILABLE
        assert raised.value.reason == "NOT_SETTLED"
        assert hosted.lock.locked() and not finished  # still under way, not stopped
        release.set()
        await asyncio.gather(*path._writes)
        assert finished == [1] and not hosted.lock.locked()

    asyncio.run(main())


def test_the_waiters_cancellation_leaves_the_task_running() -> None:
    async def main() -> None:
        release = asyncio.Event()

        async def slow() -> str:
            await release.wait()
            return "done"

        task = asyncio.ensure_future(slow())
        waiting = asyncio.ensure_future(_settled(task, 60.0))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert not task.done()
        release.set()
        assert await task == "done"
        assert await _settled(task, 60.0)  # done already: answered at once

    asyncio.run(main())
