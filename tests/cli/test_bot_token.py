"""``frontier bot``'s seat token: from a file or the environment, never required on argv.

A command line is readable by every user of the machine (``ps``), so a secret there is a
leak.  The bot itself is replaced by a double that records the token it was given: these
tests are about where the token comes from, not about playing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from frontier.bots.sdk import BotResult
from frontier.cli import bot as bot_cli
from frontier.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
BASE = ["bot", "--url", "127.0.0.1:1", "--match", "m" * 32, "--seat", "A1", "--json"]


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tokens the bot was started with; the environment starts without one."""
    tokens: list[str] = []

    async def fake_run_bot(url: str, match_id: str, token: str, *rest: Any) -> BotResult:
        tokens.append(token)
        return BotResult(winner="A")

    monkeypatch.setattr(bot_cli, "run_bot", fake_run_bot)
    monkeypatch.delenv("FRONTIER_BOT_TOKEN", raising=False)
    monkeypatch.delenv("FRONTIER_SEAT_TOKEN", raising=False)
    return tokens


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main([*BASE, *argv])
    return code, capsys.readouterr().err


def test_the_token_comes_from_the_environment(
    played: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRONTIER_BOT_TOKEN", "secret-1\n")
    code, err = _run(capsys)
    assert (code, err) == (0, "")
    assert played == ["secret-1"]


def test_the_older_environment_name_still_works_and_the_new_one_wins(
    played: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRONTIER_SEAT_TOKEN", "old")
    assert _run(capsys) == (0, "")
    monkeypatch.setenv("FRONTIER_BOT_TOKEN", "new")
    assert _run(capsys) == (0, "")
    assert played == ["old", "new"]


def test_the_token_comes_from_a_file_before_the_environment(
    played: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    secret = tmp_path / "token"
    secret.write_text("from-file\n")
    monkeypatch.setenv("FRONTIER_BOT_TOKEN", "from-env")
    code, err = _run(capsys, "--token-file", str(secret))
    assert (code, err) == (0, "")
    assert played == ["from-file"]


def test_a_token_on_the_command_line_still_works_but_warns(
    played: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(capsys, "--token", "on-argv")
    assert code == 0
    assert played == ["on-argv"]
    assert err.startswith("frontier: warning: --token puts the seat token in the process list")
    assert "FRONTIER_BOT_TOKEN" in err and "--token-file" in err


@pytest.mark.parametrize(
    ("contents", "message"),
    [
        (None, "cannot read --token-file"),
        ("", "holds no token"),
        ("  \n", "holds no token"),
        (b"\xff\xfe", "not UTF-8 text"),
    ],
)
def test_a_bad_token_file_is_one_line_and_starts_nothing(
    played: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    contents: str | bytes | None,
    message: str,
) -> None:
    """A missing, empty or binary file is refused even when the environment has a token:
    the operator named a file, and playing with another token would hide the mistake."""
    monkeypatch.setenv("FRONTIER_BOT_TOKEN", "from-env")
    secret = tmp_path / "token"
    if isinstance(contents, bytes):
        secret.write_bytes(contents)
    elif contents is not None:
        secret.write_text(contents)
    code, err = _run(capsys, "--token-file", str(secret))
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert played == []


def test_no_token_anywhere_names_the_ways_to_give_one(
    played: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(capsys)
    assert code == 2
    assert "$FRONTIER_BOT_TOKEN or --token-file" in err and len(err.strip().splitlines()) == 1
    assert played == []


def test_a_token_and_a_token_file_together_are_refused(
    played: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    secret = tmp_path / "token"
    secret.write_text("t")
    code, err = _run(capsys, "--token", "t", "--token-file", str(secret))
    assert code == 2
    assert "not allowed with argument" in err and len(err.strip().splitlines()) == 1
    assert played == []


# Where bots are launched or documented: none of them may pass a token on the command line.
LAUNCHERS = [
    "README.md",
    "Makefile",
    "docker-compose.yml",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")),
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "deploy").rglob("*.y*ml")),
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "libs" / "frontier").rglob("*.py")),
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "integration").rglob("*.py")),
    "bots/node/bot.js",
]
# ``--token`` followed by a value: a placeholder or variable in a shell line, or the next
# item of an argv list (prose such as "--token puts the token..." is not a launch)
TOKEN_ON_ARGV = re.compile(
    r"--token(?:"
    r"[ \t]*=[ \t]*\S"  # --token=T
    r"|[ \t]+(?:T|TOKEN|\$\S+|\"\$\S+|<\w+>)(?=[\s`\]]|$)"  # --token T, --token "$X"
    r"""|["'][ \t]*,[ \t]*\w)"""  # "--token", token
)


@pytest.mark.parametrize("path", LAUNCHERS)
def test_nothing_in_the_repository_passes_a_token_on_the_command_line(path: str) -> None:
    text = (ROOT / path).read_text()
    assert not TOKEN_ON_ARGV.findall(text), path


@pytest.mark.parametrize(
    "line",
    [
        "frontier bot --url x --match m --seat A1 --token T",
        "frontier bot --token=T",
        '*("--seat", seat.value, "--token", token, "--seed", str(seed)),',
        "node bot.js --url HOST:PORT --match ID --seat A1 --token TOKEN [--seed N]",
        'frontier bot --seat A1 --token "$SEAT_TOKEN"',
        "| `frontier bot --url HOST:PORT --match ID --seat A1 --token T [--kind random]` |",
    ],
)
def test_the_argv_check_catches_a_token_on_the_command_line(line: str) -> None:
    assert TOKEN_ON_ARGV.search(line)
