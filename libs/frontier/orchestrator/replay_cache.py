"""Replays of ended matches, computed once and then served from memory.

A replay is the whole event history filtered for one reader (:func:`.history.export_replay`):
reading it back from the stream and filtering it costs far more than sending it, and anyone
may ask for it.  Once a match has ended its replay for a given reader never changes, so it is
computed once per (match, reader) -- concurrent requests for the same one wait for that single
computation instead of each running their own -- and kept in a least-recently-used table
bounded in characters, so a popular final served to thousands costs one computation and a
bounded amount of memory.  A match still in play is never cached: its history grows.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from frontier.runtime.metrics import REPLAY_EXPORTS

# Replays kept at most, in characters of JSON (a six-round match's replay is a few hundred KB)
DEFAULT_MAX_CHARS = 32 * 1024 * 1024

Key = tuple[str, str]  # (match id, reader: a seat name or "spectator")


class ReplayCache:
    """Ended matches' replays by (match, reader), computed once, bounded in size."""

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        self.max_chars = max_chars
        self._kept: OrderedDict[Key, str] = OrderedDict()
        self._chars = 0
        self._computing: dict[Key, asyncio.Task[str]] = {}

    async def get(self, key: Key, compute: Callable[[], Awaitable[str]]) -> str:
        """The replay ``key``: from the table, else from the computation already running for
        it, else from a new one (kept once it succeeds).  The computation runs as its own
        task, so a caller that goes away does not cancel it for the others waiting."""
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            REPLAY_EXPORTS.labels(source="cache").inc()
            return kept
        running = self._computing.get(key)
        if running is not None:
            REPLAY_EXPORTS.labels(source="joined").inc()
            return await asyncio.shield(running)
        REPLAY_EXPORTS.labels(source="computed").inc()
        task = asyncio.ensure_future(compute())
        self._computing[key] = task
        task.add_done_callback(lambda done: self._finished(key, done))
        return await asyncio.shield(task)

    def _finished(self, key: Key, task: asyncio.Task[str]) -> None:
        del self._computing[key]
        if task.cancelled() or task.exception() is not None:
            return  # not kept: the next request tries again
        self._keep(key, task.result())

    def _keep(self, key: Key, text: str) -> None:
        if len(text) > self.max_chars:
            return  # larger than the whole table: served, never kept
        self._kept[key] = text
        self._chars += len(text)
        while self._chars > self.max_chars:
            _, dropped = self._kept.popitem(last=False)
            self._chars -= len(dropped)

    @property
    def chars(self) -> int:
        """Characters of replay JSON held now."""
        return self._chars
