"""The browser client's modules are typed from the contract, not with ``any``.

The gateway's JSON is typed by web/src/contract.ts, made from the TypeScript that
protoc-gen-es generates from proto/ (``make web``), so a page module has no reason to fall
back to ``any``: one that does loses the check that a field it reads exists in the contract.
``tsc`` (``make web``) checks the types; this test keeps ``any`` out of every module,
which is what ``tsc --strict`` alone cannot do (an explicit ``any`` is allowed by it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB_SRC = ROOT / "web" / "src"
# Every module of the client (web/src/gen/, the generated contract, is not ours to check)
MODULES = sorted(path.name for path in WEB_SRC.glob("*.ts"))
# `any` where a type goes: after `:`, `as`, `<`, `,`, `|`, `&` or `=` (a generic's default),
# or as `any[]`.  Comments are dropped first: prose says "any browser".
ANY_TYPE = re.compile(r"(?:(?::|\bas|<|,|\||&|=)\s*any\b(?![\w$]))|\bany\s*\[\]")
LINE_COMMENT = re.compile(r"(?:^|(?<=\s))//.*$", re.MULTILINE)
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def any_types(source: str) -> list[str]:
    """``<line>: <text>`` of each use of ``any`` as a type in a TypeScript source."""
    # a block comment keeps its line breaks, so the lines keep their numbers
    code = BLOCK_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), source)
    code = LINE_COMMENT.sub("", code)
    return [
        f"{number}: {line.strip()}"
        for number, line in enumerate(code.splitlines(), start=1)
        if ANY_TYPE.search(line)
    ]


@pytest.mark.parametrize("name", MODULES)
def test_the_module_uses_no_any(name: str) -> None:
    assert any_types((WEB_SRC / name).read_text()) == []


@pytest.mark.parametrize(
    "line",
    [
        "function f(view: any): void {",
        "const x = y as any;",
        "const m: Record<string, any> = {};",
        "export async function api<T = any>(path: string): Promise<T> {",
        "let list: any[] = [];",
        "const f = (e: string | any) => e;",
    ],
)
def test_each_spelling_of_any_is_found(line: str) -> None:
    assert any_types(line) == [f"1: {line}"]


@pytest.mark.parametrize(
    "line",
    [
        "// the match from any browser, any device",
        "/** What it writes: any field may be absent. */ const a = 1;",
        "const ANY_SEAT = 'any'; // a token whose seat the page did not learn",
        "html('p', {}, 'Host link (manage this match from any device): ')",
        "const company = anyone + many;",
    ],
)
def test_prose_and_strings_are_not_types(line: str) -> None:
    assert any_types(line) == []
