"""The built-in bots think in worker processes (bot_pool.py): a choice made there is the one
made in-process, its CPU time is counted per bot, and a pool whose worker died is replaced
so that the referee's retry is answered."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY

from frontier.bots import make_bot
from frontier.engine import initial_state, legal_commands, make_config, to_act
from frontier.orchestrator.bot_pool import WORKER_NICENESS, BotPool
from frontier.orchestrator.decisions import bot_seed

LINEUP = "A=marquise,eyrie,thief;B=marquise,alliance,tinker"


@pytest.fixture(scope="module")
def pool() -> Iterator[BotPool]:
    bots = BotPool(processes=1)
    yield bots
    bots.close()


def _cpu(bot: str) -> float:
    return REGISTRY.get_sample_value("frontier_bot_cpu_seconds_total", {"bot": bot}) or 0.0


async def test_a_worker_chooses_what_the_bot_chooses_in_process(pool: BotPool) -> None:
    state = initial_state(make_config(seed=4, lineup=LINEUP))
    seat = to_act(state)
    assert seat is not None
    legal = legal_commands(state, seat)
    seed = bot_seed("e" * 32, state.version, seat)
    before = _cpu("greedy")
    chosen = await pool.choose("greedy", seed, state, seat, legal)
    assert chosen == make_bot("greedy", seed).choose(state, seat, legal)
    assert _cpu("greedy") > before  # its worker's CPU time, counted here


async def test_the_workers_run_below_the_orchestrators_priority(pool: BotPool) -> None:
    state = initial_state(make_config(seed=6, lineup=LINEUP))
    seat = to_act(state)
    assert seat is not None
    await pool.choose("random", 1, state, seat, legal_commands(state, seat))  # a worker is up
    loop = asyncio.get_running_loop()
    theirs = await loop.run_in_executor(pool._executor, os.nice, 0)
    assert theirs == min(os.nice(0) + WORKER_NICENESS, 19)


async def test_a_pool_whose_worker_died_is_replaced(pool: BotPool) -> None:
    state = initial_state(make_config(seed=5, lineup=LINEUP))
    seat = to_act(state)
    assert seat is not None
    legal = legal_commands(state, seat)
    await pool.choose("random", 1, state, seat, legal)  # a worker is up
    broken = pool._executor
    for pid in list(broken._processes):  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGKILL)  # what an out-of-memory kill does
    with pytest.raises(Exception, match=r"terminated abruptly|broken"):
        await pool.choose("random", 1, state, seat, legal)
    assert pool._executor is not broken
    # the referee's retry is answered by the new pool
    assert await pool.choose("random", 1, state, seat, legal) in legal
