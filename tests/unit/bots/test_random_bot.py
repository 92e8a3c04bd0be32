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


def test_registry() -> None:
    assert "random" in bot_names()
    assert isinstance(make_bot("random", 1), RandomBot)
    assert set(BOTS) == set(bot_names())
    with pytest.raises(UnknownBot, match="known bots: greedy, greedy-view, random"):
        make_bot("nope", 0)
