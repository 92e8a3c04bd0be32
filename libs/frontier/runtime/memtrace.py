"""Debug only: which lines of a service hold its memory, to find what each match costs.

Resident memory per match (``frontier bench stack``) says how much, not who holds it.  With
``FRONTIER_TRACEMALLOC=<dir>`` a service starts :mod:`tracemalloc` when it starts and writes a
snapshot to ``<dir>/<name>-<pid>-<n>.snap`` on each SIGUSR2; two snapshots taken with N and
2N matches hosted, diffed by :func:`grown`, give the bytes per match by allocating line
(``frontier bench memory`` does exactly that).  Tracing slows every allocation several times and
keeps a traceback per block, so it is for measuring, never for production: without the
variable nothing here runs.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import signal
import tracemalloc
from pathlib import Path

ENV = "FRONTIER_TRACEMALLOC"
OWNERS = ("/orchestrator/", "/runtime/", "/services/")  # modules that hold state per match
FRAMES = 8  # enough to tell the owner (HostedMatch, a projection...) from the allocator

log = logging.getLogger("frontier.memtrace")


def install(name: str, loop: asyncio.AbstractEventLoop) -> Path | None:
    """Start tracing and dump on SIGUSR2 when ``FRONTIER_TRACEMALLOC`` is set; the dump
    directory, or None when it is not."""
    target = os.environ.get(ENV, "")
    if not target:
        return None
    out = Path(target)
    out.mkdir(parents=True, exist_ok=True)
    if not tracemalloc.is_tracing():
        tracemalloc.start(FRAMES)
    counter = itertools.count(1)

    def dump() -> None:
        path = out / f"{name}-{os.getpid()}-{next(counter)}.snap"
        snapshot = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)]
        )
        snapshot.dump(str(path))
        log.warning("tracemalloc snapshot written to %s", path)

    loop.add_signal_handler(signal.SIGUSR2, dump)
    log.warning("tracemalloc is on (%s): every allocation is slower", ENV)
    return out


def grown(
    before: Path, after: Path, per: int, top: int = 15, key: str = "lineno"
) -> list[tuple[str, float]]:
    """The ``top`` allocation sites that grew most from ``before`` to ``after``, in bytes
    per unit (``per``: the matches added in between), largest first; the last entry is
    the total over every site."""
    old = tracemalloc.Snapshot.load(str(before))
    new = tracemalloc.Snapshot.load(str(after))
    stats = new.compare_to(old, key)
    rows = [(_where(s.traceback), s.size_diff / per) for s in stats[:top]]
    rows.append(("total", sum(s.size_diff for s in stats) / per))
    return rows


def _where(tb: tracemalloc.Traceback) -> str:
    """The allocating frame, with the innermost frame of our own code (the owner)."""
    frames = list(tb)  # oldest first
    ours = next((f for f in reversed(frames) if any(o in f.filename for o in OWNERS)), None)
    first = frames[-1]
    shown = f"{_short(first.filename)}:{first.lineno}"
    if ours is not None and ours is not first:
        shown += f" <- {_short(ours.filename)}:{ours.lineno}"
    return shown


def _short(filename: str) -> str:
    for marker in ("/frontier/", "/site-packages/", "/lib/python"):
        if marker in filename:
            return filename[filename.index(marker) + 1 :]
    return filename
