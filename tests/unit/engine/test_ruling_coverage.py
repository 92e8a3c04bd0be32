"""Every ruling of VARIANT_RULES.md has at least one test named after it.

The table below lists the rulings (R1-R34).  The tests are found by reading the source of
every module under ``tests/`` with :mod:`ast` (nothing is imported or run): a test function
covers a ruling when its name holds the ruling's id as a word, e.g. ``test_R17_...`` or
``test_R5_R9_R11_...``.  A ruling without a test fails here, and so does a test naming a ruling
that does not exist (a typo such as ``R71``).  ``python -m tests.unit.engine.test_ruling_coverage``
prints the whole table.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[2]
VARIANT_RULES = TESTS.parents[1] / "shared" / "design" / "VARIANT_RULES.md"

RULINGS: dict[str, str] = {
    "R1": "two teams of three seats; home maps",
    "R2": "faction roster, default lineup, invalid lineups rejected",
    "R3": "turn order per round, at most 6 rounds",
    "R4": "private hands; team_hands_visible option",
    "R5": "the mega-map; Winter suits seeded; map-qualified clearing ids",
    "R6": "two Border Bridges; no forest",
    "R7": "bridge fee: a card matching the destination",
    "R8": "fee card to the rival guarding the destination with 5+ warriors",
    "R9": "8 ruins with seeded, hidden items",
    "R10": "a crafting item stock per map",
    "R11": "one shared 47-card deck; reshuffle; hands of 3, limit 5",
    "R12": "setup on the home map only, as commands",
    "R13": "team ruling (sums; Eyrie breaks ties)",
    "R14": "allies never battle; a declared defender takes every hit",
    "R15": "Vagabond intervention (sword or boots)",
    "R16": "crafting on one map; contraband on the rival map, carried or dropped",
    "R17": "contraband scores when its carrier crosses a bridge home",
    "R18": "a removed carrier drops it; any faction collects for 1 move",
    "R19": "seizure: 1 battle action, the crate, 1 VP",
    "R20": "Vagabond torch pick-up; own team's item scores at home",
    "R21": "Revolutionary Agent: the Alliance's item always drops",
    "R22": "Shared Field Hospitals",
    "R23": "Wings of the Alliance",
    "R24": "Imperial Isolation in rounds 1-2",
    "R25": "Outrage Without Borders; sympathy across a bridge",
    "R26": "wood across a bridge: one fee per building action",
    "R27": "Vagabond relationships: allies, Hostile, aid",
    "R28": "Looting",
    "R29": "Legendary Abilities",
    "R30": "team scores; 90 VP; round-6 tie-breaks",
    "R31": "points never below 0",
    "R32": "every VP goes to the seat's team score",
    "R33": "'another player' means any other seat; what a card reveals",
    "R34": "base relationship track toward rivals; Infamy on its own turn",
}

_RULING_ID = re.compile(r"(?<![A-Za-z0-9])R(\d+)(?![A-Za-z0-9])")


@cache
def collected_tests() -> tuple[tuple[str, str], ...]:
    """(module path, function name) of every test function under tests/ (classes included)."""
    out: list[tuple[str, str]] = []
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test_"
            ):
                out.append((str(path.relative_to(TESTS.parent)), node.name))
    return tuple(out)


def rulings_named(name: str) -> list[str]:
    """The ruling ids a test name holds: ``test_R5_R9_seeded`` -> ["R5", "R9"]."""
    return [f"R{n}" for n in _RULING_ID.findall(name.replace("_", " "))]


def coverage() -> dict[str, list[str]]:
    """Each ruling -> the tests named after it (``path::function``)."""
    table: dict[str, list[str]] = {ruling: [] for ruling in RULINGS}
    for path, name in collected_tests():
        for ruling in rulings_named(name):
            table.setdefault(ruling, []).append(f"{path}::{name}")
    return table


def test_ruling_ids_are_read_from_test_names() -> None:
    assert rulings_named("test_R5_R9_R11_seeded_setup") == ["R5", "R9", "R11"]
    assert rulings_named("test_R17_march_home") == ["R17"]
    assert rulings_named("test_marquise_R2x_build") == []  # not a ruling id as a word
    assert rulings_named("test_ROUND_limit_and_R3") == ["R3"]


@pytest.mark.parametrize("ruling", list(RULINGS))
def test_every_ruling_has_a_test_named_after_it(ruling: str) -> None:
    tests = coverage()[ruling]
    assert tests, f"{ruling} ({RULINGS[ruling]}) has no test named after it"


def test_no_test_names_an_unknown_ruling() -> None:
    unknown = {r: t for r, t in coverage().items() if r not in RULINGS}
    assert not unknown, f"tests name rulings that do not exist: {unknown}"


def test_the_table_lists_exactly_the_rulings_of_variant_rules_md() -> None:
    if not VARIANT_RULES.exists():
        pytest.skip(f"{VARIANT_RULES} is not available here")
    text = VARIANT_RULES.read_text()
    documented = set(re.findall(r"^- (R\d+) ", text, flags=re.MULTILINE))
    assert documented == set(RULINGS)


def main() -> None:  # pragma: no cover - a reading aid
    for ruling, tests in coverage().items():
        print(f"{ruling:>4}  {len(tests):>3}  {RULINGS.get(ruling, '?')}")
        for t in tests:
            print(f"           {t}")


if __name__ == "__main__":  # pragma: no cover
    main()
