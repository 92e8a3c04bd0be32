"""The progress bar of long commands (``frontier tournament``), drawn with rich on stderr.

On a terminal the bar is redrawn in place (rich's live display, with the elapsed and the
remaining time); on anything else (a log file, CI) it prints one plain line every tenth of
the way, so a log keeps a readable record without a line per match.
"""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class ProgressBar:
    """``bar(done, total)`` after each step.  Use it with :func:`contextlib.closing`, so the
    live display stops even when the run fails half-way (the terminal is left clean)."""

    def __init__(self, stream: TextIO = sys.stderr, label: str = "matches") -> None:
        self._console = Console(file=stream, highlight=False)
        self._live = self._console.is_terminal
        self._progress = Progress(
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(label),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self._console,
        )
        self._task: TaskID | None = None
        self._last_tenth = -1

    def __call__(self, done: int, total: int) -> None:
        if self._task is None:
            self._task = self._progress.add_task("", total=total)
            if self._live:
                self._progress.start()
        self._progress.update(self._task, completed=done, total=total)
        if not self._live:
            tenth = 10 * done // total if total else 10
            if tenth != self._last_tenth:
                self._last_tenth = tenth
                self._console.print(self._progress.get_renderable())
        if done >= total:
            self.close()

    def close(self) -> None:
        if self._live:
            self._progress.stop()
            self._live = False
