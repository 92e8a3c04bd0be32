"""One log line per kind of failure, not one per attempt.

Why: a loop that retries while NATS or a domain service is away (lease renewal, following
a stream, a projection, a call stream) fails on every attempt, several times a second; a
traceback each time buries the one line an operator needs under hundreds of copies.  A
:class:`FailureLog` logs the first failure of a kind with its cause (the traceback once),
counts the repeats and summarises them at most once per ``interval_s``, and logs the
recovery once, with how many attempts failed and for how long.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_INTERVAL_S = 60.0


@dataclass(slots=True)
class _Failing:
    """A kind of failure seen since its last recovery."""

    since: float  # the first failure
    logged_at: float  # the last line logged about it
    count: int = 1  # failures since the first
    unlogged: int = 0  # failures since the last line
    last_cause: str = ""


def cause_of(exc: BaseException | None) -> str:
    """``Type: message`` of a failure (just the type when it says nothing)."""
    if exc is None:
        return "no exception"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class FailureLog:
    """Rate-limited logging of repeated failures, by kind (a short stable string)."""

    def __init__(
        self,
        logger: logging.Logger,
        interval_s: float = DEFAULT_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval_s = interval_s
        self.clock = clock
        self._failing: dict[str, _Failing] = {}

    def failing(self, kind: str) -> bool:
        """Whether ``kind`` failed since it last recovered."""
        return kind in self._failing

    def failed(self, kind: str, what: str, exc: BaseException | None = None) -> None:
        """One failure of ``kind``; ``what`` names the action that failed ("renewing the
        leases").  The first is logged as a WARNING with its traceback; the repeats are
        counted and summarised at most once per interval, with the latest cause."""
        now = self.clock()
        cause = cause_of(exc)
        state = self._failing.get(kind)
        if state is None:
            self._failing[kind] = _Failing(since=now, logged_at=now, last_cause=cause)
            self.logger.warning("%s failed (%s); repeats are summarised", what, cause, exc_info=exc)
            return
        state.count += 1
        state.unlogged += 1
        state.last_cause = cause
        if now - state.logged_at >= self.interval_s:
            self.logger.warning(
                "%s: failed %d more time(s) in the last %.0fs, %d since the first %.0fs "
                "ago (latest: %s)",
                what,
                state.unlogged,
                now - state.logged_at,
                state.count,
                now - state.since,
                cause,
            )
            state.logged_at = now
            state.unlogged = 0

    def recovered(self, kind: str, what: str) -> None:
        """``kind`` works again: logged once (INFO) if it was failing, else nothing."""
        state = self._failing.pop(kind, None)
        if state is not None:
            self.logger.info(
                "%s works again after %d failure(s) over %.1fs (latest: %s)",
                what,
                state.count,
                self.clock() - state.since,
                state.last_cause,
            )

    def recovered_all(self, what: str) -> None:
        """Every failing kind works again (a connection that several kinds needed is back)."""
        for kind in list(self._failing):
            self.recovered(kind, f"{what} ({kind})")
