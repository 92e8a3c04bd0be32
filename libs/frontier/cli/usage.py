"""What every ``frontier`` command shares: exit codes, usage errors and argument types.

Kept apart from :mod:`frontier.cli.main` so that each command group's module can raise a
usage error or parse a count without importing the parser that imports it (the old
``cli.py``/``bot_cli.py`` pair imported each other for exactly these names).

Exit codes: 0 success, 1 the thing checked failed (replay mismatch, aborted match), 2 bad
input (flags, lineup, seed, unreadable replay file).
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

PROG = "frontier"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad input from the user: reported on one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse prints the whole usage block and exits on an error; we want one line and a
    return value, so ``main(argv)`` can be called in-process (tests) without SystemExit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def positive_int(text: str) -> int:
    """An argparse type: an int of at least 1."""
    return _int_at_least(text, 1)


def non_negative_int(text: str) -> int:
    """An argparse type: an int of at least 0."""
    return _int_at_least(text, 0)


def _int_at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
    return value


def error(message: str) -> None:
    """Report bad input on one stderr line, as every command does."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
