"""The halving search bot: the halving itself, shared samples, the horizon, secrecy, budgets
and where it plugs in.

The halving is checked with a stand-in playout whose values are known, so what is kept and
what is dropped can be counted; budgets by playout counts and a stand-in clock, never by
wall time.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

import pytest

from frontier.bots import bot_names, make_bot
from frontier.bots import halving as halving_module
from frontier.bots.halving import HalvingSearchBot
from frontier.bots.sdk import STRATEGIES, HalvingStrategy
from frontier.engine import Command, State, Team, to_act
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.view import view
from frontier.orchestrator.referee import ClockConfig
from tests.bot_helpers import hide_differently, positions

PLAYOUTS = 24


Playout = Callable[[State, Command, list[Command], int, Team], float]


def _recording_playout(calls: list[tuple[Command, int]], value: dict[Command, float]) -> Playout:
    """A stand-in playout: each command's known value, and a record of (command, seed)."""

    def playout(state: State, cmd: Command, legal: list[Command], gen: int, team: Team) -> float:
        calls.append((cmd, gen))
        return value[cmd]

    return playout


def test_sequential_halving_keeps_the_better_half_each_round_and_answers_the_best(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, seat, legal = positions(R2_DEFAULT_LINEUP, 4, 1)[0]
    assert len(legal) >= 4
    value = {cmd: float((i * 7) % len(legal)) for i, cmd in enumerate(legal)}
    best = max(legal, key=lambda c: value[c])
    calls: list[tuple[Command, int]] = []
    monkeypatch.setattr(halving_module, "_playout", _recording_playout(calls, value))
    bot = HalvingSearchBot(3, playouts=200)
    assert bot.choose(state, seat, legal) == best
    played = Counter(cmd for cmd, _ in calls)
    assert set(played) == set(legal)  # every command is played on the first samples
    ranked = sorted(legal, key=lambda c: -value[c])
    counts = [played[c] for c in ranked]
    assert counts == sorted(counts, reverse=True)  # the better a command, the longer it stays
    assert counts[0] > counts[-1]
    assert bot.last_playouts == len(calls)


def test_every_command_of_a_round_is_played_on_the_same_samples(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Common random numbers: the commands still in play are compared on the same seeds."""
    state, seat, legal = positions(R2_DEFAULT_LINEUP, 4, 1)[0]
    value = {cmd: float(i) for i, cmd in enumerate(legal)}
    calls: list[tuple[Command, int]] = []
    monkeypatch.setattr(halving_module, "_playout", _recording_playout(calls, value))
    HalvingSearchBot(5, playouts=200).choose(state, seat, legal)
    seeds_of: dict[Command, list[int]] = {}
    for cmd, gen in calls:
        seeds_of.setdefault(cmd, []).append(gen)
    first_round = min(len(seeds) for seeds in seeds_of.values())
    shared = {tuple(seeds[:first_round]) for seeds in seeds_of.values()}
    assert len(shared) == 1  # the same seeds, in the same order, for every command
    assert len(set(next(iter(shared)))) == first_round  # and a fresh one each time


def test_the_playout_ends_after_the_rivals_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The horizon: the own turn, then the next turn (a rival's, R3), then the judgement."""
    state, seat, legal = positions(R2_DEFAULT_LINEUP, 6, 1)[0]
    judged: list[State] = []

    def judge(position: State, team: Team) -> float:
        judged.append(position.clone())
        return 0.0

    monkeypatch.setattr(halving_module, "evaluate_team", judge)
    start = state.order.index(state.turn_seat)
    halving_module._playout(state.clone(), legal[0], legal, 1, seat.team)
    (end,) = judged
    assert not end.over
    turns_later = (end.round - state.round) * len(state.order) + (
        end.order.index(end.turn_seat) - start
    )
    assert turns_later == 2  # the rival's turn is over, the teammate's is about to start
    assert end.turn_seat is not None and end.turn_seat.team is seat.team
    assert to_act(end) is not None


def test_the_decision_does_not_change_with_hidden_information() -> None:
    found = positions(R2_DEFAULT_LINEUP, 3, 4)
    assert len(found) == 4
    for state, seat, legal in found:
        changed = hide_differently(state, seat)
        assert view(changed, seat) == view(state, seat)
        first = HalvingSearchBot(42, playouts=PLAYOUTS).choose(state, seat, legal)
        second = HalvingSearchBot(42, playouts=PLAYOUTS).choose(changed, seat, legal)
        assert first == second
        assert first in legal


def test_same_seed_same_choice() -> None:
    state, seat, legal = positions("A=marquise;B=marquise", 1, 1)[0]
    choices = {HalvingSearchBot(7, playouts=PLAYOUTS).choose(state, seat, legal) for _ in range(3)}
    assert len(choices) == 1
    assert choices.pop() in legal


def test_the_playout_budget_is_respected() -> None:
    state, seat, legal = positions("A=marquise;B=marquise", 2, 1)[0]
    bot = HalvingSearchBot(1, playouts=64)
    bot.choose(state, seat, legal)
    # each round spends at most its share, and at least one sample of every command left
    assert len(legal) <= bot.last_playouts <= 64 + 2 * len(legal)
    bot.choose(state, seat, legal[:1])
    assert bot.last_playouts == 0  # a forced move is not searched


def test_the_time_limit_answers_the_best_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in clock that advances 10 ms per reading: a 5 ms limit allows one sample of
    every command, and the answer is the best of them."""
    ticks = iter(range(0, 10**6, 10))
    monkeypatch.setattr(time, "monotonic", lambda: next(ticks) / 1000.0)
    state, seat, legal = positions("A=marquise;B=marquise", 2, 1)[0]
    value = {cmd: float(i) for i, cmd in enumerate(legal)}
    calls: list[tuple[Command, int]] = []
    monkeypatch.setattr(halving_module, "_playout", _recording_playout(calls, value))
    bot = HalvingSearchBot(1, playouts=10_000)
    assert bot.choose_from_view(view(state, seat), legal, time_limit_ms=5) == legal[-1]
    assert bot.last_playouts == len(legal)


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1 playout"):
        HalvingSearchBot(1, playouts=0)
    with pytest.raises(ValueError, match="positive"):
        HalvingSearchBot(1, time_limit_ms=0)
    with pytest.raises(ValueError, match="no legal command"):
        HalvingSearchBot(1).choose_from_view({}, [])


def test_registered_in_process_remotely_and_as_a_takeover_bot() -> None:
    assert "search-halving" in bot_names()
    assert isinstance(make_bot("search-halving", 3), HalvingSearchBot)
    assert ClockConfig.make(1000, 0, 3, "search-halving").takeover_bot == "search-halving"
    assert STRATEGIES["search-halving"] is HalvingStrategy
