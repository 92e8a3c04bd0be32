"""The search bot: secrecy, budgets, reproducibility, the evaluation, and where it plugs in.

Budgets are tested by iteration counts and by a stand-in clock, never by wall time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from frontier.bots import Bot, SearchBot, bot_names, make_bot
from frontier.bots import search as search_module
from frontier.bots.evaluation import carried_share, evaluate, horizon, steps_home, transit_time
from frontier.bots.halving import HalvingSearchBot
from frontier.bots.sdk import (
    STRATEGIES,
    Choice,
    Decision,
    HalvingStrategy,
    SearchStrategy,
    Strategy,
)
from frontier.bots.search import time_limit_ms
from frontier.engine import (
    Seat,
    Team,
    initial_state,
    make_config,
)
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Item
from frontier.engine.state import DroppedItem
from frontier.engine.vagabond_state import VagabondState, VItem
from frontier.engine.view import view
from frontier.orchestrator.referee import ClockConfig
from frontier.play.match_runner import play_match, seat_bots
from tests.bot_helpers import hide_differently, positions

ITERATIONS = 12


def test_the_decision_does_not_change_with_hidden_information() -> None:
    found = positions(R2_DEFAULT_LINEUP, 3, 6)
    assert len(found) == 6
    for state, seat, legal in found:
        changed = hide_differently(state, seat)
        assert view(changed, seat) == view(state, seat)  # the seat sees no difference
        assert changed.deck != state.deck
        first = SearchBot(42, iterations=ITERATIONS).choose(state, seat, legal)
        second = SearchBot(42, iterations=ITERATIONS).choose(changed, seat, legal)
        assert first == second
        assert first in legal


def test_same_seed_same_choice_and_different_seeds_explore() -> None:
    state, seat, legal = positions("A=marquise;B=marquise", 1, 1)[0]
    choices = {SearchBot(7, iterations=ITERATIONS).choose(state, seat, legal) for _ in range(3)}
    assert len(choices) == 1
    assert choices.pop() in legal


def test_the_iteration_budget_is_respected() -> None:
    state, seat, legal = positions("A=marquise;B=marquise", 2, 1)[0]
    bot = SearchBot(1, iterations=9)
    bot.choose(state, seat, legal)
    assert bot.last_iterations == 9
    bot.choose(state, seat, legal[:1])
    assert bot.last_iterations == 0  # a forced move is not searched


def test_the_time_limit_stops_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in clock that advances 10 ms per reading: a 35 ms limit allows 4 iterations."""
    ticks = iter(range(0, 10**6, 10))
    monkeypatch.setattr(time, "monotonic", lambda: next(ticks) / 1000.0)
    state, seat, legal = positions("A=marquise;B=marquise", 2, 1)[0]
    bot = SearchBot(1, iterations=1000, time_limit_ms=35)
    bot.choose(state, seat, legal)
    assert bot.last_iterations == 4
    bot.choose_from_view(view(state, seat), legal, time_limit_ms=5)
    assert bot.last_iterations == 1  # at least one iteration, whatever the clock says


def test_time_limit_from_the_match_clock() -> None:
    assert time_limit_ms(0, 0, None) is None
    assert time_limit_ms(0, 5000, 800.0) == 800.0
    assert time_limit_ms(1000, 0, None) == 1000 * search_module.CLOCK_SHARE - 150
    assert time_limit_ms(1000, 60_000, 200.0) == 200.0
    assert time_limit_ms(100, 0, None) == 1.0  # a tiny budget still gets one iteration


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1 iteration"):
        SearchBot(1, iterations=0)
    with pytest.raises(ValueError, match="positive"):
        SearchBot(1, time_limit_ms=0)
    with pytest.raises(ValueError, match="no legal command"):
        SearchBot(1).choose_from_view({}, [])


def test_registered_everywhere() -> None:
    assert "search" in bot_names()
    assert isinstance(make_bot("search", 3), SearchBot)
    assert ClockConfig.make(1000, 0, 3, "search").takeover_bot == "search"
    assert "search" in STRATEGIES


@pytest.mark.parametrize("strategy", [SearchStrategy, HalvingStrategy])
def test_remote_strategy_uses_the_view_json_and_answers_a_legal_id(
    strategy: Callable[[int], Strategy],
) -> None:
    state, seat, legal = positions(R2_DEFAULT_LINEUP, 4, 1)[0]
    decision = Decision(
        id="17",
        kind="",
        seat=seat,
        view=json.loads(json.dumps(view(state, seat))),  # exactly what travels on the wire
        legal=[Choice(f"c{i}", cmd) for i, cmd in enumerate(legal)],
        deadline_unix_ms=0,
        budget_ms=0,
        reserve_ms=0,
        server_time_unix_ms=0,
    )
    answer = strategy(5).choose(decision)
    assert answer in {c.id for c in decision.legal}


