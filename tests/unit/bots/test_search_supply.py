"""The search's value of the two item stocks (R10, R16): last items, and presence abroad."""

from __future__ import annotations

import pytest

from frontier.bots.evaluation import carried_share, evaluate, satchel_share, steps_home
from frontier.bots.supply import (
    LAST_ITEM,
    PRESENCE,
    SECOND_ITEM,
    presence,
    presence_value,
    rival_only_points,
    stock_value,
)
from frontier.engine import Seat, State, Team, initial_state, make_config
from frontier.engine.board import HOME_MAP, board
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Item
from frontier.engine.pieces import WORKSHOP
from frontier.engine.vagabond_state import VagabondState, VItem


def _state() -> State:
    state = initial_state(make_config(seed=3, lineup=R2_DEFAULT_LINEUP))
    state.round = 1
    return state


def test_full_stocks_are_even_and_the_last_item_of_a_kind_counts() -> None:
    state = _state()
    assert stock_value(state, Team.A) == pytest.approx(0.0)  # R10: the same 12 items each
    home_a = state.stock[HOME_MAP[Team.A]]
    assert home_a[Item.COINS] == 2
    home_a[Item.COINS] = 1  # team A crafted one coins at home: 3 VP, the second-to-last gone
    assert stock_value(state, Team.A) == pytest.approx(-SECOND_ITEM * 3)
    home_a[Item.COINS] = 0  # ... and the last one: the next coins card only crafts abroad
    assert stock_value(state, Team.A) == pytest.approx(-(SECOND_ITEM + LAST_ITEM) * 3)
    assert stock_value(state, Team.B) == pytest.approx((SECOND_ITEM + LAST_ITEM) * 3)


def test_a_rival_map_craft_of_the_rivals_last_item_beats_using_up_the_own_last_one() -> None:
    """The swing that gives crafting abroad a reason: the same card, crafted from either
    stock when both hold only their last coins (team A's point of view)."""
    state = _state()
    state.stock[HOME_MAP[Team.A]][Item.COINS] = 1
    state.stock[HOME_MAP[Team.B]][Item.COINS] = 1
    home_craft = state.clone()
    home_craft.stock[HOME_MAP[Team.A]][Item.COINS] = 0
    abroad = state.clone()
    abroad.stock[HOME_MAP[Team.B]][Item.COINS] = 0
    assert stock_value(abroad, Team.A) - stock_value(home_craft, Team.A) == pytest.approx(
        2 * LAST_ITEM * 3
    )


def test_presence_abroad_is_worth_nothing_while_the_home_stock_offers_every_item() -> None:
    state = _state()
    rival_map = HOME_MAP[Team.B]
    clearing = board().on_map(rival_map)[0]
    state.pieces[clearing].setdefault(Seat.A1, {})[WORKSHOP] = 1  # team A's Marquise abroad
    assert presence(state, Team.A) == 1
    assert rival_only_points(state, Team.A) == 0
    assert presence_value(state, Team.A) == pytest.approx(0.0)
    state.stock[HOME_MAP[Team.A]][Item.COINS] = 0  # home coins gone, the rival's still there
    state.stock[HOME_MAP[Team.A]][Item.BAG] = 0
    assert rival_only_points(state, Team.A) == 3  # the best of what only the rival stock holds
    assert presence_value(state, Team.A) == pytest.approx(PRESENCE * 3)
    before = evaluate(state, Team.A)
    state.pieces[clearing][Seat.A1][WORKSHOP] = 0
    assert evaluate(state, Team.A) < before
    state.stock[HOME_MAP[Team.B]][Item.COINS] = 0  # nothing the rival stock alone offers
    assert rival_only_points(state, Team.A) == 1  # the bag is still there
    state.stock[HOME_MAP[Team.B]][Item.BAG] = 0
    assert rival_only_points(state, Team.A) == 0


def test_a_vagabonds_ready_hammers_count_only_where_it_stands_on_the_rival_map() -> None:
    state = _state()
    vagabond = next(s for s, st in state.seats.items() if isinstance(st.extra, VagabondState))
    team = vagabond.team
    vs = state.seats[vagabond].extra
    assert isinstance(vs, VagabondState)
    vs.items = [it for it in vs.items if it.item is not Item.HAMMER]
    vs.items += [VItem(Item.HAMMER), VItem(Item.HAMMER, exhausted=True)]
    rival = Team.B if team is Team.A else Team.A
    assert presence(state, team) == 0  # set up on the home map only (R12)
    vs.location = board().on_map(HOME_MAP[team])[0]
    assert presence(state, team) == 0  # a hammer at home crafts from the home stock
    vs.location = board().on_map(HOME_MAP[rival])[0]
    assert presence(state, team) == 1  # the exhausted hammer crafts nothing this turn


def test_the_satchel_is_safer_than_a_carrier_at_the_same_distance() -> None:
    steps = steps_home(Team.A)
    for place in ("winter.mound", max(steps, key=steps.__getitem__)):
        assert satchel_share(Team.A, place) > carried_share(Team.A, place)
    assert satchel_share(Team.A, "winter.mound") < 1.0  # a home craft still scores more
