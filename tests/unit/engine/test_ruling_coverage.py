"""Every ruling of docs/rules.md has at least one test named after it.

The rulings (R1-R34) are read from ``docs/rules.md`` in this repository: every line
``- R<n> <text>``.  The tests are found by reading the source of every module under
``tests/`` with :mod:`ast` (nothing is imported or run): a test function covers a ruling when
its name holds the ruling's id as a word, e.g. ``test_R17_...`` or ``test_R5_R9_R11_...``.  A
ruling without a test fails here, and so does a test naming a ruling that docs/rules.md does
not have (a typo such as ``R71``).  Nothing is skipped: without docs/rules.md, or with no
ruling in it, the module fails.  ``python -m tests.unit.engine.test_ruling_coverage`` prints
the whole table.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[2]
RULES_MD = TESTS.parent / "docs" / "rules.md"

_RULING_LINE = re.compile(r"^- (R\d+) (.+)$", flags=re.MULTILINE)


def read_rulings(text: str) -> dict[str, str]:
    """Ruling id -> its text's first sentence, from the ``- R<n> <text>`` lines of ``text``."""
    rulings: dict[str, str] = {}
    for ruling, rest in _RULING_LINE.findall(text):
        if ruling in rulings:
            raise ValueError(f"{ruling} is listed twice")
        rulings[ruling] = rest.split(". ", 1)[0][:80]
    return rulings


RULINGS: dict[str, str] = read_rulings(RULES_MD.read_text())

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


def test_rules_md_lists_the_rulings_r1_to_r34_in_full() -> None:
    assert set(RULINGS) == {f"R{n}" for n in range(1, 35)}  # R34 sits with the Vagabonds
    # the revised text is there, not a summary
    assert "*(Added.)* Secrecy of optional decisions" in RULES_MD.read_text()


def test_rulings_are_read_from_the_list_lines_only() -> None:
    text = "# title\n- R1 First. More.\nprose naming R7\n- R2 Second\n-R3 not a ruling\n"
    assert read_rulings(text) == {"R1": "First", "R2": "Second"}
    with pytest.raises(ValueError, match="R1 is listed twice"):
        read_rulings("- R1 a\n- R1 b\n")


def main() -> None:  # pragma: no cover - a reading aid
    for ruling, tests in coverage().items():
        print(f"{ruling:>4}  {len(tests):>3}  {RULINGS.get(ruling, '?')}")
        for t in tests:
            print(f"           {t}")


if __name__ == "__main__":  # pragma: no cover
    main()
