"""Frontier's rulings on the ruins, the item stocks (R9, R10) and the shared deck (R11).

Each test is named after the ruling (VARIANT_RULES.md) it checks.
"""

from __future__ import annotations

from collections import Counter

from frontier.engine import (
    Command,
    CommandKind,
    EventKind,
    IllegalCommand,
    legal_commands,
)
from frontier.engine.board import AUTUMN, WINTER, board
from frontier.engine.cards import CardKind, catalog
from frontier.engine.ctx import Ctx
from frontier.engine.model import Item, Suit
from frontier.engine.view import view
from tests.engine_helpers import (
    DECK_SIZE,
    A,
    B,
    assert_conserved,
    assert_refused,
    new_state,
    play,
    position,
)

# ----- R9 / R10: ruins and item stocks ----------------------------------------------------------


def test_R9_ruins_hold_hidden_items_two_of_each() -> None:
    state = new_state(7)
    assert len(state.ruins) == 8
    assert sum(1 for c in state.ruins if c.startswith("autumn.")) == 4
    assert sum(1 for c in state.ruins if c.startswith("winter.")) == 4
    assert all(board().clearings[c].ruin for c in state.ruins)
    items = Counter(i for items in state.ruins.values() for i in items)
    assert items == {Item.BAG: 2, Item.BOOTS: 2, Item.HAMMER: 2, Item.SWORD: 2}
    # hidden: views show how many items a ruin holds, never which
    for viewer in (A, B, None):
        for clearing in view(state, viewer)["clearings"]:
            assert isinstance(clearing["ruin_items"], int)
            assert clearing["ruin_items"] == len(state.ruins.get(clearing["id"], []))


def test_R9_ruin_items_are_shuffled_by_the_seed() -> None:
    layouts = {tuple(tuple(v) for v in new_state(s).ruins.values()) for s in range(10)}
    assert len(layouts) > 1


def test_R9_a_ruin_fills_a_building_slot() -> None:
    from frontier.engine.pieces import open_slots

    state = new_state()
    assert open_slots(state, "autumn.waterfall") == 2  # 3 slots, one under the ruin
    assert open_slots(state, "autumn.creek") == 2


def test_R10_each_map_has_its_own_12_item_stock() -> None:
    state = new_state()
    expected = {
        Item.BOOTS: 2,
        Item.BAG: 2,
        Item.CROSSBOW: 1,
        Item.HAMMER: 1,
        Item.SWORD: 2,
        Item.TEA: 2,
        Item.COINS: 2,
    }
    assert state.stock == {AUTUMN: expected, WINTER: expected}
    assert state.stock[AUTUMN] is not state.stock[WINTER]
    assert sum(state.stock[AUTUMN].values()) == 12


# ----- R11: the deck ----------------------------------------------------------------------------


def test_R11_deck_has_47_cards_without_dominance_and_favors() -> None:
    cards = catalog()
    assert len(cards) == DECK_SIZE
    assert all(
        c.kind in (CardKind.ITEM, CardKind.PERSISTENT, CardKind.AMBUSH) for c in cards.values()
    )
    assert not any("dominance" in cid or "favor" in cid for cid in cards)
    assert Counter(c.kind for c in cards.values()) == {
        CardKind.ITEM: 20,
        CardKind.PERSISTENT: 22,
        CardKind.AMBUSH: 5,
    }
    assert Counter(c.suit for c in cards.values()) == {
        Suit.BIRD: 13,  # 54-card suits 14/14/13/13, less one Dominance per suit
        Suit.FOX: 12,  # and the three Favors (fox, rabbit, mouse)
        Suit.RABBIT: 11,
        Suit.MOUSE: 11,
    }
    assert len(set(cards)) == DECK_SIZE


def test_R11_each_seat_starts_with_three_cards_from_a_seeded_shuffle() -> None:
    state = new_state(11)
    assert all(len(st.hand) == 3 for st in state.seats.values())
    assert len(state.deck) == DECK_SIZE - 3 * len(state.seats)
    assert_conserved(state)
    assert new_state(11).deck == state.deck
    assert new_state(12).deck != state.deck


def test_R11_reshuffle_discard_when_deck_runs_out() -> None:
    state = position()
    state.discard = list(state.deck)
    state.deck = []
    ctx = Ctx(state)
    ctx.draw(A, 2)
    kinds = [e.kind for e in ctx.events]
    assert kinds == [EventKind.DECK_SHUFFLED, EventKind.CARDS_DRAWN]
    assert ctx.events[0].cards == ()  # the new order stays secret
    assert len(state.seats[A].hand) == 2 and state.discard == []
    assert_conserved(state)


def test_R11_reshuffle_when_deck_runs_out_in_the_middle_of_a_draw() -> None:
    state = position()
    last = state.deck[-1]
    state.discard = state.deck[:-1]
    state.deck = [last]
    ctx = Ctx(state)
    ctx.draw(A, 3)
    assert [e.kind for e in ctx.events] == [
        EventKind.CARDS_DRAWN,
        EventKind.DECK_SHUFFLED,
        EventKind.CARDS_DRAWN,
    ]
    assert ctx.events[0].cards == (last,)
    assert len(state.seats[A].hand) == 3
    assert_conserved(state)


def test_R11_draw_stops_when_deck_and_discard_are_empty() -> None:
    state = position()
    spare = list(state.deck)
    state.deck = spare[-1:]
    state.discard = []
    ctx = Ctx(state)
    ctx.draw(A, 3)
    assert state.seats[A].hand == spare[-1:]


def test_R11_hand_limit_five_at_end_of_evening() -> None:
    cards = [
        "anvil",
        "sword",
        "bake_sale",
        "investments",
        "root_tea_fox",
        "cobbler.1",
        "armorers.1",
    ]
    state = position(step="daylight.actions", actions=0, hands={A: cards})
    play(state, Command(CommandKind.END_PHASE, A))
    # Evening draw 1 (one recruiter), then discard down to 5, one card at a time
    assert state.step == "evening.discard"
    assert len(state.seats[A].hand) == 8
    options = legal_commands(state, A)
    assert {c.kind for c in options} == {CommandKind.DISCARD}
    assert_refused(state, Command(CommandKind.END_PHASE, A), IllegalCommand)
    for _ in range(3):
        assert state.step == "evening.discard" and state.turn_seat is A
        events = play(state, legal_commands(state, A)[0])
    assert events[0].kind is EventKind.CARDS_DISCARDED
    assert len(events[0].cards) == 1
    assert state.turn_seat is not A or state.round == 2  # A's turn is over
    assert len(state.discard) == 3
