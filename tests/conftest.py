"""Test-wide settings.

Hypothesis: under CI (``CI=true``) examples are derandomized, so a red build is reproducible
from the log, and the per-example deadline is off, because the 2-core CI machine's timing
jitter must not fail a property that is about correctness, not speed.  Locally the default
profile keeps exploring new random examples on every run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

import frontier.engine
from frontier.engine import COMPILED

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() in {"1", "true"} else "dev")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to test a compiled engine older than its sources.

    ``make venv`` compiles the engine with mypyc (setup.py), and the import system prefers the
    compiled modules to the ``.py`` files next to them: after an edit to the engine, a bare
    ``pytest`` would silently test the code as it was.  ``make test`` rebuilds first."""
    if not COMPILED:
        return
    engine = Path(frontier.engine.__file__).parent
    libraries = [
        *engine.rglob("*.so"),
        *engine.parents[2].glob("frontier_engine__mypyc*.so"),  # the editable install's
    ]
    if not libraries:
        return  # installed from a wheel: sources and libraries come together
    built = min(so.stat().st_mtime for so in libraries)
    edited = [p for p in engine.rglob("*.py") if p.stat().st_mtime > built]
    if edited:
        names = ", ".join(sorted(p.name for p in edited)[:5])
        pytest.exit(
            f"the compiled engine is older than {names}: run `make venv` (or `make test`) to "
            "rebuild it, or reinstall with FRONTIER_PURE_PYTHON=1 to test the sources as they are",
            returncode=4,
        )
