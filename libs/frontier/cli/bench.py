"""``frontier bench engine`` and ``frontier bench stack``: the benchmarks' command line.

    frontier bench engine [--matches N] [--lineup ...] [--seed N] [--json]
    frontier bench stack [--matches N] [--think-ms T] [--orchestrators N] [--sync S]
                         [--commands-per-match K] [--client-loop L] [--json]

The measuring itself lives in :mod:`frontier.bench`; this module only turns flags into a run
and a run into text or one JSON object.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from frontier.bench import engine as bench_engine
from frontier.bench import stack as bench_stack
from frontier.cli.usage import EXIT_OK, positive_int


def add_bench_commands(commands: Any) -> None:
    bench = commands.add_parser("bench", help="benchmarks")
    targets = bench.add_subparsers(dest="target", metavar="TARGET", required=True)

    engine = targets.add_parser("engine", help="random-bot matches in-process on one core")
    engine.add_argument(
        "--matches",
        type=positive_int,
        default=bench_engine.DEFAULT_MATCHES,
        help=f"matches to play (default {bench_engine.DEFAULT_MATCHES})",
    )
    engine.add_argument("--lineup", default=None, help="lineup (default: the default lineup)")
    engine.add_argument("--seed", type=int, default=0, help="seed of the first match (default 0)")
    engine.add_argument("--json", action="store_true", help="print one JSON object")
    engine.set_defaults(run=_bench_engine)

    stack = targets.add_parser("stack", help="concurrent bot matches through a local stack")
    stack.add_argument("--matches", type=int, default=20, help="concurrent matches (20)")
    stack.add_argument("--lineup", default="A=marquise;B=marquise", help="lineup")
    stack.add_argument("--sync", default="always", help="JetStream sync_interval (always)")
    stack.add_argument(
        "--orchestrators", type=int, default=1, help="orchestrators sharing the matches (1)"
    )
    stack.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="mean time each player thinks before a command (0: submit at once, which "
        "saturates the stack; a real bot or person takes time to choose)",
    )
    stack.add_argument(
        "--commands-per-match",
        type=int,
        default=0,
        help="stop each match after this many commands, unfinished (0: play to the end)",
    )
    stack.add_argument(
        "--client-loop",
        choices=sorted(bench_stack.CLIENT_LOOPS),
        default="uvloop",
        help="the players' event loop in the play phase (uvloop, as the servers run)",
    )
    stack.add_argument("--json", action="store_true", help="print one JSON object")
    stack.set_defaults(run=_bench_stack)


def _bench_engine(args: argparse.Namespace) -> int:
    result = bench_engine.run(matches=args.matches, lineup=args.lineup, seed=args.seed)
    if args.json:
        print(json.dumps(result.as_json()))
    else:
        print(bench_engine.report(result))
    return EXIT_OK


def _bench_stack(args: argparse.Namespace) -> int:
    if args.think_ms < 0:
        raise SystemExit("--think-ms must be >= 0")
    if args.commands_per_match < 0:
        raise SystemExit("--commands-per-match must be >= 0")
    result = bench_stack.run(
        args.matches,
        args.lineup,
        args.sync,
        orchestrators=args.orchestrators,
        think_ms=args.think_ms,
        commands_per_match=args.commands_per_match,
        client_loop=args.client_loop,
    )
    if args.json:
        print(json.dumps(asdict(result)))
    else:
        for key, value in asdict(result).items():
            print(f"{key:<20} {value}")
    return EXIT_OK
