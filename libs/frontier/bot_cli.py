"""``frontier bot`` (a remote bot process) and ``frontier tournament`` (bots in-process).

    frontier bot --url HOST:PORT --match ID --seat A1 --token TOKEN [--kind random|greedy]
    frontier tournament [--matches 200] [--lineup L ...] [--bots greedy,random] [--json]

``bot`` plays one seat of a running match through BotService, as any bot in any language
would, and exits 0 when the match is over.  The token may also come from the environment
(``FRONTIER_SEAT_TOKEN``), which keeps it out of the process list.

``tournament`` plays many matches with the engine in this process, shows a progress bar on
stderr and prints win rates with 95% confidence intervals; exit status 1 when a match could
not be played to its end (the seeds are printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from typing import Any

from frontier import tournament
from frontier.bots import bot_names
from frontier.bots.sdk import STRATEGIES, BotError, run_bot
from frontier.engine import Seat, make_config

DEFAULT_TOURNAMENT_LINEUP = "A=marquise;B=marquise"
TOKEN_ENV = "FRONTIER_SEAT_TOKEN"


def add_bot_commands(commands: Any) -> None:
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

    tour = commands.add_parser(
        "tournament", help="bots against bots in-process: win rates with 95%% intervals"
    )
    tour.add_argument(
        "--matches", type=positive_int, default=200, help="matches per lineup (default 200)"
    )
    tour.add_argument(
        "--lineup",
        action="append",
        default=None,
        help=f"a lineup; repeat for several (default {DEFAULT_TOURNAMENT_LINEUP!r})",
    )
    tour.add_argument(
        "--bots",
        default="greedy,random",
        help=f"comma-separated bots, at least two (known: {', '.join(bot_names())})",
    )
    tour.add_argument("--seed", type=int, default=0, help="seed of the first match (default 0)")
    tour.add_argument("--jobs", type=positive_int, default=1, help="processes (default 1)")
    tour.add_argument("--json", action="store_true", help="print one JSON object")
    tour.add_argument("--quiet", action="store_true", help="no progress bar")
    tour.set_defaults(run=_tournament)


def positive_int(text: str) -> int:
    """An argparse type: an int of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _bot(args: argparse.Namespace) -> int:
    from frontier.cli import EXIT_FAILED, EXIT_OK, UsageError

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


def _tournament(args: argparse.Namespace) -> int:
    from frontier.cli import EXIT_FAILED, EXIT_OK, UsageError

    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in bot_names()]
    if unknown:
        raise UsageError(f"unknown bot(s) {', '.join(unknown)}; known: {', '.join(bot_names())}")
    if len(set(bots)) < 2 or len(set(bots)) != len(bots):
        raise UsageError("--bots needs at least two different bots, each once")
    lineups = args.lineup or [DEFAULT_TOURNAMENT_LINEUP]
    for lineup in lineups:
        make_config(lineup=lineup)  # InvalidConfig: exit 2 with the reason
    progress = None if args.quiet else tournament.ProgressBar(sys.stderr)
    result = tournament.run(lineups, bots, args.matches, args.seed, args.jobs, progress)
    if args.json:
        print(json.dumps(result.as_json()))
    else:
        print(tournament.report(result))
    return EXIT_FAILED if result.errors else EXIT_OK
