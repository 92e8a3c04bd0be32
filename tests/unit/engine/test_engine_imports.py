"""The engine's import graph: no cycle, and the import-linter contract covers every module.

The graph comes from grimp (import-linter's machinery), which reads every import statement
of the package, those inside functions and under ``TYPE_CHECKING`` included: a lazy import
hides a cycle from Python, not from a reader.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import grimp
import pytest

ENGINE = "frontier.engine"
FACTIONS = f"{ENGINE}.factions"
PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
# The two modules that may import a faction: the roster (it registers them) and the engine
# package itself (it imports the roster).
MAY_IMPORT_FACTIONS = {ENGINE, f"{ENGINE}.roster"}
PROTOCOL = {FACTIONS, f"{FACTIONS}.base"}  # the package and the protocol every faction meets


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("frontier")


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def engine_edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    modules = {m for m in graph.modules if m == ENGINE or m.startswith(ENGINE + ".")}
    return {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}


def test_cycles_finds_a_cycle_and_only_cycles() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(edges) == [["a", "b", "c"]]


def test_the_engine_modules_form_no_import_cycle(graph: grimp.ImportGraph) -> None:
    assert cycles(engine_edges(graph)) == []


def test_only_the_roster_imports_a_faction(graph: grimp.ImportGraph) -> None:
    edges = engine_edges(graph)
    faction_modules = {m for m in edges if m.startswith(FACTIONS + ".")} - PROTOCOL
    importers = {
        m
        for m, imported in edges.items()
        if imported & faction_modules and m not in faction_modules
    }
    assert importers == {f"{ENGINE}.roster"}


def _contract() -> dict[str, Any]:
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    contracts: list[dict[str, Any]] = config["contracts"]
    return next(c for c in contracts if c["name"].startswith("The shared rule modules"))


def test_the_contract_lists_every_faction_and_every_shared_module(
    graph: grimp.ImportGraph,
) -> None:
    """A new module must not slip past the contract: the lists are exactly the tree's."""
    modules = set(engine_edges(graph))
    factions = {m for m in modules if m.startswith(FACTIONS + ".")} - PROTOCOL
    shared = {m for m in modules if m.count(".") == 2 and m != FACTIONS} - MAY_IMPORT_FACTIONS
    contract = _contract()
    assert set(contract["forbidden_modules"]) == factions
    assert set(contract["source_modules"]) == shared
