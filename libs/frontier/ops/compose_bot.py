"""``python -m frontier.ops.compose_bot``: keep playing bot matches through one orchestrator.

The bots of docker-compose.yml: a client like any other, outside the server, that creates a
match through ``MatchService``, plays every seat with seeded random choices among the legal
command ids (:func:`frontier.play.load.play_match`, which retries a failed submit with the same
command id, so a match survives a restarted service) and starts the next one::

    python -m frontier.ops.compose_bot --url dns:///orchestrator:50051 [--matches 0] [--pause 1]
                                   [--lineup L] [--seed N] [--heartbeat FILE]

``--url`` is any gRPC target.  With several addresses (``dns:///orchestrator:50051``: every
orchestrator behind that name; ``ipv4:127.0.0.1:15051,127.0.0.1:15061``: these two, in this
order) the bot stays on the first that answers and moves on only when it fails (gRPC's
pick_first).  So its matches are created on, and owned by, the orchestrator it talks to, no
request needs forwarding, and a match goes on through another orchestrator while one is down.

Every flag can also come from the environment (``FRONTIER_BOT_URL``, ``FRONTIER_BOT_MATCHES``,
``FRONTIER_BOT_PAUSE_S``, ``FRONTIER_BOT_LINEUP``, ``FRONTIER_BOT_SEED``), which is how the
compose files set them.  Each finished match prints one JSON line (``match_id``, ``seed``,
``winner``, ``commands``, ``retries``, ``p50_ms``); a match that fails is logged and the next
one starts.  The heartbeat file is touched at start and after every match, for the
container's health check (``python -m frontier.ops.healthcheck --heartbeat FILE``).  ``--matches
0`` plays until SIGTERM (exit status 0); otherwise the bot stops at the first failed match,
with exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc

from frontier.play.load import MatchRun, play_match
from frontier.runtime.tls import aio_channel
from frontier.v1 import match_pb2_grpc

log = logging.getLogger("frontier.compose_bot")

DEFAULT_HEARTBEAT = Path("/tmp/frontier-bot.heartbeat")


@dataclass
class BotOptions:
    url: str
    matches: int = 0  # 0: until stopped
    pause_s: float = 1.0
    lineup: str = ""  # "": the server's default lineup
    seed: int = 1
    heartbeat: Path | None = DEFAULT_HEARTBEAT
    timeout_s: float = 10.0


@dataclass
class BotTally:
    finished: int = 0
    failed: int = 0


def parse_args(argv: Sequence[str] | None, env: Mapping[str, str]) -> BotOptions:
    parser = argparse.ArgumentParser(prog="python -m frontier.ops.compose_bot", description=__doc__)
    parser.add_argument(
        "--url",
        default=env.get("FRONTIER_BOT_URL", ""),
        help="the orchestrators, a gRPC target such as HOST:PORT ($FRONTIER_BOT_URL)",
    )
    parser.add_argument(
        "--matches",
        type=int,
        default=int(env.get("FRONTIER_BOT_MATCHES", "0")),
        help="matches to play, 0 = until SIGTERM ($FRONTIER_BOT_MATCHES, default 0)",
    )
    parser.add_argument(
        "--pause",
        type=float,
        default=float(env.get("FRONTIER_BOT_PAUSE_S", "1")),
        help="seconds between matches ($FRONTIER_BOT_PAUSE_S, default 1)",
    )
    parser.add_argument(
        "--lineup",
        default=env.get("FRONTIER_BOT_LINEUP", ""),
        help="lineup ($FRONTIER_BOT_LINEUP, default: the server's default lineup)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=int(env.get("FRONTIER_BOT_SEED", "1")),
        help="seed of the first match; the next ones count up ($FRONTIER_BOT_SEED, default 1)",
    )
    parser.add_argument(
        "--heartbeat",
        type=Path,
        default=DEFAULT_HEARTBEAT,
        help=f"file touched after every match (default {DEFAULT_HEARTBEAT})",
    )
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("--url (or $FRONTIER_BOT_URL) is required")
    if args.matches < 0 or args.pause < 0:
        parser.error("--matches and --pause must not be negative")
    return BotOptions(args.url, args.matches, args.pause, args.lineup, args.seed, args.heartbeat)


def summary(run: MatchRun) -> dict[str, object]:
    return {
        "match_id": run.match_id,
        "seed": run.seed,
        "winner": run.winner,
        "commands": run.commands,
        "retries": run.retries,
        "p50_ms": round(statistics.median(run.latencies_ms), 2) if run.latencies_ms else 0.0,
    }


def beat(path: Path | None) -> None:
    if path is not None:
        path.touch()


async def play(options: BotOptions, stop: asyncio.Event) -> BotTally:
    """Matches one after the other until ``options.matches`` are done or ``stop`` is set."""
    tally = BotTally()
    seed = options.seed
    beat(options.heartbeat)  # started: healthy until no match finished for --max-age seconds
    async with aio_channel(options.url) as channel:  # pick_first: see above
        stub = match_pb2_grpc.MatchServiceStub(channel)
        while not stop.is_set() and (options.matches == 0 or tally.finished < options.matches):
            game = asyncio.ensure_future(
                play_match(stub, seed, options.lineup, timeout=options.timeout_s)
            )
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait({game, stopped}, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if not game.done():  # stopped mid-match
                game.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await game
                break
            seed += 1
            try:
                run = game.result()
            except grpc.aio.AioRpcError as exc:
                tally.failed += 1
                log.warning("match with seed %d failed: %s %s", seed - 1, exc.code(), exc.details())
                if options.matches:  # a bounded run reports the failure instead of hiding it
                    break
            else:
                tally.finished += 1
                print(json.dumps(summary(run)), flush=True)
                beat(options.heartbeat)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), options.pause_s)
    return tally


async def _main(options: BotOptions) -> BotTally:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return await play(options, stop)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(argv, os.environ)
    logging.basicConfig(
        level=os.environ.get("FRONTIER_LOG_LEVEL", "INFO"),
        format="%(asctime)s compose_bot %(levelname)s %(message)s",
    )
    log.info("playing through %s (matches: %s)", options.url, options.matches or "until stopped")
    tally = asyncio.run(_main(options))
    log.info("stopped: %d matches finished, %d failed", tally.finished, tally.failed)
    return 1 if tally.failed and options.matches else 0


if __name__ == "__main__":
    sys.exit(main())
