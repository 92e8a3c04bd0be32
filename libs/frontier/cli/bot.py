"""``frontier bot``: one seat of a running match, played through BotService as a process.

    FRONTIER_BOT_TOKEN=... frontier bot --url HOST:PORT --match ID --seat A1 [--kind random|greedy]
    frontier bot --url HOST:PORT --match ID --seat A1 --token-file PATH [--kind ...]

It plays the seat as any bot in any language would, and exits 0 when the match is over.

The seat token is a secret: whoever holds it plays the seat.  A command line is readable by
every user of the machine (``ps``, ``/proc/PID/cmdline``), so the token comes from a file
(``--token-file``) or the environment (``FRONTIER_BOT_TOKEN``; ``FRONTIER_SEAT_TOKEN``, its
older name, is read too), which only the process's own user can read.  ``--token`` still
works, as scripts use it, but warns on stderr that it exposes the token.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from frontier.bots.sdk import STRATEGIES, BotError, run_bot
from frontier.cli.usage import EXIT_FAILED, EXIT_OK, UsageError
from frontier.engine import Seat

TOKEN_ENV = "FRONTIER_BOT_TOKEN"
OLD_TOKEN_ENV = "FRONTIER_SEAT_TOKEN"  # the first name of TOKEN_ENV, still read
ARGV_TOKEN_WARNING = (
    "frontier: warning: --token puts the seat token in the process list, where every user "
    f"of this machine can read it; use ${TOKEN_ENV} or --token-file instead"
)


def add_bot_command(commands: Any) -> None:
    bot = commands.add_parser("bot", help="play one seat of a running match through BotService")
    bot.add_argument("--url", required=True, help="the orchestrator, HOST:PORT")
    bot.add_argument("--match", required=True, help="the match id")
    bot.add_argument(
        "--seat", required=True, choices=[s.value for s in Seat], help="the seat the token plays"
    )
    secret = bot.add_mutually_exclusive_group()
    secret.add_argument(
        "--token-file",
        type=Path,
        help=f"a file holding the seat's secret token (default: ${TOKEN_ENV})",
    )
    secret.add_argument(
        "--token",
        help="the seat's secret token on the command line: visible to every user of the "
        f"machine, prefer ${TOKEN_ENV} or --token-file",
    )
    bot.add_argument("--kind", default="random", choices=sorted(STRATEGIES), help="the bot")
    bot.add_argument("--seed", type=int, default=0, help="the bot's seed (default 0)")
    bot.add_argument("--json", action="store_true", help="print one JSON object at the end")
    bot.add_argument("--verbose", action="store_true", help="log the stream's progress")
    bot.set_defaults(run=_bot)


def seat_token(args: argparse.Namespace, env: Mapping[str, str]) -> str:
    """The token from ``--token-file``, ``--token`` (warned about) or the environment, in
    that order; a missing, unreadable or empty one is a usage error."""
    token: str
    if args.token_file is not None:
        try:
            token = args.token_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise UsageError(f"cannot read --token-file {args.token_file}: {reason}") from None
        if not token:
            raise UsageError(f"--token-file {args.token_file} holds no token")
        return token
    if args.token is not None:
        token = args.token.strip()
        if token:  # an empty one is refused below, on one line
            print(ARGV_TOKEN_WARNING, file=sys.stderr)
    else:
        token = env.get(TOKEN_ENV, "").strip() or env.get(OLD_TOKEN_ENV, "").strip()
    if not token:
        raise UsageError(f"a seat token is required: ${TOKEN_ENV} or --token-file")
    return token


def _bot(args: argparse.Namespace) -> int:
    token = seat_token(args, os.environ)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s bot %(levelname)s %(message)s",
    )
    try:
        result = asyncio.run(
            run_bot(args.url, args.match, token, args.kind, args.seed, Seat(args.seat))
        )
    except BotError as exc:
        print(f"frontier: error: bot {args.seat}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_FAILED
    summary = {
        "seat": args.seat,
        "kind": args.kind,
        "winner": result.winner,
        "scores": {"A": result.score_a, "B": result.score_b},
        "decisions": result.decisions,
        "rejected": result.rejected,
        "strikes": result.strikes,
        "taken_over": result.taken_over,
        "reconnects": result.reconnects,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"bot {args.kind} on {args.seat}: match over, winner {result.winner} "
            f"(A {result.score_a}, B {result.score_b}); {result.decisions} decisions, "
            f"{result.rejected} rejected, {result.strikes} strikes"
        )
    return EXIT_OK
