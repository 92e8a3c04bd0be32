"""The built-in bots think off the event loop and outside the match's lock (decisions.py).

A bot that blocks until the test lets it go stands for a slow search: while it thinks, the
same server answers another match, and the thinking match's lock is free; a choice made
stale meanwhile (the match moved on) is discarded, and the referee thinks again.  No timing:
the slow bot waits on an event the test sets.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from frontier.bots import BOTS, RandomBot, make_bot
from frontier.engine import (
    Command,
    Seat,
    State,
    decide,
    fold,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.orchestrator.bot_pool import BotPool, process_pool, think
from frontier.orchestrator.decisions import Decisions, bot_seed
from frontier.orchestrator.hosted_match import CommittedBatch, HostedMatch
from frontier.store.seats import SeatArrangement
from frontier.v1 import events_pb2

HELD = "held-for-test"


class _HeldBot:
    """Chooses like the random bot, but only once the test sets ``gate``."""

    started = threading.Event()
    gate = threading.Event()

    def __init__(self, seed: int) -> None:
        self.inner = RandomBot(seed)

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        self.started.set()
        self.gate.wait(60)  # a safety net only: the test sets it
        return self.inner.choose(state, seat, legal)


@pytest.fixture
def held_bot() -> Iterator[type[_HeldBot]]:
    _HeldBot.started = threading.Event()
    _HeldBot.gate = threading.Event()
    BOTS[HELD] = _HeldBot
    try:
        yield _HeldBot
    finally:
        _HeldBot.gate.set()
        del BOTS[HELD]


class _Commits:
    """Stands for the commit path: applies the command with the engine, ends the match
    after ``stop_after`` commits (so its referee stops), and tells the test about each."""

    def __init__(self, stop_after: int = 1) -> None:
        self.made: list[tuple[str, str]] = []  # (match id, command id)
        self.stop_after = stop_after
        self.committed = asyncio.Event()

    async def commit(
        self, hosted: HostedMatch, seat: Seat, cmd: Command, command_id: str, by: Any
    ) -> None:
        assert hosted.lock.locked()  # the caller holds the match's lock
        advance(hosted, cmd)
        self.made.append((hosted.match_id, command_id))
        if sum(1 for m, _ in self.made if m == hosted.match_id) >= self.stop_after:
            hosted.abandon(hosted.stream_seq)  # ended: the referee stops
        self.committed.set()
        hosted.wake.set()


def advance(hosted: HostedMatch, cmd: Command) -> None:
    """A commit: the state becomes a new object (the old one is never edited)."""
    state = hosted.state.clone()
    events = decide(hosted.state, cmd)
    fold(state, events)
    numbered = list(enumerate(events, start=hosted.state.version + 1))
    clock = hosted.clock_of(cmd.seat)
    record = events_pb2.DecisionRecord()
    batch = CommittedBatch(
        cmd.seat, "", cmd.key(), numbered, (), record, clock, state, hosted.stream_seq + 1, None
    )
    hosted.apply(batch, snapshot_every=1_000)


def hosted_match(match_id: str, bot: str) -> HostedMatch:
    config = make_config(seed=11)
    state = initial_state(config)
    seat = to_act(state)
    assert seat is not None
    return HostedMatch(
        match_id=match_id,
        config=config,
        state=state,
        stream_seq=0,
        seat_by_token_hash={},
        command_ids={},
        seats=SeatArrangement(bots={seat.value: bot}),
    )


def decisions_for(commits: _Commits) -> Decisions:
    # threads stand in for the worker processes here: the test holds and releases its bot
    bots = BotPool(executor=ThreadPoolExecutor(2))
    return Decisions(commits, lambda hosted: True, lambda: False, bots)  # type: ignore[arg-type]


async def _wait_for(commits: _Commits, match_id: str, count: int = 1) -> None:
    while sum(1 for m, _ in commits.made if m == match_id) < count:
        commits.committed.clear()
        await commits.committed.wait()


async def test_another_match_is_answered_while_a_bot_thinks(held_bot: type[_HeldBot]) -> None:
    commits = _Commits()
    decisions = decisions_for(commits)
    slow = hosted_match("a" * 32, HELD)
    quick = hosted_match("b" * 32, "random")
    decisions.ensure_referee(slow)
    await asyncio.to_thread(held_bot.started.wait, 60)
    assert not slow.lock.locked()  # thinking holds neither the loop nor the lock
    decisions.ensure_referee(quick)
    await _wait_for(commits, quick.match_id)
    assert commits.made == [(quick.match_id, f"bot:{to_act_of(quick)}:0")]
    held_bot.gate.set()
    await _wait_for(commits, slow.match_id)
    assert commits.made[-1][0] == slow.match_id and decisions.discarded == 0
    decisions.close()


def to_act_of(hosted: HostedMatch) -> str:
    """The seat that acted first (the bot seat): the only entry of the arrangement."""
    (seat,) = hosted.seats.bots
    return seat


async def test_a_choice_made_stale_while_thinking_is_discarded(held_bot: type[_HeldBot]) -> None:
    commits = _Commits(stop_after=1)
    decisions = decisions_for(commits)
    slow = hosted_match("c" * 32, HELD)
    seat = to_act(slow.state)
    assert seat is not None
    decisions.ensure_referee(slow)
    await asyncio.to_thread(held_bot.started.wait, 60)
    first = slow.state
    # the match moves on while the bot thinks (what a commit does: a new state object)
    async with slow.lock:
        advance(slow, staying(first, seat))
    moved = slow.state.version
    assert first.version == 0 and moved > 0
    held_bot.gate.set()
    await _wait_for(commits, slow.match_id)
    # the choice for version 0 was thrown away; the referee thought again at the new one
    assert decisions.discarded == 1
    assert commits.made == [(slow.match_id, f"bot:{seat.value}:{moved}")]
    decisions.close()


def staying(state: State, seat: Seat) -> Command:
    """A legal command after which ``seat`` still acts (so its bot is asked again)."""
    for cmd in legal_commands(state, seat):
        after = state.clone()
        fold(after, decide(state, cmd))
        if to_act(after) is seat:
            return cmd
    raise AssertionError(f"every command of {seat.value} hands the turn on")


def test_a_retried_answer_is_the_same_choice() -> None:
    state = initial_state(make_config(seed=3))
    seat = to_act(state)
    assert seat is not None
    legal = legal_commands(state, seat)
    seed = bot_seed("d" * 32, state.version, seat)
    assert seed != bot_seed("d" * 32, state.version + 1, seat)
    first = think("search", seed, state, seat, legal).command
    assert think("search", seed, state, seat, legal).command == first
    assert make_bot("search", seed).choose(state, seat, legal) == first


def test_the_pool_needs_a_process() -> None:
    with pytest.raises(ValueError, match="at least 1 process"):
        process_pool(0)
