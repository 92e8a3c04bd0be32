"""``frontier bench ...``: the benchmarks' command line.

    frontier bench engine [--matches N] [--lineup ...] [--seed N] [--json]
    frontier bench stack [--matches N] [--think-ms T] [--orchestrators N] [--sync S]
                         [--commands-per-match K] [--client-loop L] [--json]
    frontier bench wire [--matches N] [--repeat R] [--lineup L] [--json]
    frontier bench publish [--publishes N] [--in-flight K] [--repeat R] [--json]
    frontier bench domain-calls [--calls N] [--in-flight K] [--reply-bytes B] [--json]
    frontier bench memory [--matches N] [--lineup L] [--max-commands K] [--json]
    frontier bench recovery [--target nats|map|...] [--restarts N] [--down-s S] [--json]
    frontier bench search timing|selfplay [--bot B] [--matches N] [--iterations I] [--rival R] ...
    frontier bench public --scenario watchers|gateway-watchers|bots|replays [--n N]
                          [--seconds S] [--think-ms T] [--commands K] [--json]
    frontier bench flood [--n N] [--creates K] [--json]

The measuring itself lives in :mod:`frontier.bench`; this module only turns flags into a run
and a run into text or one JSON object.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from frontier.bench import domain_calls as bench_domain_calls
from frontier.bench import engine as bench_engine
from frontier.bench import flood as bench_flood
from frontier.bench import memory as bench_memory
from frontier.bench import public as bench_public
from frontier.bench import publish as bench_publish
from frontier.bench import recovery as bench_recovery
from frontier.bench import search as bench_search
from frontier.bench import stack as bench_stack
from frontier.bench import wire as bench_wire
from frontier.cli.usage import EXIT_OK, UsageError, positive_int
from frontier.engine.lineup import R2_DEFAULT_LINEUP


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
    _add_public_bench(targets)
    _add_flood_bench(targets)
    _add_component_benches(targets)


def _add_public_bench(targets: Any) -> None:
    public = targets.add_parser(
        "public", help="a canary match's latency with and without a public crowd's load"
    )
    public.add_argument("--scenario", choices=bench_public.SCENARIOS, required=True)
    defaults = ", ".join(f"{k} {v}" for k, v in bench_public.DEFAULT_N.items())
    public.add_argument("--n", type=positive_int, default=None, help=f"load size ({defaults})")
    public.add_argument(
        "--seconds", type=float, default=60.0, help="bound of each canary phase (60)"
    )
    public.add_argument(
        "--think-ms", type=float, default=200.0, help="the canary's mean think time (200)"
    )
    public.add_argument(
        "--commands", type=positive_int, default=60, help="canary commands per phase (60)"
    )
    public.add_argument("--json", action="store_true", help="print one JSON object")
    public.set_defaults(run=_bench_public)


def _add_flood_bench(targets: Any) -> None:
    flood = targets.add_parser(
        "flood", help="one host key floods CreateMatch; another key's creation latency"
    )
    flood.add_argument("--n", type=positive_int, default=2000, help="the flood's calls (2000)")
    flood.add_argument(
        "--creates", type=positive_int, default=20, help="the other key's creations (20)"
    )
    flood.add_argument("--json", action="store_true", help="print one JSON object")
    flood.set_defaults(run=_bench_flood)


def _add_component_benches(targets: Any) -> None:
    """The benchmarks of one part of the path a command takes, each in isolation."""
    wire = targets.add_parser("wire", help="per-batch fold, conversion and clone, in-process")
    wire.add_argument("--matches", type=positive_int, default=4, help="matches played (4)")
    wire.add_argument("--repeat", type=positive_int, default=5, help="timing repeats (5)")
    wire.add_argument("--lineup", default=None, help="lineup (default: the default lineup)")
    wire.add_argument("--json", action="store_true", help="print one JSON object")
    wire.set_defaults(run=_bench_wire)

    publish = targets.add_parser("publish", help="one batch's JetStream publish-ack, in-process")
    publish.add_argument("--publishes", type=positive_int, default=2000, help="per round (2000)")
    publish.add_argument("--in-flight", type=positive_int, default=1, help="at a time (1)")
    publish.add_argument("--repeat", type=positive_int, default=5, help="rounds, median (5)")
    publish.add_argument("--json", action="store_true", help="print one JSON object")
    publish.set_defaults(run=_bench_publish)

    calls = targets.add_parser("domain-calls", help="CPU per orchestrator -> domain call")
    calls.add_argument("--calls", type=positive_int, default=4000, help="calls per run (4000)")
    calls.add_argument("--in-flight", type=positive_int, default=20, help="at a time (20)")
    calls.add_argument("--reply-bytes", type=int, default=1500, help="reply payload (1500)")
    calls.add_argument("--json", action="store_true", help="print one JSON array")
    calls.set_defaults(run=_bench_domain_calls)

    memory = targets.add_parser("memory", help="bytes per match, by process and allocating line")
    memory.add_argument("--matches", type=positive_int, default=40, help="per phase (40)")
    memory.add_argument("--lineup", default="A=marquise;B=marquise", help="lineup")
    memory.add_argument(
        "--max-commands", type=int, default=0, help="stop each match after K commands (0: play out)"
    )
    memory.add_argument("--json", action="store_true", help="print one JSON object")
    memory.set_defaults(run=_bench_memory)

    recovery = targets.add_parser(
        "recovery", help="time from NATS or a domain service back to the next accepted command"
    )
    recovery.add_argument(
        "--target",
        action="append",
        choices=bench_recovery.TARGETS,
        help="what to restart; repeat for several (default: nats and map)",
    )
    recovery.add_argument("--restarts", type=positive_int, default=5, help="per target (5)")
    recovery.add_argument(
        "--down-s",
        type=float,
        default=None,
        help="how long the target stays down (default: 0.3 for nats, 0 for a domain service)",
    )
    recovery.add_argument("--json", action="store_true", help="print one JSON array")
    recovery.set_defaults(run=_bench_recovery)

    search = targets.add_parser("search", help="the search bot's think time, or self-play")
    search.add_argument("mode", choices=bench_search.MODES)
    search.add_argument("--lineup", default=R2_DEFAULT_LINEUP, help="lineup")
    search.add_argument("--matches", type=positive_int, default=10, help="matches (10)")
    search.add_argument("--seed", type=int, default=0, help="seed of the first match (0)")
    search.add_argument(
        "--bot", default="search", choices=sorted(bench_search.SEARCHERS), help="bot (search)"
    )
    search.add_argument(
        "--iterations",
        type=positive_int,
        default=200,
        help="budget: the search's iterations, the halving search's playouts (200)",
    )
    search.add_argument("--rival", default="greedy", help="the other team's bot (greedy)")
    search.add_argument("--jobs", type=positive_int, default=1, help="processes (1)")
    search.set_defaults(run=_bench_search)


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


def _bench_public(args: argparse.Namespace) -> int:
    if args.seconds <= 0 or args.think_ms < 0:
        raise UsageError("--seconds must be > 0 and --think-ms >= 0")
    result = bench_public.run(
        args.scenario, args.n, seconds=args.seconds, think_ms=args.think_ms, commands=args.commands
    )
    print(json.dumps(asdict(result)) if args.json else bench_public.table(result))
    return EXIT_OK


def _bench_flood(args: argparse.Namespace) -> int:
    result = bench_flood.run(args.n, args.creates)
    print(json.dumps(asdict(result)) if args.json else bench_flood.table(result))
    return EXIT_OK


def _print(result: dict[str, Any], as_json: bool) -> int:
    if as_json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:<36} {value}")
    return EXIT_OK


def _bench_wire(args: argparse.Namespace) -> int:
    return _print(bench_wire.measure(args.matches, args.repeat, args.lineup), args.json)


def _bench_publish(args: argparse.Namespace) -> int:
    if args.in_flight > args.publishes:
        raise UsageError("--in-flight must not exceed --publishes")
    return _print(bench_publish.measure(args.publishes, args.in_flight, args.repeat), args.json)


def _bench_domain_calls(args: argparse.Namespace) -> int:
    if args.in_flight > args.calls:
        raise UsageError("--in-flight must not exceed --calls")
    results = bench_domain_calls.measure(args.calls, args.in_flight, args.reply_bytes)
    if args.json:
        print(json.dumps(results))
    else:
        for result in results:
            print(", ".join(f"{key} {value}" for key, value in result.items()))
    return EXIT_OK


def _bench_memory(args: argparse.Namespace) -> int:
    report = bench_memory.run(args.matches, args.lineup, max_commands=args.max_commands)
    print(json.dumps(asdict(report)) if args.json else bench_memory.text(report))
    return EXIT_OK


def _bench_recovery(args: argparse.Namespace) -> int:
    if args.down_s is not None and args.down_s < 0:
        raise UsageError("--down-s must be >= 0")
    results = [
        asdict(bench_recovery.run(target, args.restarts, args.down_s))
        for target in args.target or ["nats", "map"]
    ]
    if args.json:
        print(json.dumps(results))
    else:
        for result in results:
            print(
                f"{result['target']:<12} median {result['median_s']:.3f} s, "
                f"max {result['max_s']:.3f} s over {result['restarts']} restarts "
                f"{result['recovery_s']} ({result['commands']} commands accepted)"
            )
    return EXIT_OK


def _bench_search(args: argparse.Namespace) -> int:
    summary = bench_search.run(
        args.mode,
        lineup=args.lineup,
        matches=args.matches,
        seed=args.seed,
        iterations=args.iterations,
        rival=args.rival,
        jobs=args.jobs,
        bot=args.bot,
    )
    print(json.dumps(summary, indent=2))
    return EXIT_OK
