"""``frontier tournament``: bots against bots in-process, win rates with 95% intervals.

    frontier tournament [--matches 200] [--lineup L ...] [--bots greedy,random] [--json]
                        [--plot DIR]

It plays many matches with the engine in this process, shows a progress bar on stderr and
prints win rates with 95% confidence intervals, each seat's VP contribution, the score by
round, how often each variant mechanic happened and how many matches were over before the
end of the last round; ``--plot DIR`` also writes PNG charts.  With two bots (``--bots
search-team,search``) the win rates are their head-to-head team results: every seed is played
twice, each bot on each team, and a bot's wins over its games carry a Wilson 95% interval.
Exit status 1 when a match could not be played to its end (the seeds are printed).  The
tournament itself is :mod:`frontier.play.tournament`.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

from frontier.bots import bot_names
from frontier.cli.progress import ProgressBar
from frontier.cli.usage import EXIT_FAILED, EXIT_OK, UsageError, positive_int
from frontier.engine import make_config
from frontier.play import tournament, tournament_plot
from frontier.play.tournament_report import report

DEFAULT_TOURNAMENT_LINEUP = "A=marquise;B=marquise"


def add_tournament_command(commands: Any) -> None:
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
    tour.add_argument(
        "--plot",
        metavar="DIR",
        type=Path,
        default=None,
        help="also write PNG charts into DIR (win rates, score by round, VP contribution)",
    )
    tour.set_defaults(run=_tournament)


def _tournament(args: argparse.Namespace) -> int:
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in bot_names()]
    if unknown:
        raise UsageError(f"unknown bot(s) {', '.join(unknown)}; known: {', '.join(bot_names())}")
    if len(set(bots)) < 2 or len(set(bots)) != len(bots):
        raise UsageError("--bots needs at least two different bots, each once")
    lineups = args.lineup or [DEFAULT_TOURNAMENT_LINEUP]
    for lineup in lineups:
        make_config(lineup=lineup)  # InvalidConfig: exit 2 with the reason
    if args.plot is not None:
        _plot_dir_ready(args.plot)
    if args.quiet:
        result = tournament.run(lineups, bots, args.matches, args.seed, args.jobs)
    else:
        with closing(ProgressBar(sys.stderr)) as bar:
            result = tournament.run(lineups, bots, args.matches, args.seed, args.jobs, bar)
    if args.json:
        print(json.dumps(result.as_json()))
    else:
        print(report(result))
    if args.plot is not None:
        for path in tournament_plot.write_plots(result, args.plot):
            print(f"wrote {path}", file=sys.stderr)
    return EXIT_FAILED if result.errors else EXIT_OK


def _plot_dir_ready(directory: Path) -> None:
    """Check before playing that the charts can be written: matplotlib is there and DIR is
    (or can be made) a folder.  Only the folder is created; nothing else changes."""
    try:
        tournament_plot.require_matplotlib()
    except tournament_plot.PlotUnavailable as exc:
        raise UsageError(str(exc)) from None
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--plot {directory}: not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--plot {directory}: {exc.strerror or exc}") from None
