"""Build hook: compiles the rules engine (``frontier.engine``) to C extensions with mypyc.

Why: the engine is pure, fully typed (mypy --strict) Python, and mypyc turns exactly such code
into C extension modules with the same behaviour, about 1.45x faster (``frontier bench
engine``: ~13,900 -> ~20,200 commands/s for the default lineup on the 2-core reference
machine).  All project metadata stays in pyproject.toml; this file only adds ``ext_modules``.

mypy comes from ``[build-system] requires``, pinned to the mypy of constraints.txt (checked by
tests/unit/engine/test_build_config.py), rather than from the venv with ``--no-build-isolation``:
that way every ordinary install compiles with no extra flag and on a fresh machine, where the
venv's mypy does not exist yet: ``make venv`` (editable: the ``.so`` files land next to the
sources in libs/frontier/engine, plus ``frontier_engine__mypyc.*.so`` at the repository root,
all git-ignored) and ``pip wheel .`` (a cp311 wheel carrying the ``.so`` and ``.py`` files).
It needs a C compiler and the Python headers at install time, never at run time.  The build
takes about a minute on 2 cores.

``model.py`` (Command, Event) is compiled too: its records are frozen dataclasses with a
hand-written ``__init__`` that mypyc turns into a native constructor, so a rule building a
legal list or emitting an event never leaves C (about 1.7x the throughput of an interpreted
model.py).  What still reads them as dataclasses keeps working: ``dataclasses.fields`` and
``replace``, the frozen ``__setattr__``, pickling (``__reduce__``, the same bytes in both
builds).  One difference shows: compiled, their type hints are erased (``tuple`` for
``tuple[str, ...]``), and the wire codec then takes the item type from the proto field.

Kept interpreted, on purpose:

* ``state.py``: State and its records stay ordinary slotted dataclasses, so the types the
  rest of the project builds and pickles do not change; compiling it gained nothing
  measurable.
* ``errors.py``: mypyc cannot compile a subclass of RuntimeError (CorruptEvent).
  ``config.py``: mypyc's C for its pydantic import does not compile.  ``__init__.py``:
  re-exports only.

The faction states (dataclasses in factions/*.py) do become mypyc native classes, which pickle
in another shape: runtime/snapshot.py tags each build's snapshots (``frontier.engine.COMPILED``).
In an editable install a compiled module's ``__file__`` names a path under the repository
root that does not exist (mypyc derives it from its shared library's place); the code runs
from the right ``.so``, and installed wheels give the true path.

``FRONTIER_PURE_PYTHON=1`` at install time builds no extension at all (plain Python, e.g. to
debug the engine or where no C compiler exists), and an editable install then deletes the
``.so`` files an earlier one left in the source tree (the import system prefers them to the
``.py`` files).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent
ENGINE = Path("libs/frontier/engine")
# Kept interpreted: see the module docstring.
INTERPRETED = {"__init__.py", "state.py", "errors.py", "config.py"}


def pure_python() -> bool:
    return os.environ.get("FRONTIER_PURE_PYTHON", "").strip() not in ("", "0")


def engine_sources() -> list[str]:
    top = [p for p in sorted((ROOT / ENGINE).glob("*.py")) if p.name not in INTERPRETED]
    factions = sorted((ROOT / ENGINE / "factions").glob("*.py"))
    return [str(p.relative_to(ROOT)) for p in top + factions]


def remove_stale_extensions() -> None:
    """Deletes what a compiled editable install left in the source tree."""
    for so in [*(ROOT / ENGINE).rglob("*.so"), *ROOT.glob(f"{GROUP}__mypyc*.so")]:
        so.unlink()


# mypyc puts the code of all the compiled modules in one shared library, the top-level module
# ``frontier_engine__mypyc`` (a dotted name inside the package would give the modules a wrong
# ``__file__``); each ``frontier/engine/<module>.so`` is a small shim that imports from it.
GROUP = "frontier_engine"


def ext_modules() -> list[Extension]:
    if pure_python():
        if "editable_wheel" in sys.argv:  # never touch the tree when a wheel is built
            remove_stale_extensions()
        return []
    from mypyc.build import mypycify

    # The engine's only third-party import is pydantic, in the interpreted config.py: mypy
    # follows it there silently (``make lint`` checks it strictly), and never looks at
    # site-packages, where the first install of a fresh venv finds nothing yet, so the C
    # code is the same on every machine.
    flags = ["--no-site-packages", "--follow-imports=silent"]
    return mypycify([*flags, *engine_sources()], opt_level="3", group_name=GROUP)


setup(ext_modules=ext_modules())
