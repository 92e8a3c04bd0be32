"""An outside bot that enters the arena: ``python -m frontier.arena.player``.

    python -m frontier.arena.player --arena HOST:PORT --key-file bot.key
                                    [--capacity 2] [--kind greedy] [--seats N]

It opens an Enter stream with its bot key, and plays every seat the arena assigns (its
team's three seats in each match, each on a stream of its own) through
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

import grpc

from frontier.bots.sdk import (
    MAX_RECONNECTS,
    RECONNECT_WAIT_S,
    RECONNECTABLE,
    BotClient,
    BotError,
    Decision,
    Strategy,
    make_strategy,
)
from frontier.engine import Seat
from frontier.runtime.tls import aio_channel
from frontier.v1 import arena_pb2, arena_pb2_grpc
from frontier.wire.convert import enum_from_proto

log = logging.getLogger("frontier.arena.player")
LEFT_EXIT = 3  # the exit status of a player that left on purpose (--leave-after-decisions)
CLOSE_WAIT_S = 5.0  # how long a leaving player waits for the arena to end its stream


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
    is reached.  A broken Enter stream (the arena restarting, say) is entered again with a
    backoff, while the seats under way play on; a refusal (a bad key) is a BotError."""
    return await Player(options).run()


class Player:
    """One bot in the arena: its Enter stream, entered again when it breaks, and a task
    per assigned seat."""

    def __init__(self, options: PlayerOptions) -> None:
        self.options = options
        strategy = make_strategy(options.kind, options.seed)
        if options.leave_after_decisions:
            strategy = Leaving(strategy, options.leave_after_decisions)
        self.strategy = strategy
        self.played = 0
        self.finished = asyncio.Event()
        self.tasks: set[asyncio.Task[None]] = set()
        self.outgoing: asyncio.Queue[arena_pb2.EnterRequest | None] = asyncio.Queue()

    async def run(self) -> int:
        failures = 0
        async with aio_channel(self.options.arena) as channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            while not self.finished.is_set():
                try:
                    welcomed = await self._enter(stub)
                    failure = "the arena ended the stream"
                except grpc.aio.AioRpcError as exc:
                    if exc.code() not in RECONNECTABLE:
                        raise BotError.refused(exc) from None
                    welcomed, failure = False, exc.code().name
                if self.finished.is_set():
                    break
                failures = 0 if welcomed else failures + 1
                if failures > MAX_RECONNECTS:
                    raise BotError(f"gave up entering after {MAX_RECONNECTS} tries: {failure}")
                log.info("out of the arena (%s); entering again", failure)
                await asyncio.sleep(min(RECONNECT_WAIT_S * 2**failures, 5.0))
            await asyncio.gather(*self.tasks, return_exceptions=True)
        return self.played

    async def _enter(self, stub: arena_pb2_grpc.ArenaServiceAsyncStub) -> bool:
        """One Enter stream, until it ends or enough seats were played; whether the arena
        welcomed the bot."""
        outgoing: asyncio.Queue[arena_pb2.EnterRequest | None] = asyncio.Queue()
        self.outgoing = outgoing
        hello = arena_pb2.EnterHello(
            bot_key=self.options.bot_key, capacity=self.options.capacity, whole_teams=True
        )
        outgoing.put_nowait(arena_pb2.EnterRequest(hello=hello))

        async def requests() -> AsyncIterator[arena_pb2.EnterRequest]:
            while (request := await outgoing.get()) is not None:
                yield request

        call = stub.Enter(requests())
        welcomed = False

        async def read() -> None:
            nonlocal welcomed
            async for response in call:
                which = response.WhichOneof("message")
                if which == "welcome":
                    welcomed = True
                    log.info("entered as %s (%s)", response.welcome.name, response.welcome.bot_id)
                elif which == "assignment":
                    task = asyncio.create_task(self._seat(response.assignment))
                    self.tasks.add(task)
                    task.add_done_callback(self.tasks.discard)

        reader = asyncio.create_task(read())
        done = asyncio.create_task(self.finished.wait())
        try:
            await asyncio.wait({reader, done}, return_when=asyncio.FIRST_COMPLETED)
            if done.done():  # leaving: half-close, so the arena reads the last SeatDone first
                outgoing.put_nowait(None)
                await asyncio.wait({reader}, timeout=CLOSE_WAIT_S)
        finally:
            outgoing.put_nowait(None)
            done.cancel()
            if not reader.done():
                call.cancel()
                reader.cancel()
            await asyncio.gather(reader, done, return_exceptions=True)
        if reader.done() and not reader.cancelled() and (failed := reader.exception()):
            raise failed
        return welcomed

    async def _seat(self, assignment: arena_pb2.SeatAssignment) -> None:
        """Play one assigned seat to the end of its match, then say so."""
        where = self.options.orchestrator or assignment.orchestrator_address
        seat = enum_from_proto(Seat, assignment.seat)
        client = BotClient(where, assignment.match_id, assignment.seat_token, seat=seat)
        try:
            result = await client.play(self.strategy)
            log.info("match %s seat %s: winner %s", assignment.match_id, seat, result.winner)
        except Exception:
            log.exception("seat %s of %s failed", seat, assignment.match_id)
        self.played += 1
        leaving = bool(self.options.seats) and self.played >= self.options.seats
        done = arena_pb2.SeatDone(match_id=assignment.match_id, leaving=leaving)
        self.outgoing.put_nowait(arena_pb2.EnterRequest(seat_done=done))
        # It stays in the arena until its other seats in play are over too: a bot that
        # leaves with a seat in play is counted as having left that match.
        here = asyncio.current_task()
        if leaving and not any(t is not here and not t.done() for t in self.tasks):
            self.finished.set()


def parse_args(argv: Sequence[str] | None = None) -> PlayerOptions:
    parser = argparse.ArgumentParser(prog="python -m frontier.arena.player", description=__doc__)
    parser.add_argument("--arena", default="127.0.0.1:50057", help="ArenaService HOST:PORT")
    parser.add_argument("--key-file", type=Path, help="a file holding the bot key")
    parser.add_argument(
        "--capacity", type=int, default=1, help="matches played at once (a team's 3 seats each)"
    )
    parser.add_argument("--kind", default="greedy", help="random, greedy, search or search-halving")
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
    try:
        played = asyncio.run(play(options))
    except BotError as exc:
        print(f"frontier.arena.player: {exc}", file=sys.stderr)
        return 1
    print(f"played {played} seats", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
