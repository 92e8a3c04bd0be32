"""Where the built-in bots think: worker processes, never the orchestrator's own.

A built-in bot (a bot seat, or the takeover of a struck seat) thinks for up to a second per
decision (the search bot runs hundreds of playouts).  In a thread of the orchestrator it
would still hold the interpreter's lock for most of that time and slow every other match's
commands; in a worker process it runs on its own core while the orchestrator goes on
serving.  The state it thinks on crosses to the worker pickled (a few KB, well under a
millisecond each way), and the choice comes back with the CPU time it took, which is
counted per bot (``frontier_bot_cpu_seconds_total``) so that an operator sees what the
bots cost.

Workers are started with ``spawn``: a forked copy of a process running gRPC and asyncio is
not safe.  A worker that dies (killed for memory, say) breaks the pool; the next choice
then gets a fresh pool, and the referee retries the answer that failed.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from frontier.bots import make_bot
from frontier.engine import Command, Seat, State
from frontier.runtime.metrics import BOT_CPU_SECONDS

log = logging.getLogger("frontier.orchestrator")

DEFAULT_BOT_PROCESSES = 2  # worker processes the built-in bots think in
WORKER_NICENESS = 10  # how much lower the workers' scheduling priority is


@dataclass(frozen=True, slots=True)
class Thought:
    """A bot's choice and the CPU seconds it took to make it."""

    command: Command
    cpu_s: float


def think(name: str, seed: int, state: State, seat: Seat, legal: list[Command]) -> Thought:
    """The bot's choice (in a worker process: it only reads ``state``)."""
    started = time.process_time()
    command = make_bot(name, seed).choose(state, seat, legal)
    return Thought(command, time.process_time() - started)


def _warm() -> None:
    """Start a worker: below the orchestrator's priority, so that when the cores are busy
    the players' commands come first and the bots wait (they think within a deadline, the
    orchestrator answers everyone); then import the bots and the engine once, not on the
    worker's first decision."""
    os.nice(WORKER_NICENESS)
    make_bot("random", 0)


def process_pool(processes: int) -> ProcessPoolExecutor:
    """The default pool: ``processes`` spawned workers."""
    if processes < 1:
        raise ValueError(f"the built-in bots need at least 1 process, got {processes}")
    return ProcessPoolExecutor(
        processes, mp_context=multiprocessing.get_context("spawn"), initializer=_warm
    )


class BotPool:
    """The built-in bots' workers: a choice per call, a new pool when one broke."""

    def __init__(self, processes: int = DEFAULT_BOT_PROCESSES, executor: Executor | None = None):
        self.processes = processes
        # tests hand in a thread pool, whose bots they can hold and release
        self._executor = executor if executor is not None else process_pool(processes)
        self._replaceable = executor is None

    async def choose(
        self,
        name: str,
        seed: int,
        state: State,
        seat: Seat,
        legal: list[Command],
        charge: Callable[[float], None] | None = None,
    ) -> Command:
        """The bot ``name``'s choice; ``charge`` is told its CPU seconds (the match's host
        key pays them).  A broken pool is replaced and BrokenProcessPool raised for the
        caller to retry."""
        loop = asyncio.get_running_loop()
        executor = self._executor
        try:
            thought = await loop.run_in_executor(executor, think, name, seed, state, seat, legal)
        except BrokenProcessPool:
            if self._replaceable and self._executor is executor:
                log.warning("a built-in bot's worker process died; starting a new pool")
                executor.shutdown(wait=False, cancel_futures=True)
                self._executor = process_pool(self.processes)
            raise
        BOT_CPU_SECONDS.labels(bot=name).inc(thought.cpu_s)
        if charge is not None:
            charge(thought.cpu_s)
        return thought.command

    def close(self) -> None:
        """Drop the choices not started yet; one under way finishes in its worker and is
        never committed (its referee was cancelled first)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
