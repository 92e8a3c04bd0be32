"""``frontier stack up|play``: run the distributed server locally, and play a match through it.

``up`` runs until Ctrl-C; ``play`` starts a stack on free ports, plays one match through
MatchService with a built-in bot on every seat (``--bot``, greedy by default), checks it
against the in-process engine and stops (what ``make run`` runs), or with ``--keep-up``
stays up until Ctrl-C so that the match can be replayed in a browser.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from frontier.bots.sdk import STRATEGIES
from frontier.engine.lineup import default_lineup
from frontier.ops.stack import DOMAINS, Stack, StackConfig, free_port
from frontier.play import replay as replays
from frontier.play.remote_match import play_remote

DEFAULT_WORKDIR = Path("var/stack")
# ``stack play``'s players: greedy bots make a match worth watching (they march, fight and
# score where random ones wander) and, thinking in well under a millisecond, finish it
# through the stack in seconds; the search bot plays better but thinks for seconds a move.
DEFAULT_BOT = "greedy"


def add_stack_commands(commands: Any) -> None:
    stack = commands.add_parser("stack", help="run the distributed server locally")
    actions = stack.add_subparsers(dest="action", metavar="ACTION", required=True)

    up = actions.add_parser("up", help="start NATS and every service until Ctrl-C")
    _common(up)
    up.add_argument("--nats-port", type=int, default=4222, help="NATS port (default 4222)")
    up.add_argument(
        "--base-port",
        type=int,
        default=50051,
        help="orchestrator port; the domain services take the next five (default 50051)",
    )
    up.add_argument(
        "--web-port", type=int, default=8080, help="the browser gateway's port (default 8080)"
    )
    up.add_argument(
        "--arena",
        action="store_true",
        help="also run the bot arena, on the port after the domain services' (default 50057); "
        "its FRONTIER_ARENA_* settings come from the environment",
    )
    up.set_defaults(run=_up)

    play = actions.add_parser(
        "play", help="start the stack, play one bot match through MatchService, stop"
    )
    _common(play)
    play.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    play.add_argument("--lineup", default=None, help="lineup (default: the default lineup)")
    play.add_argument(
        "--bot",
        default=DEFAULT_BOT,
        choices=sorted(STRATEGIES),
        help=f"the bot that plays every seat, as a remote bot would (default {DEFAULT_BOT})",
    )
    play.add_argument("--replay", metavar="FILE", help="save the match's replay to FILE")
    play.add_argument(
        "--keep-up",
        action="store_true",
        help="after the match, keep the stack up (to replay it in a browser) until Ctrl-C",
    )
    play.set_defaults(run=_play)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="JetStream store and logs (up: var/stack; play: a fresh temporary folder)",
    )
    parser.add_argument(
        "--sync",
        default="always",
        help="JetStream sync_interval: 'always' fsyncs every batch (default), or e.g. '2m'",
    )
    parser.add_argument("--log-level", default="WARNING", help="services' log level")
    parser.add_argument(
        "--access",
        choices=("local", "keys"),
        default="local",
        help="FRONTIER_ACCESS of the orchestrator: 'local' (default) lets anyone host; "
        "'keys' needs host keys (frontier keys create, FRONTIER_HOST_KEY)",
    )


def _up(args: argparse.Namespace) -> int:
    names = ("orchestrator", *DOMAINS, *(("arena",) if args.arena else ()))
    config = StackConfig(
        workdir=args.workdir or DEFAULT_WORKDIR,
        nats_port=args.nats_port,
        ports={name: args.base_port + i for i, name in enumerate(names)},
        sync=args.sync,
        log_level=args.log_level,
        web_port=args.web_port,
        access=args.access,
        arena=args.arena,
    )
    with Stack(config) as stack:
        print(f"NATS          {config.nats_url}  (JetStream store {config.workdir}/jetstream)")
        for name in names:
            print(f"{name:<13} {config.address(name)}")
        print(f"web           {config.web_url}  <- open this in a browser")
        print(f"logs          {stack.logs}/\nall SERVING; Ctrl-C to stop", flush=True)
        if not _run_until_stopped(stack):
            return 1
    print("stopped")
    return 0


def _play(args: argparse.Namespace) -> int:
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="frontier-stack-"))
    config = StackConfig.ephemeral(
        workdir,
        sync=args.sync,
        log_level=args.log_level,
        web_port=free_port(),
        access=args.access,
    )
    lineup = args.lineup or default_lineup()
    print(f"starting the stack (logs in {workdir}/logs) ...", flush=True)
    with Stack(config) as stack:
        print(
            f"playing seed {args.seed}, lineup {lineup}, {args.bot} bots through MatchService",
            flush=True,
        )

        def watch_link(match_id: str) -> None:
            print(f"watch it in a browser: {config.web_url}match?match={match_id}", flush=True)

        print(
            f"{'round':>5} {'score A':>8} {'score B':>8} {'warriors A':>11} {'warriors B':>11}"
            f" {'buildings A':>12} {'buildings B':>12}"
        )

        def show(s: dict[str, Any]) -> None:
            label = "end" if s.get("final") else str(s["round"])
            print(
                f"{label:>5} {s['scores']['A']:>8} {s['scores']['B']:>8} "
                f"{s['warriors']['A']:>11} {s['warriors']['B']:>11} "
                f"{s['buildings']['A']:>12} {s['buildings']['B']:>12}",
                flush=True,
            )

        result = play_remote(
            config.address("orchestrator"),
            args.seed,
            lineup,
            on_round=show,
            on_created=watch_link,
            bot=args.bot,
        )
        print(
            f"winner: {result.winner}  scores A {result.scores['A']} - B {result.scores['B']}  "
            f"({len(result.commands)} commands, match {result.match_id})"
        )
        print(result.message)
        if args.replay and result.replay is not None:
            replays.save(result.replay, args.replay)
            print(f"replay saved to {args.replay}")
        if args.keep_up:
            print(
                f"replay it in a browser: {config.web_url}match?match={result.match_id}\n"
                "the stack stays up; Ctrl-C to stop",
                flush=True,
            )
            _run_until_stopped(stack)
    print("stack stopped")
    return 0 if result.verified else 1


def _run_until_stopped(stack: Stack) -> bool:
    """Wait for Ctrl-C (or SIGTERM); False when a process of the stack died first."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(0.5):
        dead = [n for n, alive in stack.alive().items() if not alive]
        if dead:
            print(f"stopping: {', '.join(dead)} exited (see logs)", file=sys.stderr)
            return False
    return True
