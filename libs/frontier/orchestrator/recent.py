"""A match's latest committed events and decision records, the only ones kept in memory.

Every event is in the JetStream stream.  Keeping a match's whole history in memory as well,
for watchers and idempotent replies, would be most of the memory a finished match holds.
Readers nearly always want the newest events (a watcher following the match, the retry of a
command just sent), so only the last :data:`KEEP_EVENTS` events, and the decision records of
their batches, stay; an older one is read back from the stream when asked for
(:mod:`.history`), without being kept.  A watcher following the match is woken at each
commit and reads the new batch at once, and a seat's retry of its latest command is
answered from ``HostedMatch.latest``, so a few batches' worth serve them; keeping more would
cost memory in every match for the rare reader that lags that far, who reads the stream
instead.
"""

from __future__ import annotations

from typing import TypeVar

V = TypeVar("V")

KEEP_EVENTS = 24  # events kept per match (a batch has ~1-10); decision records: theirs


class Recent(dict[int, V]):
    """A dict of the newest ``keep`` entries by increasing key (a seq): setting one more
    drops the oldest.  Keys must be set in increasing order, as commits come."""

    __slots__ = ("keep", "start")

    def __init__(self, keep: int = KEEP_EVENTS, start: int = 1) -> None:
        super().__init__()
        if keep < 1:
            raise ValueError(f"Recent must keep at least one entry, got {keep}")
        self.keep = keep
        self.start = start  # every key below it is forgotten (or never was held)

    def __setitem__(self, key: int, value: V) -> None:
        if key < self.start:
            raise KeyError(f"seq {key} is older than the kept ones (from {self.start})")
        super().__setitem__(key, value)
        while len(self) > self.keep:
            oldest = next(iter(self))
            super().__delitem__(oldest)
            self.start = oldest + 1

    def forget_before(self, key: int) -> None:
        """Drop every entry below ``key`` (a match that ended keeps only its last batch; the
        decision records go with the events of their batches)."""
        while self:
            oldest = next(iter(self))  # keys increase: the oldest ones come first
            if oldest >= key:
                break
            super().__delitem__(oldest)
        self.start = max(self.start, key)

    def holds(self, first: int) -> bool:
        """Whether every key from ``first`` on is still kept (none was dropped)."""
        return first >= self.start
