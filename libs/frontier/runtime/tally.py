"""Counts of what is live now, per key (a match, a client address)."""

from __future__ import annotations

from collections import Counter


class Tally(Counter[str]):
    """How many of something each key holds now.  A key given back to zero is dropped, so a
    tally holds only the keys live now, never every match or address it has seen."""

    def take(self, key: str) -> None:
        self[key] += 1

    def give(self, key: str) -> None:
        self[key] -= 1
        if self[key] <= 0:
            del self[key]
