"""``frontier play`` and ``frontier replay``: one match in-process, and checking a replay.

    frontier play [--seed N] [--lineup "A=marquise;B=marquise"] [--bot random]
                  [--replay FILE] [--json]
    frontier replay FILE

``play`` prints the match round by round (or one JSON object), and can save its replay;
``replay`` re-runs such a file and exits 1 when an event or the final state hash differs.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from frontier.bots import bot_names, make_bot
from frontier.cli.usage import EXIT_FAILED, EXIT_OK, UsageError
from frontier.engine import MatchConfig, Team, make_config
from frontier.engine.lineup import default_lineup
from frontier.play import replay as replays
from frontier.play.match_runner import MatchResult, RoundSummary, play_match, seat_bots


def add_play_commands(commands: Any) -> None:
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


def _config(seed: int, lineup: str | None) -> MatchConfig:
    return make_config(seed=seed, lineup=lineup if lineup is not None else default_lineup())


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


def _replay(args: argparse.Namespace) -> int:
    replay = replays.load(args.file)
    ok, message = replays.verify(replay)
    print(f"replay {args.file}: {message}")
    return EXIT_OK if ok else EXIT_FAILED
