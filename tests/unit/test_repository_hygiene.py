"""The repository's prose says what is true now: no diary, no machine, no dead links.

The git log keeps the history, so the README, ``docs/`` and the code's docstrings and comments
hold none of it: no issue numbers, no numbered stages of past speed work, no branch, session
or commit hash named in prose, and no absolute path of someone's machine.  Checked here:

* README.md and every Markdown file of the repository, whole;
* the docstrings (modules, classes, functions) and comments of every Python file (generated
  code and the built web client aside);
* the other text files that hold prose: the contracts (``proto/``), ``deploy/``, ``.ci/``, the
  Makefile, the build and compose files, the web client's and the Node.js bot's sources,
  whole (there a temporary directory is the container's or the CI machine's own, so only the
  other machine paths count).

Also: README.md stays a front door (at most :data:`README_MAX_LINES` lines), every relative
link in README.md and ``docs/`` points at a file of the repository (and, with an ``#anchor``
into a Markdown file, at one of its headings), and every repository path they write as code
(``tests/unit/...py``, ``libs/frontier/...``, or a module of a package such as
``orchestrator/commit.py``) exists, so that moving a file without its mentions fails here.
A docstring or comment that sends the reader to a section (``docs/operations.md, "Errors"``)
names a heading that page has.

The game itself has rounds, so rounds are flagged only in the diary's wording: an ordinal or
a number spelled out next to the word, or rounds named after the optimisation.  The game's
rounds are written with digits, as the rulings do ("round 6", "rounds 1 and 2"), and a
"round trip" is not a round.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 300

TMP = "a workstation's temporary path"
_ORDINALS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
_NUMBERS = "one|two|three|four|five|six|seven|eight|nine|ten"

# (what it is, the pattern)
FORBIDDEN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an issue number", re.compile(r"\bissues?\s*#\s*\d+|\bissues?\s+\d+\b", re.IGNORECASE)),
    ("a pull request number", re.compile(r"\bPR\s*#\d+")),
    (
        "an optimisation round",
        re.compile(
            r"\boptimi[sz]ation rounds?\b|\brounds? of optimi[sz]ation\b"
            rf"|\b(?:{_ORDINALS})[ -]round\b(?![ -]trip)"
            rf"|\bround (?:{_NUMBERS})\b",
            re.IGNORECASE,
        ),
    ),
    ("a branch or a session", re.compile(r"\bthis (?:branch|session)\b", re.IGNORECASE)),
    (
        "a commit hash in prose",
        re.compile(
            r"\b(?:main|commit)\s+\(?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"
            r"|\((?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,12}[,)]"
        ),
    ),
    ("an absolute path of a machine", re.compile(r"(?<![\w.$\"'}~-])/(?:work|home|root|Users)/")),
    (TMP, re.compile(r"(?<![\w.$\"'}~-])/tmp/")),
)

_SKIPPED_DIRS = {
    "node_modules",
    "__pycache__",
    "build",
    "var",
    "dist",
}
_GENERATED = (
    ROOT / "libs" / "frontier" / "v1",
    ROOT / "libs" / "frontier" / "web" / "static",
    ROOT / "web" / "src" / "gen",  # the contract's TypeScript types (make web)
)


def offences(text: str, first_line: int = 1, tmp: bool = True) -> list[str]:
    """Each forbidden phrase of ``text``, as ``<line>: <what it is>: <the phrase>`` (the
    text starting on line ``first_line`` of its file; ``tmp``: whether a temporary
    directory counts)."""
    found = []
    for what, pattern in FORBIDDEN:
        if what == TMP and not tmp:
            continue
        for m in pattern.finditer(text):
            line = first_line + text.count("\n", 0, m.start())
            found.append(f"{line}: {what}: {m.group(0)!r}")
    return found


def _files(top: Path, suffix: str | None = None) -> Iterator[Path]:
    """The files under ``top`` (or ``top`` itself), without caches, builds, virtual
    environments, dependencies and generated code."""
    if top.is_file():
        yield top
        return
    for folder, dirs, names in os.walk(top):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIPPED_DIRS
            and not d.startswith(".")
            and not d.endswith(".egg-info")
            and here / d not in _GENERATED
        )
        for name in sorted(names):
            if suffix is None or name.endswith(suffix):
                yield here / name


def python_prose(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every docstring and comment of a Python module."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                yield node.body[0].lineno, docstring
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


# Besides Markdown and Python files: where else prose is written (whole files, or folders).
OTHER_PROSE = (
    "proto",
    "deploy",
    ".ci",
    "Makefile",
    "pyproject.toml",
    "docker-compose.yml",
    "web/src",
    "bots/node",
)
_NOT_PROSE = {".binpb", ".png", ".json", ".lock"}


def prose() -> Iterator[tuple[str, int, str, bool]]:
    """(file, first line, text, whether a temporary directory counts) of all it reads."""
    for path in _files(ROOT, ".md"):
        yield str(path.relative_to(ROOT)), 1, path.read_text(), True
    for path in _files(ROOT, ".py"):
        for line, text in python_prose(path.read_text()):
            yield str(path.relative_to(ROOT)), line, text, True
    for top in OTHER_PROSE:
        for path in _files(ROOT / top):
            if path.suffix not in {".py", ".md", *_NOT_PROSE} and not path.name.startswith("."):
                yield str(path.relative_to(ROOT)), 1, path.read_text(), False


def test_no_issue_round_branch_session_hash_or_machine_path_in_docs_or_docstrings() -> None:
    found = [
        f"{path}:{offence}"
        for path, line, text, tmp in prose()
        for offence in offences(text, line, tmp)
    ]
    assert not found, "history or machine paths in the repository's prose:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "text",
    [
        "measured in issue 16",
        "see issue #27",
        "the fourth round of optimisation",
        "after the sixth round",
        "memory round three",
        "Optimization rounds",
        "on this branch",
        "this session's quiet machine",
        "main a08e7a2 against",
        "main before the round (82000fd, a clean clone)",
        "main's venv in /work/base5",
        "/home/me/frontier",
        "written to /tmp/bench.json",
    ],
)
def test_the_patterns_catch_the_diary(text: str) -> None:
    assert offences(text)


@pytest.mark.parametrize(
    "text",
    [
        "After round 6: the higher team score wins",
        "in rounds 1 and 2 an Eyrie may skip",
        "the client needs no second round trip",
        "round_robin over every address",
        "a file in the tmp_path fixture",
        '"$rootfs"/tmp/* and $tmp/root/usr',
        "seed 9 of the default lineup",
    ],
)
def test_the_patterns_leave_game_rounds_and_ordinary_words_alone(text: str) -> None:
    assert not offences(text)


def test_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _headings(markdown: str) -> list[str]:
    """The titles of a Markdown file's headings (code blocks aside)."""
    titles = []
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            titles.append(line.lstrip("#").strip())
    return titles


