"""One command at a time per match, each in a task of its own that its caller cannot stop.

Every change to a match (a command, an automatic answer, its abandonment) runs as *work*
under the match's lock, through :meth:`Writes.serialized`.  The caller's cancellation (its
client's deadline, a closed stream) never stops a command halfway: its task goes on, settles
the publish and advances the match, and a retry with the same command id then finds the
first result.  A caller that waited ``settle_wait_s`` without a result gets UNAVAILABLE
(the task still goes on).

The work's first step (up to its first wait: the lock taken, the command checked, the domain
request written) runs at once, in the caller's turn of the loop, and the task's last step
hands the result to the caller itself (see eager.py): two loop iterations fewer per command
than a task started and awaited the usual way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import grpc

from frontier.runtime.errors import ServiceError

from . import eager

T = TypeVar("T")


class Locked(Protocol):
    """What the work is serialised on: a hosted match's lock."""

    lock: asyncio.Lock


class Writes:
    """The work under way on the hosted matches (see the module docstring)."""

    def __init__(self, settle_wait_s: float = 5.0) -> None:
        self.settle_wait_s = settle_wait_s
        self.under_way: set[asyncio.Task[None]] = set()

    async def serialized(self, hosted: Locked, work: Callable[[], Awaitable[T]]) -> T:
        """Run ``work`` under ``hosted``'s lock in a task of its own, and wait for it."""
        loop = asyncio.get_running_loop()
        result: asyncio.Future[T] = loop.create_future()
        task = eager.start(_locked(hosted, work), result)
        if task is not None:
            self.under_way.add(task)
            task.add_done_callback(self.under_way.discard)
        if not result.done():
            timer = loop.call_later(self.settle_wait_s, self._not_settled, result)
            try:
                await result  # cancelled with the caller: only the future, not the task
            finally:
                timer.cancel()
        return result.result()

    def _not_settled(self, result: asyncio.Future[Any]) -> None:
        if not result.done():
            result.set_exception(
                ServiceError(
                    grpc.StatusCode.UNAVAILABLE,
                    f"the command is not settled after {self.settle_wait_s:g}s (NATS or a "
                    "domain service is slow or unreachable); retry with the same command id: "
                    "the retry returns its result once it is settled",
                    "NOT_SETTLED",
                )
            )

    def cancel(self) -> None:
        """Stop the work under way (the server stops: the matches' streams are the truth)."""
        for task in list(self.under_way):
            task.cancel()


async def _locked(hosted: Locked, work: Callable[[], Awaitable[T]]) -> T:
    async with hosted.lock:
        return await work()
