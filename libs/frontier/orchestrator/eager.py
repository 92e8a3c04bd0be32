"""Start a coroutine now, in the caller's turn of the event loop, and let a task own the rest.

Why: ``asyncio.ensure_future`` runs a new task's first step on the loop's *next* iteration,
behind every callback already ready -- on a loaded orchestrator, a whole ready queue.  The
commit path runs each command in a task of its own (so that the caller's cancellation never
stops it halfway), and its first step -- the lock taken, the command checked, the domain
request queued on its stream -- needs no waiting at all.  Run eagerly, that request is on its
way one iteration sooner.  Python 3.12's eager tasks (``Task(..., eager_start=True)``) do
this; 3.11, which the project supports, does not, so :func:`start` steps the coroutine once
itself and hands the suspended coroutine to a task that resumes it exactly where it waits.

The first step runs in a copy of the caller's context, and the task runs in that same
context, so context variables (OpenTelemetry's span) set there are reset in the context that
set them.  The first step must not rely on ``asyncio.current_task()`` being its own task
(it is the caller's): the commit path's first step does not ask.

The result reaches the caller through ``answer`` (a plain future), set by the coroutine's
last step itself: a task's done callbacks would cost the waiter one more loop iteration.
Cancelling ``answer`` (the caller gave up) does not touch the task.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


def start(coro: Coroutine[Any, Any, T], answer: asyncio.Future[T]) -> asyncio.Task[None] | None:
    """Run ``coro`` up to its first wait, now; then a task (returned) runs the rest.  Its
    result or exception is set on ``answer`` unless ``answer`` is done by then (the
    caller cancelled it or stopped waiting).  None when ``coro`` finished in its first step
    (``answer`` is then set already)."""
    context = contextvars.copy_context()
    try:
        waiting = context.run(coro.send, None)
    except StopIteration as stop:
        answer.set_result(stop.value)
        return None
    except asyncio.CancelledError:
        answer.cancel()
        return None
    except Exception as exc:
        answer.set_exception(exc)
        return None
    loop = asyncio.get_running_loop()
    return loop.create_task(_Continued(coro, waiting, answer), context=context)


def first_step(coro: Coroutine[Any, Any, None]) -> Resumed | None:
    """Run ``coro`` up to its first wait, now, in the caller's context (its exception, if it
    raises there, propagates); None when it finished, else what resumes it (to be awaited
    by whoever goes on with it)."""
    try:
        waiting = coro.send(None)
    except StopIteration:
        return None
    return Resumed(coro, waiting)


class _Continued(Coroutine[Any, Any, None]):
    """The rest of a coroutine whose first step ran, as a task's coroutine: its first
    ``send`` hands the task what that step waits on; then each ``send``/``throw`` goes on
    to the coroutine, whose result or exception is set on ``answer`` as it finishes.  A
    class rather than an ``async def``: a task cancelled before its first step throws the
    cancellation into its coroutine's start, and an ``async def`` would end there without
    the suspended coroutine seeing it (which holds the match's lock)."""

    __slots__ = ("answer", "coro", "waiting")

    def __init__(self, coro: Coroutine[Any, Any, T], waiting: Any, answer: asyncio.Future[T]):
        self.coro: Coroutine[Any, Any, Any] = coro
        self.waiting: Any = waiting
        self.answer: asyncio.Future[Any] = answer

    def send(self, value: Any) -> Any:
        waiting = self.waiting
        if waiting is not _GONE:
            self.waiting = _GONE
            return waiting
        return self._step(self.coro.send, value)

    def throw(self, exc: Any, value: Any = None, tb: Any = None) -> Any:
        self.waiting = _GONE
        return self._step(self.coro.throw, exc if value is None else value)

    def close(self) -> None:
        self.coro.close()

    def __await__(self) -> Generator[Any, None, None]:
        raise TypeError("a task runs it: it is not awaited")

    def _step(self, step: Any, value: Any) -> Any:
        answer = self.answer
        try:
            return step(value)
        except StopIteration as stop:
            if not answer.done():
                answer.set_result(stop.value)
            raise StopIteration from None
        except asyncio.CancelledError:  # the task was cancelled (the orchestrator stops)
            if not answer.done():
                answer.cancel()
            raise
        except Exception as exc:  # the caller's: the task itself ends without an error
            if not answer.done():
                answer.set_exception(exc)
            raise StopIteration from None


_GONE = object()  # the first step's wait was handed to the task


class Resumed:
    """Awaiting it resumes a coroutine suspended on ``waiting``: what ``await coro`` does,
    for a coroutine whose first step already ran (``await`` would step it from the start)."""

    __slots__ = ("coro", "waiting")

    def __init__(self, coro: Coroutine[Any, Any, T], waiting: Any) -> None:
        self.coro = coro
        self.waiting = waiting

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, waiting = self.coro, self.waiting
        self.waiting = None
        while True:
            try:
                sent = yield waiting
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # thrown in by the task (its cancellation)
                try:
                    waiting = coro.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    waiting = coro.send(sent)
                except StopIteration as stop:
                    return stop.value