@pytest.mark.parametrize(
    "small", [lambda s: SearchBot(s, iterations=4), lambda s: HalvingSearchBot(s, playouts=8)]
)
def test_a_whole_round_with_a_search_bot_on_every_seat(small: Callable[[int], Bot]) -> None:
    config = make_config(seed=11, lineup=R2_DEFAULT_LINEUP, max_rounds=1)
    bots = seat_bots(config, small)
    result = play_match(config, bots, record=False, summaries=False)
    assert result.state.over


def test_evaluation_counts_score_contraband_and_the_horizon() -> None:
    state = initial_state(make_config(seed=1, lineup=R2_DEFAULT_LINEUP))
    state.round = 1
    base = evaluate(state, Team.A)
    assert evaluate(state, Team.B) == pytest.approx(-base)
    state.scores[Team.A] += 3
    assert evaluate(state, Team.A) == pytest.approx(base + 3)
    carrier = Seat.A1
    state.carried.setdefault("winter.mound", {})[carrier] = [
        DroppedItem(Item.SWORD, Team.A, carrier)
    ]
    with_item = evaluate(state, Team.A)
    assert with_item > base + 3
    first = horizon(state)
    state.round = state.options.max_rounds
    assert horizon(state) < first
    state.winner = "A"
    assert evaluate(state, Team.A) > with_item + 10


def test_contraband_is_worth_more_the_nearer_its_carrier_is_to_home() -> None:
    steps = steps_home(Team.A)  # team A's home is autumn: its way home ends on winter's bridges
    assert steps["winter.mound"] == steps["winter.spire"] == 0
    assert steps["autumn.quarry"] == 1  # over the bridge: on the home map already
    far = max((c for c in steps if c.startswith("winter.")), key=steps.__getitem__)
    assert steps[far] >= 2
    assert carried_share(Team.A, "winter.mound") > carried_share(Team.A, far) > 0
    state = initial_state(make_config(seed=1, lineup=R2_DEFAULT_LINEUP))
    state.round = 1
    base = evaluate(state, Team.A)
    values = []
    for place in ("winter.mound", far):
        state.carried.clear()
        state.carried[place] = {Seat.A1: [DroppedItem(Item.SWORD, Team.A, Seat.A1)]}
        values.append(evaluate(state, Team.A) - base)
    assert values[0] > values[1] > 0


def test_the_vagabonds_satchel_contraband_is_valued_by_the_pawns_way_home() -> None:
    state = initial_state(make_config(seed=1, lineup=R2_DEFAULT_LINEUP))
    state.round = 1
    vagabond = next(s for s, st in state.seats.items() if isinstance(st.extra, VagabondState))
    team = vagabond.team
    vs = state.seats[vagabond].extra
    assert isinstance(vs, VagabondState)
    rival_map = "winter" if team is Team.A else "autumn"
    steps = steps_home(team)
    near = min((c for c in steps if c.startswith(rival_map + ".")), key=steps.__getitem__)
    far = max((c for c in steps if c.startswith(rival_map + ".")), key=steps.__getitem__)
    vs.items.append(VItem(Item.SWORD, contraband=True, crafter=vagabond.value))
    values = []
    for place in (near, far):
        vs.location = place
        values.append(evaluate(state, team))
    vs.items.pop()
    without = evaluate(state, team)
    assert values[0] > values[1] > without


def test_contraband_left_abroad_in_the_last_round_is_worth_almost_nothing() -> None:
    state = initial_state(make_config(seed=1, lineup=R2_DEFAULT_LINEUP))
    state.carried["winter.mound"] = {Seat.A1: [DroppedItem(Item.COINS, Team.A, Seat.A1)]}
    gains = []
    for rnd in (state.options.max_rounds - 1, state.options.max_rounds):
        state.round = rnd
        with_item = evaluate(state, Team.A)
        saved = state.carried.pop("winter.mound")
        gains.append(with_item - evaluate(state, Team.A))
        state.carried["winter.mound"] = saved
    assert transit_time(state) < 1.0
    assert gains[1] == pytest.approx(gains[0] * transit_time(state))
    assert 0 < gains[1] < gains[0]
