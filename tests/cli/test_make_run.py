"""``make run``'s switch: ``KEEP_UP=1`` keeps the stack up after the match (``--keep-up``), so
the watch link it prints goes on serving the replay; by default the stack stops."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run_recipe(*overrides: str) -> str:
    """The ``frontier stack play`` line ``make run`` would run (``make -n``: nothing runs)."""
    out = subprocess.run(
        ["make", "--no-print-directory", "-n", "run", *overrides],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    lines = [line for line in out.splitlines() if "frontier stack play" in line]
    assert len(lines) == 1, out
    return lines[0]


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on PATH")
def test_make_run_stops_after_the_match_unless_keep_up_is_set() -> None:
    assert "--keep-up" not in _run_recipe()
    assert "--keep-up" not in _run_recipe("KEEP_UP=0")
    assert _run_recipe("KEEP_UP=1").split()[-1] == "--keep-up"


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on PATH")
def test_make_run_plays_greedy_bots_unless_told_otherwise() -> None:
    assert "--bot greedy" in _run_recipe()
    assert "--bot search" in _run_recipe("BOT=search")
