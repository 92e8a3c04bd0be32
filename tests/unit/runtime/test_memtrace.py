"""The debug-only memory tracer: off without FRONTIER_TRACEMALLOC, and its diff of two
snapshots names the line that allocated, in bytes per unit."""

from __future__ import annotations

import asyncio
import os
import signal
import tracemalloc
from pathlib import Path

import pytest

from frontier.runtime import memtrace


def test_without_the_variable_nothing_is_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(memtrace.ENV, raising=False)
    loop = asyncio.new_event_loop()
    try:
        assert memtrace.install("map", loop) is None
    finally:
        loop.close()
    assert not tracemalloc.is_tracing()


def test_a_snapshot_on_sigusr2_and_the_growth_per_unit_by_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(memtrace.ENV, str(tmp_path))
    held: list[bytes] = []

    async def scenario() -> None:
        assert memtrace.install("orchestrator", asyncio.get_running_loop()) == tmp_path
        os.kill(os.getpid(), signal.SIGUSR2)
        await asyncio.sleep(0.05)  # the handler runs on the loop
        held.extend(bytes(10_000) + bytes([n]) for n in range(40))  # the line that grows
        os.kill(os.getpid(), signal.SIGUSR2)
        await asyncio.sleep(0.05)

    try:
        asyncio.run(scenario())
    finally:
        tracemalloc.stop()
        signal.signal(signal.SIGUSR2, signal.SIG_DFL)
    pid = os.getpid()
    first, second = tmp_path / f"orchestrator-{pid}-1.snap", tmp_path / f"orchestrator-{pid}-2.snap"
    rows = memtrace.grown(first, second, per=40, top=3)
    where, size = rows[0]
    assert where.startswith("tests/unit/runtime/test_memtrace.py:") or "test_memtrace.py" in where
    assert 10_000 <= size < 10_200  # one 10 KB block per unit, plus its object header
    assert rows[-1][0] == "total" and rows[-1][1] >= size
