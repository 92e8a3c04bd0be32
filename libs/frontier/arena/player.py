"""An outside bot that enters the arena: ``python -m frontier.arena.player``.

    python -m frontier.arena.player --arena HOST:PORT --key-file bot.key
                                    [--capacity 2] [--kind greedy] [--seats N]

It opens an Enter stream with its bot key, and plays every seat the arena assigns through
BotService.Play with the Python SDK (:class:`frontier.bots.sdk.BotClient`) and one of the
SDK's strategies (the greedy bot's choice on the seat's view by default), then reports the
seat done.  It is both an example for bot authors and what the arena's tests run as real
processes.  ``--seats N`` ends it after N seats played; ``--leave-after-decisions N``
makes it vanish (the process exits at once, streams and all) when its N-th decision comes,
as a crashed bot would.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from frontier.bots.sdk import BotClient, Decision, Strategy, make_strategy
from frontier.engine import Seat
from frontier.runtime.tls import aio_channel
from frontier.v1 import arena_pb2, arena_pb2_grpc
from frontier.wire.convert import enum_from_proto

log = logging.getLogger("frontier.arena.player")
LEFT_EXIT = 3  # the exit status of a player that left on purpose (--leave-after-decisions)


@dataclass
class PlayerOptions:
    arena: str
    bot_key: str
    capacity: int = 1
    kind: str = "greedy"
    seed: int = 0
    seats: int = 0  # stop after this many seats played (0: never)
    leave_after_decisions: int = 0  # vanish at this decision (0: never)
    orchestrator: str = ""  # overrides the assignments' orchestrator address


class Leaving:
    """A strategy that plays ``inner`` and makes the process vanish at the ``after``-th
    decision, without answering it."""

    def __init__(self, inner: Strategy, after: int) -> None:
        self.inner = inner
        self.after = after
        self.seen = 0

    def choose(self, decision: Decision) -> str:
        self.seen += 1
        if self.seen >= self.after:
            log.warning("leaving the arena at decision %d", self.seen)
            logging.shutdown()
            os._exit(LEFT_EXIT)  # as a crash: no stream is closed politely
        return self.inner.choose(decision)


async def play(options: PlayerOptions) -> int:
    """Enter, play the assigned seats; the number of seats played once ``options.seats``
    is reached (or the arena ends the stream)."""
    strategy = make_strategy(options.kind, options.seed)
    if options.leave_after_decisions:
        strategy = Leaving(strategy, options.leave_after_decisions)
    outgoing: asyncio.Queue[arena_pb2.EnterRequest | None] = asyncio.Queue()
    outgoing.put_nowait(
        arena_pb2.EnterRequest(
            hello=arena_pb2.EnterHello(bot_key=options.bot_key, capacity=options.capacity)
        )
    )

    async def requests() -> AsyncIterator[arena_pb2.EnterRequest]:
        while (request := await outgoing.get()) is not None:
            yield request

    played = 0
    finished = asyncio.Event()
    tasks: set[asyncio.Task[None]] = set()

    async def seat(assignment: arena_pb2.SeatAssignment) -> None:
        nonlocal played
        where = options.orchestrator or assignment.orchestrator_address
        seat = enum_from_proto(Seat, assignment.seat)
        client = BotClient(where, assignment.match_id, assignment.seat_token, seat=seat)
        try:
            result = await client.play(strategy)
            log.info("match %s seat %s: winner %s", assignment.match_id, seat, result.winner)
        except Exception:
            log.exception("seat %s of %s failed", seat, assignment.match_id)
        outgoing.put_nowait(
            arena_pb2.EnterRequest(seat_done=arena_pb2.SeatDone(match_id=assignment.match_id))
        )
        played += 1
        if options.seats and played >= options.seats:
            finished.set()

    async with aio_channel(options.arena) as channel:
        call = arena_pb2_grpc.ArenaServiceStub(channel).Enter(requests())

        async def read() -> None:
            async for response in call:
                which = response.WhichOneof("message")
                if which == "welcome":
                    log.info("entered as %s (%s)", response.welcome.name, response.welcome.bot_id)
                elif which == "assignment":
                    task = asyncio.create_task(seat(response.assignment))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
            finished.set()

        reader = asyncio.create_task(read())
        await finished.wait()
        outgoing.put_nowait(None)
        call.cancel()
        reader.cancel()
        await asyncio.gather(reader, *tasks, return_exceptions=True)
        if reader.done() and not reader.cancelled() and reader.exception() is not None:
            raise reader.exception()  # type: ignore[misc]
    return played


def parse_args(argv: Sequence[str] | None = None) -> PlayerOptions:
    parser = argparse.ArgumentParser(prog="python -m frontier.arena.player", description=__doc__)
    parser.add_argument("--arena", default="127.0.0.1:50057", help="ArenaService HOST:PORT")
    parser.add_argument("--key-file", type=Path, help="a file holding the bot key")
    parser.add_argument("--capacity", type=int, default=1, help="seats played at once")
    parser.add_argument("--kind", default="greedy", help="random, greedy or search")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seats", type=int, default=0, help="stop after N seats (0: never)")
    parser.add_argument("--leave-after-decisions", type=int, default=0)
    parser.add_argument("--orchestrator", default="", help="override the assignments' address")
    args = parser.parse_args(argv)
    key = (
        args.key_file.read_text().strip()
        if args.key_file
        else os.environ.get("FRONTIER_BOT_KEY", "").strip()
    )
    if not key:
        parser.error("give the bot key with --key-file or FRONTIER_BOT_KEY")
    return PlayerOptions(
        args.arena,
        key,
        args.capacity,
        args.kind,
        args.seed,
        args.seats,
        args.leave_after_decisions,
        args.orchestrator,
    )


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    options = parse_args(argv)
    played = asyncio.run(play(options))
    print(f"played {played} seats", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
