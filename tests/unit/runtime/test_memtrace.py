"""The debug-only memory tracer: off without FRONTIER_TRACEMALLOC, and its diff of two
snapshots names the line that allocated, in bytes per unit.  The test awaits each snapshot's
log line, never a clock."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import tracemalloc
from pathlib import Path

import pytest

from frontier.runtime import memtrace


async def test_without_the_variable_nothing_is_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(memtrace.ENV, raising=False)
    assert memtrace.install("map", asyncio.get_running_loop()) is None
    assert not tracemalloc.is_tracing()


class _Written(logging.Handler):
    """Sets an event each time memtrace says a snapshot was written."""

    def __init__(self) -> None:
        super().__init__()
        self.written: asyncio.Queue[str] = asyncio.Queue()

    def emit(self, record: logging.LogRecord) -> None:
        if "snapshot written" in record.getMessage():
            self.written.put_nowait(record.getMessage())


async def test_a_snapshot_on_sigusr2_and_the_growth_per_unit_by_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(memtrace.ENV, str(tmp_path))
    held: list[bytes] = []
    written = _Written()
    logger = logging.getLogger("frontier.memtrace")
    logger.addHandler(written)
    try:
        assert memtrace.install("orchestrator", asyncio.get_running_loop()) == tmp_path
        os.kill(os.getpid(), signal.SIGUSR2)
        await written.written.get()  # the handler ran on the loop
        held.extend(bytes(10_000) + bytes([n]) for n in range(40))  # the line that grows
        os.kill(os.getpid(), signal.SIGUSR2)
        await written.written.get()
    finally:
        logger.removeHandler(written)
        tracemalloc.stop()
        asyncio.get_running_loop().remove_signal_handler(signal.SIGUSR2)
        signal.signal(signal.SIGUSR2, signal.SIG_DFL)
    pid = os.getpid()
    first, second = tmp_path / f"orchestrator-{pid}-1.snap", tmp_path / f"orchestrator-{pid}-2.snap"
    rows = memtrace.grown(first, second, per=40, top=3)
    where, size = rows[0]
    assert where.startswith("tests/unit/runtime/test_memtrace.py:") or "test_memtrace.py" in where
    assert 10_000 <= size < 10_200  # one 10 KB block per unit, plus its object header
    assert rows[-1][0] == "total" and rows[-1][1] >= size
