"""``frontier check-bot``: test a bot before entering it, against the built-in bots.

    frontier check-bot --cmd "node bots/node/bot.js" [--matches N] [--seed S]
                       [--opponents greedy|random|search] [--rounds R] [--compose] [--json]

Starts a local stack (or, with ``--compose``, the compose stack), plays ``--matches``
matches with the bot command in each faction's seat in turn, and prints per match: the
result, strikes, rejected answers with their reasons, think time p50/p99 and where to
replay it (the web gateway's page while the stack is up: ``--keep-up``; the spectator's
history is saved next to the bot's log either way).  Exit status 0 only if every match
finished with no strike, no rejected answer and no crash of the bot; 1 otherwise.  The
work is :mod:`frontier.testing.checkbot`, which the pytest plugin shares.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import threading
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from frontier.cli.usage import EXIT_FAILED, EXIT_OK, UsageError, positive_int
from frontier.testing.checkbot import FACTIONS, OPPONENTS, CheckOptions, check_bot
from frontier.testing.stacks import (
    NoDocker,
    StackFailed,
    StackHandle,
    compose_stack,
    local_stack,
)


def add_check_bot_command(commands: Any) -> None:
    check = commands.add_parser(
        "check-bot", help="play a bot against the built-in bots on a local stack and judge it"
    )
    check.add_argument(
        "--cmd",
        required=True,
        help="the bot's command line; it gets the seat token in $FRONTIER_BOT_TOKEN and "
        "'--url HOST:PORT --match ID --seat SEAT' (or {url} {match} {seat} {token_file})",
    )
    check.add_argument(
        "--matches",
        type=positive_int,
        default=len(FACTIONS),
        help=f"matches to play, the bot's faction going round {', '.join(FACTIONS)} "
        f"(default {len(FACTIONS)}: each once)",
    )
    check.add_argument("--seed", type=int, default=1, help="match i gets seed S+i (default 1)")
    check.add_argument(
        "--opponents", default="greedy", choices=OPPONENTS, help="the built-in bots (greedy)"
    )
    check.add_argument(
        "--rounds", type=int, default=0, help="round limit 1..6 (default: the full match)"
    )
    check.add_argument(
        "--budget-ms", type=positive_int, default=5_000, help="time per decision (5000)"
    )
    check.add_argument(
        "--timeout", type=positive_int, default=900, help="seconds per match (default 900)"
    )
    check.add_argument(
        "--compose", action="store_true", help="use the compose stack (needs Docker)"
    )
    check.add_argument("--no-web", action="store_true", help="start no web gateway")
    check.add_argument(
        "--keep-up",
        action="store_true",
        help="after the check, keep the local stack up (to replay in a browser) until Ctrl-C",
    )
    check.add_argument("--workdir", type=Path, default=None, help="stack and bot logs")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.set_defaults(run=_check_bot)


def _check_bot(args: argparse.Namespace) -> int:
    if not 0 <= args.rounds <= 6:
        raise UsageError(f"--rounds must be 0..6, got {args.rounds}")
    workdir: Path = args.workdir or Path(tempfile.mkdtemp(prefix="frontier-check-"))
    options = CheckOptions(
        seed=args.seed,
        max_rounds=args.rounds,
        opponents=args.opponents,
        budget_ms=args.budget_ms,
        timeout_s=float(args.timeout),
        workdir=workdir / "bots",
    )
    stack: AbstractContextManager[StackHandle] = (
        compose_stack(Path.cwd())
        if args.compose
        else local_stack(workdir / "stack", web=not args.no_web)
    )
    try:
        with stack as handle:
            if not args.json:
                print(f"stack up at {handle.address}; playing {args.matches} match(es)", flush=True)
            try:
                report = check_bot(handle.target, args.cmd, args.matches, options)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            print(json.dumps(report.to_json(), indent=2) if args.json else report.table())
            if args.keep_up:
                print("the stack stays up for the replay links; Ctrl-C to stop", flush=True)
                _wait_for_ctrl_c()
    except NoDocker as exc:
        raise UsageError(str(exc)) from None
    except StackFailed as exc:  # not the bot's fault: no report, the stack's own story
        print(f"frontier check-bot: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK if report.ok else EXIT_FAILED


def _wait_for_ctrl_c() -> None:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