def heading_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped,
    spaces as hyphens."""
    return {re.sub(r"[^\w\- ]", "", t.lower()).replace(" ", "-") for t in _headings(markdown)}


def links() -> Iterator[tuple[Path, str]]:
    for path in [ROOT / "README.md", *_files(ROOT / "docs", ".md")]:
        text = re.sub(r"```.*?```", "", path.read_text(), flags=re.DOTALL)
        for target in _LINK.findall(text):
            if not re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                yield path, target


def test_every_link_of_the_docs_points_at_a_file_of_the_repository() -> None:
    broken = []
    for path, target in links():
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(ROOT)}: {target}"
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(f"{where} (no such file)")
        elif (
            anchor
            and resolved.suffix == ".md"
            and anchor not in heading_anchors(resolved.read_text())
        ):
            broken.append(f"{where} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


# A path written as code that starts at one of the repository's top folders, or at one of
# the packages of libs/frontier (``orchestrator/commit.py``).
_TOP = "bots|deploy|docs|libs|proto|services|tests|web"
_PACKAGES = "bench|cli|domain|engine|ops|orchestrator|play|runtime|store|wire"
_PATH = re.compile(rf"`((?:{_TOP}|{_PACKAGES})/[\w./-]*[\w/])`")


def test_every_repository_path_the_docs_name_exists() -> None:
    missing = [
        f"{path.relative_to(ROOT)}: {named}"
        for path in [ROOT / "README.md", *_files(ROOT / "docs", ".md")]
        for named in _PATH.findall(path.read_text())
        if not (ROOT / named).exists() and not (ROOT / "libs" / "frontier" / named).exists()
    ]
    assert not missing, "the docs name paths that do not exist:\n" + "\n".join(missing)


# A pointer to a section of the docs: README or docs/<page>.md, then the heading in quotes.
_SECTION = re.compile(r'\b(README(?:\.md)?|docs/\w+\.md)\b[^"\n]{0,25}"([^"\n]+)"')


def test_every_section_the_code_points_at_exists() -> None:
    headings: dict[str, list[str]] = {}
    stale = []
    for path, line, text, _ in prose():
        for found in _SECTION.finditer(text):
            page, section = found.groups()
            page = "README.md" if page.startswith("README") else page
            if page not in headings:
                target = ROOT / page
                headings[page] = (
                    [h.lower() for h in _headings(target.read_text())] if target.exists() else []
                )
            if not any(h.startswith(section.lower()) for h in headings[page]):
                at = line + text.count("\n", 0, found.start())
                stale.append(f"{path}:{at}: {page}, {section!r}")
    assert not stale, "pointers to sections that do not exist:\n" + "\n".join(stale)


def test_the_link_check_reads_links_and_anchors() -> None:
    assert _LINK.findall("see [a](docs/x.md#b) and ![p](img.png) and [c](https://e.org)") == [
        "docs/x.md#b",
        "img.png",
        "https://e.org",
    ]
    assert _PATH.findall("`tests/unit/x.py`, `libs/frontier/domain/<name>_service.py`, `b.py`") == [
        "tests/unit/x.py"
    ]
    assert _SECTION.findall('(docs/operations.md, "Errors") and README "Quick start"') == [
        ("docs/operations.md", "Errors"),
        ("README", "Quick start"),
    ]
    assert heading_anchors("# Top\n```\n# not a heading\n```\n## The compiled engine (mypyc)") == {
        "top",
        "the-compiled-engine-mypyc",
    }
