"""Crafting (base Root §6) against each map's own item stock (R10, R16 home-map path)."""

from __future__ import annotations

from frontier.engine import Command, CommandKind, EventKind, IllegalCommand, State, Team
from frontier.engine.board import AUTUMN, WINTER
from frontier.engine.model import Item
from tests.engine_helpers import (
    A,
    B,
    assert_conserved,
    assert_refused,
    legal_of,
    play,
    position,
)

CREEK, MEADOW, DUNE = "autumn.creek", "autumn.meadow", "autumn.dune"  # rabbit, fox, mouse


def _crafting(workshops: dict[str, int], hand: list[str], in_play: tuple[str, ...] = ()) -> State:
    return position(
        step="daylight.craft",
        pieces={c: {A: {"workshop": n}} for c, n in workshops.items()},
        hands={A: hand},
        in_play={A: in_play},
    )


def test_crafting_items_from_home_stock_with_vp() -> None:
    state = _crafting({CREEK: 2}, ["bake_sale"])  # coins, rabbit + rabbit, 3 VP
    cmd = Command(CommandKind.CRAFT, A, cards=("bake_sale",), clearings=(CREEK, CREEK))
    assert legal_of(state, CommandKind.CRAFT) == [cmd]
    events = play(state, cmd)
    crafted = next(e for e in events if e.kind is EventKind.CARD_CRAFTED)
    assert crafted.piece == "coins"
    assert state.stock[AUTUMN][Item.COINS] == 1 and state.stock[WINTER][Item.COINS] == 2
    assert state.seats[A].crafted_items == [Item.COINS]
    assert state.scores[Team.A] == 3 and state.seats[A].vp == 3
    assert "bake_sale" in state.discard
    assert_conserved(state)


def test_crafting_team_b_takes_from_the_winter_stock() -> None:
    state = position(step="daylight.craft", turn=B, hands={B: ["anvil"]})
    fox = next(c for c, s in state.suits.items() if c.startswith("winter.") and s == "fox")
    state.pieces[fox][B] = {"workshop": 1}
    state.seats[B].supply["workshop"] -= 1
    play(state, Command(CommandKind.CRAFT, B, cards=("anvil",), clearings=(fox,)))
    assert state.stock[WINTER][Item.HAMMER] == 0 and state.stock[AUTUMN][Item.HAMMER] == 1
    assert state.scores[Team.B] == 2


def test_crafting_cost_needs_workshops_of_the_right_suits() -> None:
    state = _crafting({CREEK: 1}, ["bake_sale", "anvil", "a_visit_to_friends"])
    crafts = {c.cards[0] for c in legal_of(state, CommandKind.CRAFT)}
    assert crafts == {"a_visit_to_friends"}  # one rabbit workshop: boots only
    assert_refused(
        state,
        Command(CommandKind.CRAFT, A, cards=("bake_sale",), clearings=(CREEK, CREEK)),
        IllegalCommand,
    )
    # bird cards do not help pay a crafting cost; "any" accepts every suit
    state = _crafting({CREEK: 1, MEADOW: 1, DUNE: 2}, ["royal_claim"])
    assert [c.clearings for c in legal_of(state, CommandKind.CRAFT)] == [
        (CREEK, DUNE, DUNE, MEADOW)
    ]


def test_crafting_persistent_no_duplicates() -> None:
    state = _crafting({DUNE: 2}, ["codebreakers.1", "codebreakers.2"])
    crafts = legal_of(state, CommandKind.CRAFT)
    assert [c.cards for c in crafts] == [("codebreakers.1",)]  # one per printed card
    play(state, crafts[0])
    assert state.seats[A].play_area == ["codebreakers.1"]
    assert state.scores[Team.A] == 0  # persistent cards score nothing
    assert not legal_of(state, CommandKind.CRAFT)  # a second Codebreakers is refused
    assert_refused(
        state,
        Command(CommandKind.CRAFT, A, cards=("codebreakers.2",), clearings=(DUNE,)),
        IllegalCommand,
    )


def test_crafting_item_gone_from_stock_not_craftable() -> None:
    state = _crafting({DUNE: 1}, ["root_tea_fox"])
    state.stock[AUTUMN][Item.TEA] = 0
    assert not legal_of(state, CommandKind.CRAFT)
    state.stock[WINTER][Item.TEA] = 2  # the rival map's stock does not help at home
    assert not legal_of(state, CommandKind.CRAFT)
    state.stock[AUTUMN][Item.TEA] = 1
    assert legal_of(state, CommandKind.CRAFT)


def test_crafting_one_workshop_per_craft_per_turn() -> None:
    state = _crafting({CREEK: 1}, ["a_visit_to_friends", "travel_gear_fox", "ambush_bird.1"])
    crafts = legal_of(state, CommandKind.CRAFT)
    assert {c.cards[0] for c in crafts} == {"a_visit_to_friends", "travel_gear_fox"}
    play(state, crafts[0])
    assert not legal_of(state, CommandKind.CRAFT)  # the only workshop is used this turn
    state = _crafting({CREEK: 2}, ["a_visit_to_friends", "travel_gear_fox"])
    play(state, legal_of(state, CommandKind.CRAFT)[0])
    assert len(legal_of(state, CommandKind.CRAFT)) == 1


def test_crafting_ambush_cards_cannot_be_crafted() -> None:
    state = _crafting({CREEK: 1, MEADOW: 1, DUNE: 1}, ["ambush_bird.1", "ambush_fox"])
    assert not legal_of(state, CommandKind.CRAFT)


def test_crafting_happens_in_the_craft_step_before_actions() -> None:
    state = _crafting({CREEK: 1}, ["a_visit_to_friends"])
    play(state, Command(CommandKind.END_PHASE, A))
    assert state.step != "daylight.craft"
    assert not legal_of(state, CommandKind.CRAFT)


def test_R16_workshops_on_the_rival_map_never_craft_from_the_home_stock() -> None:
    state = position(step="daylight.craft", hands={A: ["anvil"]})
    fox = next(c for c, s in state.suits.items() if c.startswith("winter.") and s == "fox")
    state.pieces[fox][A] = {"workshop": 1}
    state.seats[A].supply["workshop"] -= 1
    crafts = legal_of(state, CommandKind.CRAFT)
    assert [(c.clearings, c.to) for c in crafts] == [((fox,), fox)]  # contraband (R16)
    play(state, crafts[0])
    assert state.stock[AUTUMN][Item.HAMMER] == 1
    assert state.stock[WINTER][Item.HAMMER] == 0
    assert state.scores[Team.A] == 0 and state.seats[A].crafted_items == []
