"""Every Python module of the repository stays short enough to read, and every function too.

A module over 500 lines holds more than one concept and a function over 80 lines more than
one step: both get split (by concept, into helpers) rather than let grow.  Generated code
(``frontier/v1``'s protobuf modules) is not ours to shape and is left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("libs", "services", "tests")
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def _generated(path: Path) -> bool:
    return path.parent.name == "v1" and "_pb2" in path.name


def modules() -> Iterator[Path]:
    for top in SOURCE_DIRS:
        for path in sorted((ROOT / top).rglob("*.py")):
            if not _generated(path) and "node_modules" not in path.parts:
                yield path


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def long_modules(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``path: N lines`` for each module over the limit."""
    out = []
    for path in paths:
        lines = len(path.read_text().splitlines())
        if lines > MAX_MODULE_LINES:
            out.append(f"{path.relative_to(root)}: {lines} lines")
    return out


def long_functions(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``path:line name: N lines`` for each function (or method) over the limit, counted
    from its ``def`` to its last line."""
    out = []
    for path in paths:
        for fn in _functions(ast.parse(path.read_text(), filename=str(path))):
            lines = (fn.end_lineno or fn.lineno) - fn.lineno + 1
            if lines > MAX_FUNCTION_LINES:
                out.append(f"{path.relative_to(root)}:{fn.lineno} {fn.name}: {lines} lines")
    return out


def test_the_walk_sees_the_tree_but_not_generated_code() -> None:
    paths = list(modules())
    names = {p.relative_to(ROOT).as_posix() for p in paths}
    assert "libs/frontier/engine/view.py" in names
    assert "tests/unit/test_code_shape.py" in names
    assert not any(_generated(p) for p in paths)


def test_the_limits_catch_a_long_module_and_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(MAX_FUNCTION_LINES))
    long = tmp_path / "long.py"
    long.write_text(f"def f() -> None:\n{body}\n" + "\n" * MAX_MODULE_LINES)
    short = tmp_path / "short.py"
    short.write_text("def g() -> None:\n    pass\n")
    lines = MAX_FUNCTION_LINES + 1 + MAX_MODULE_LINES
    assert long_modules([long, short], tmp_path) == [f"long.py: {lines} lines"]
    assert long_functions([long, short], tmp_path) == [
        f"long.py:1 f: {MAX_FUNCTION_LINES + 1} lines"
    ]


def test_no_module_is_over_500_lines() -> None:
    offenders = long_modules(list(modules()))
    assert not offenders, "split these modules by concept:\n" + "\n".join(offenders)


def test_no_function_is_over_80_lines() -> None:
    offenders = long_functions(list(modules()))
    assert not offenders, "split these functions into helpers:\n" + "\n".join(offenders)
