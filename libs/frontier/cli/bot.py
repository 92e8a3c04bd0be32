"""``frontier bot``: one seat of a running match, played through BotService as a process.

    frontier bot --url HOST:PORT --match ID --seat A1 --token TOKEN [--kind random|greedy]

It plays the seat as any bot in any language would, and exits 0 when the match is over.
The token may also come from the environment (``FRONTIER_SEAT_TOKEN``), which keeps it out
of the process list.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from typing import Any

from frontier.bots.sdk import STRATEGIES, BotError, run_bot
from frontier.cli.usage import EXIT_FAILED, EXIT_OK, UsageError
from frontier.engine import Seat

TOKEN_ENV = "FRONTIER_SEAT_TOKEN"


def add_bot_command(commands: Any) -> None:
    bot = commands.add_parser("bot", help="play one seat of a running match through BotService")
    bot.add_argument("--url", required=True, help="the orchestrator, HOST:PORT")
    bot.add_argument("--match", required=True, help="the match id")
    bot.add_argument(
        "--seat", required=True, choices=[s.value for s in Seat], help="the seat the token plays"
    )
    bot.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV, ""),
        help=f"the seat's secret token (default: ${TOKEN_ENV})",
    )
    bot.add_argument("--kind", default="random", choices=sorted(STRATEGIES), help="the bot")
    bot.add_argument("--seed", type=int, default=0, help="the bot's seed (default 0)")
    bot.add_argument("--json", action="store_true", help="print one JSON object at the end")
    bot.add_argument("--verbose", action="store_true", help="log the stream's progress")
    bot.set_defaults(run=_bot)


def _bot(args: argparse.Namespace) -> int:
    if not args.token:
        raise UsageError(f"a seat token is required: --token or ${TOKEN_ENV}")
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s bot %(levelname)s %(message)s",
    )
    try:
        result = asyncio.run(
            run_bot(args.url, args.match, args.token, args.kind, args.seed, Seat(args.seat))
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
