"""The ``frontier`` command line: play a match with bots, check a replay, benchmark the engine.

    frontier play [--seed N] [--lineup "A=marquise;B=marquise"] [--bot random]
                  [--replay FILE] [--json]
    frontier replay FILE
    frontier bench engine [--matches N] [--lineup ...] [--seed N] [--json]
    frontier bot --url HOST:PORT --match ID --seat A1 --token T [--kind random|greedy]
    frontier tournament [--matches N] [--lineup L ...] [--bots greedy,random] [--json]

Commands, flags and JSON keys are a public interface (scripts and CI parse them).  Exit
codes: 0 success, 1 the thing checked failed (replay mismatch, aborted match), 2 bad input
(flags, lineup, seed, unreadable replay file).  Bad input is reported on one stderr line,
never with a traceback: a traceback is kept for engine bugs, where it is what one needs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

from frontier import bench_engine
from frontier import replay as replays
from frontier.bench_stack import add_bench_stack
from frontier.bot_cli import add_bot_commands, positive_int
from frontier.bots import bot_names, make_bot
from frontier.engine import InvalidConfig, MatchConfig, Team, make_config
from frontier.engine.lineup import default_lineup
from frontier.match_runner import MatchAborted, MatchResult, RoundSummary, play_match, seat_bots
from frontier.stack_cli import add_stack_commands

PROG = "frontier"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad input from the user: reported on one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse prints the whole usage block and exits on an error; we want one line and a
    return value, so ``main(argv)`` can be called in-process (tests) without SystemExit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Frontier: Root 3x3 Frontier Alliance Mode.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    play = commands.add_parser("play", help="play a whole match in-process with bots")
    play.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    play.add_argument(
        "--lineup",
        default=None,
        help=f"seats per team, e.g. 'A=marquise;B=marquise' (default {default_lineup()!r})",
    )
    play.add_argument(
        "--bot", default="random", choices=bot_names(), help="bot for every seat (random)"
    )
    play.add_argument("--replay", metavar="FILE", help="save the match's replay to FILE")
    play.add_argument("--json", action="store_true", help="print one JSON object, no table")
    play.set_defaults(run=_play)

    replay = commands.add_parser("replay", help="re-run a replay file and check it matches")
    replay.add_argument("file", metavar="FILE", help="a frontier.replay/1 JSON file")
    replay.set_defaults(run=_replay)

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
    add_bench_stack(targets)
    add_stack_commands(commands)
    add_bot_commands(commands)
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
        _error(str(exc))
        return EXIT_USAGE
    except InvalidConfig as exc:
        _error(f"invalid match config: {exc}")
        return EXIT_USAGE
    except replays.ReplayError as exc:
        _error(str(exc))
        return EXIT_USAGE
    except MatchAborted as exc:
        _error(f"match aborted: {exc}")
        return EXIT_FAILED


def _error(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


def _config(seed: int, lineup: str | None) -> MatchConfig:
    return make_config(seed=seed, lineup=lineup if lineup is not None else default_lineup())


# ----- play -----------------------------------------------------------------------------


_COLUMNS = ("round", "score A", "score B", "warriors A", "warriors B", "buildings A", "buildings B")


def _row(summary: RoundSummary) -> str:
    label = f"{summary.round} {summary.at}"
    cells = [
        summary.scores[Team.A],
        summary.scores[Team.B],
        summary.warriors[Team.A],
        summary.warriors[Team.B],
        summary.buildings[Team.A],
        summary.buildings[Team.B],
    ]
    return f"{label:<9}" + "".join(
        f"{cell:>{len(name) + 2}}" for cell, name in zip(cells, _COLUMNS[1:], strict=True)
    )


def _header() -> str:
    return f"{_COLUMNS[0]:<9}" + "".join(f"{name:>{len(name) + 2}}" for name in _COLUMNS[1:])


def _summary_json(summary: RoundSummary) -> dict[str, object]:
    return {
        "round": summary.round,
        "at": summary.at,
        "scores": {t.value: n for t, n in summary.scores.items()},
        "warriors": {t.value: n for t, n in summary.warriors.items()},
        "buildings": {t.value: n for t, n in summary.buildings.items()},
    }


def _result_line(result: MatchResult) -> str:
    outcome = "draw" if result.winner == "draw" else f"team {result.winner} wins"
    scores = ", ".join(f"{t.value} {n}" for t, n in result.scores.items())
    return (
        f"result: {outcome} ({result.reason}); score {scores}; {result.rounds} rounds, "
        f"{result.command_count} commands, {result.event_count} events"
    )


def _play(args: argparse.Namespace) -> int:
    config = _config(args.seed, args.lineup)
    bots = seat_bots(config, lambda seed: make_bot(args.bot, seed))
    as_json: bool = args.json
    if not as_json:
        print(f"match: seed {config.seed}, lineup {config.lineup}, bot {args.bot} on every seat")
        print(_header())

    def show(summary: RoundSummary) -> None:
        print(_row(summary), flush=True)

    result = play_match(
        config, bots, record=args.replay is not None, on_round=None if as_json else show
    )
    if args.replay is not None:
        try:
            replays.save(replays.replay_of(result), args.replay)
        except OSError as exc:
            raise UsageError(f"cannot write replay {args.replay}: {exc.strerror or exc}") from None
    if as_json:
        print(
            json.dumps(
                {
                    "seed": config.seed,
                    "lineup": config.lineup,
                    "bot": args.bot,
                    "winner": result.winner,
                    "reason": result.reason,
                    "scores": {t.value: n for t, n in result.scores.items()},
                    "rounds": result.rounds,
                    "commands": result.command_count,
                    "events": result.event_count,
                    "state_hash": result.state_hash,
                    "summary": [_summary_json(s) for s in result.summaries],
                    "replay": args.replay,
                }
            )
        )
    else:
        print(_result_line(result))
        print(f"state hash: {result.state_hash}")
        if args.replay is not None:
            print(f"replay saved to {args.replay}")
    return EXIT_OK


# ----- replay ---------------------------------------------------------------------------


def _replay(args: argparse.Namespace) -> int:
    replay = replays.load(args.file)
    ok, message = replays.verify(replay)
    print(f"replay {args.file}: {message}")
    return EXIT_OK if ok else EXIT_FAILED


# ----- bench ----------------------------------------------------------------------------


def _bench_engine(args: argparse.Namespace) -> int:
    result = bench_engine.run(matches=args.matches, lineup=args.lineup, seed=args.seed)
    if args.json:
        print(json.dumps(result.as_json()))
    else:
        print(bench_engine.report(result))
    return EXIT_OK
