"""RandomBot and the bot registry: reproducible choices from a seed, one line per bot."""

from __future__ import annotations

import pytest

from frontier.bots import BOTS, RandomBot, UnknownBot, bot_names, make_bot
from frontier.engine import (
    Command,
    CommandKind,
    Seat,
    State,
    initial_state,
    legal_commands,
    make_config,
)


@pytest.fixture
def state() -> State:
    return initial_state(make_config(seed=1))


def _options(n: int) -> list[Command]:
    return [Command(CommandKind.END_PHASE, Seat.A1, count=i) for i in range(n)]


def test_same_seed_same_choices(state: State) -> None:
    seat = state.turn_seat
    assert seat is not None
    legal = legal_commands(state, seat)
    assert len(legal) > 1
    a, b = RandomBot(7), RandomBot(7)
    picks_a = [a.choose(state, seat, legal) for _ in range(50)]
    picks_b = [b.choose(state, seat, legal) for _ in range(50)]
    assert picks_a == picks_b
    assert all(p in legal for p in picks_a)


def test_choices_spread_over_the_legal_list(state: State) -> None:
    bot = RandomBot(3)
    seen = {bot.choose(state, Seat.A1, _options(4)).count for _ in range(200)}
    assert seen == {0, 1, 2, 3}


def test_different_seeds_differ(state: State) -> None:
    runs = {
        tuple(bot.choose(state, Seat.A1, _options(10)).count for _ in range(20))
        for bot in (RandomBot(s) for s in range(5))
    }
    assert len(runs) > 1


def test_empty_legal_list_is_an_error(state: State) -> None:
    with pytest.raises(ValueError, match="no legal command"):
        RandomBot(0).choose(state, Seat.B1, [])


def test_registry_names_every_bot_once_in_order() -> None:
    assert bot_names() == [
        "greedy",
        "greedy-view",
        "random",
        "search",
        "search-halving",
        "search-team",
    ]
    assert list(BOTS) == [  # in order
        "random",
        "greedy",
        "greedy-view",
        "search",
        "search-team",
        "search-halving",
    ]


@pytest.mark.parametrize("name", ["random", "greedy", "greedy-view", "search"])
def test_each_registered_name_builds_a_bot_that_plays(name: str) -> None:
    """Each name builds a fresh instance of its own factory, and that bot picks a legal
    command for the seat to act on a new match."""
    state = initial_state(make_config(seed=3))
    seat = state.turn_seat
    assert seat is not None
    legal = legal_commands(state, seat)
    bot = make_bot(name, 7)
    assert type(bot) is BOTS[name]
    assert make_bot(name, 7) is not bot
    assert bot.choose(state, seat, legal) in legal


def test_an_unknown_bot_names_the_choices() -> None:
    with pytest.raises(UnknownBot) as refused:
        make_bot("nope", 0)
    known = "known bots: greedy, greedy-view, random, search, search-halving, search-team"
    assert str(refused.value) == f"unknown bot 'nope'; {known}"
