"""The ``frontier`` command line: the parser of every command group, and the exit codes.

    frontier play [--seed N] [--lineup "A=marquise;B=marquise"] [--bot random]
                  [--replay FILE] [--json]
    frontier replay FILE
    frontier bench engine [--matches N] [--lineup ...] [--seed N] [--json]
    frontier bench stack [--matches N] [--think-ms T] [--json]
    frontier bench wire|publish|domain-calls|memory|search ...
    frontier stack up|play ...
    frontier bot --url HOST:PORT --match ID --seat A1 [--token-file F] [--kind random|greedy]
    frontier tournament [--matches N] [--lineup L ...] [--bots greedy,random] [--json]
    frontier check-bot --cmd "node mybot.js" [--matches N] [--opponents greedy] [--json]
    frontier keys create --name NAME [--matches-hosted N ...] | list | revoke KEY_ID
    frontier arena run | register --name NAME | status | leaderboard | campaign [--json]

Commands, flags and JSON keys are a public interface (scripts and CI parse them).  Each
command group is a module of this package that adds its subcommands here; this module only
assembles them and maps errors to exit codes (:mod:`frontier.cli.usage`).  Bad input is
reported on one stderr line, never with a traceback: a traceback is kept for engine bugs,
where it is what one needs.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from frontier.cli.arena import add_arena_commands
from frontier.cli.bench import add_bench_commands
from frontier.cli.bot import add_bot_command
from frontier.cli.check_bot import add_check_bot_command
from frontier.cli.keys import add_keys_commands
from frontier.cli.play import add_play_commands
from frontier.cli.stack import add_stack_commands
from frontier.cli.tournament import add_tournament_command
from frontier.cli.usage import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PROG, Parser, UsageError, error
from frontier.engine import InvalidConfig
from frontier.play.match_runner import MatchAborted
from frontier.play.replay import ReplayError


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description="Frontier: Root 3x3 Frontier Alliance Mode.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_play_commands(commands)
    add_bench_commands(commands)
    add_stack_commands(commands)
    add_bot_command(commands)
    add_tournament_command(commands)
    add_check_bot_command(commands)
    add_keys_commands(commands)
    add_arena_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status instead of exiting."""
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help: argparse has printed what it had to
            if exc.code is None:
                return EXIT_OK
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
        status: int = args.run(args)
        return status
    except UsageError as exc:
        error(str(exc))
        return EXIT_USAGE
    except InvalidConfig as exc:
        error(f"invalid match config: {exc}")
        return EXIT_USAGE
    except ReplayError as exc:
        error(str(exc))
        return EXIT_USAGE
    except MatchAborted as exc:
        error(f"match aborted: {exc}")
        return EXIT_FAILED
