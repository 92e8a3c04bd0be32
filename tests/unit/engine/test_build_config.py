"""The mypyc build of the engine (setup.py): its pin, and what it compiles or leaves alone."""

from __future__ import annotations

import importlib
import re
import tomllib
import types
from pathlib import Path

import pytest

import frontier.engine
from frontier.store import snapshot

ROOT = Path(__file__).resolve().parents[3]


def test_the_build_requires_the_mypy_of_constraints_txt() -> None:
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    pinned = re.search(r"^mypy==(\S+)$", (ROOT / "constraints.txt").read_text(), re.M)
    assert pinned is not None
    assert f"mypy=={pinned[1]}" in requires


@pytest.mark.parametrize("name", ["frontier.engine.state", "frontier.engine.errors"])
def test_the_state_and_error_modules_stay_interpreted(name: str) -> None:
    # The State is the type the rest of the project builds, compares and pickles: the same
    # class whether the rules are compiled or not.
    assert (importlib.import_module(name).__file__ or "").endswith(".py")


def test_commands_and_events_are_native_when_compiled() -> None:
    # model.py is compiled with the rules: a rule builds a Command without leaving C.
    model = importlib.import_module("frontier.engine.model")
    suffix = ".so" if frontier.engine.COMPILED else ".py"
    assert (model.__file__ or "").endswith(suffix)
    native = not isinstance(model.Command.__init__, types.FunctionType)
    assert native == frontier.engine.COMPILED


def test_the_rules_are_compiled_unless_built_pure() -> None:
    movement = importlib.import_module("frontier.engine.movement")
    suffix = ".so" if frontier.engine.COMPILED else ".py"
    assert (movement.__file__ or "").endswith(suffix)


def test_snapshots_are_tagged_with_the_build() -> None:
    # The two builds pickle the faction states differently: neither may read the other's.
    assert snapshot.FORMAT.endswith("+mypyc") == frontier.engine.COMPILED


def test_every_rule_module_is_compiled_unless_built_pure() -> None:
    """setup.py picks up every engine module, a newly split one too (all but the record
    modules it keeps interpreted on purpose)."""
    engine = ROOT / "libs" / "frontier" / "engine"
    interpreted = {"__init__", "state", "errors", "config"}
    names = [
        ".".join(("frontier.engine", *p.relative_to(engine).with_suffix("").parts))
        for p in sorted(engine.rglob("*.py"))
        if not (p.parent == engine and p.stem in interpreted)
    ]
    suffix = ".so" if frontier.engine.COMPILED else ".py"
    files = {
        name: importlib.import_module(name.removesuffix(".__init__")).__file__ for name in names
    }
    assert "frontier.engine.factions.eyrie_board" in files
    assert {n: f for n, f in files.items() if not (f or "").endswith(suffix)} == {}
