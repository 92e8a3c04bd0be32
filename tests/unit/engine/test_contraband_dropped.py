"""Dropped contraband (R18-R21): dropping when the last carrier is removed, collecting for a
move, seizure, the Vagabond's torch and the Alliance's Revolutionary Agent."""

from __future__ import annotations

import pytest

from frontier.engine import Command, CommandKind, EventKind, IllegalCommand, Seat, Team
from frontier.engine.board import board
from frontier.engine.model import Item
from frontier.engine.state import DroppedItem
from frontier.engine.view import view
from tests.contraband_helpers import (
    A1,
    A2,
    A3,
    B1,
    B2,
    HAMMER_A1,
    MOUND,
    QUARRY,
    assert_folds,
    autumn_of,
    carry,
    drop,
    fee,
    full_match,
    full_position,
    item_count,
    of_kind,
    satchel,
    suit,
    winter_of,
)
from tests.engine_helpers import (
    CARD_OF,
    assert_items_conserved,
    assert_refused,
    dice_seed,
    first_legal,
    kinds_of,
    legal_of,
    play,
)
from tests.vagabond_helpers import item_keys

# ----- R18: dropping and collecting --------------------------------------------------------------


def test_R18_last_carrier_warrior_removed_in_battle_drops_the_contraband() -> None:
    state = full_position(
        turn=B1, actions=2, pieces={MOUND: {A1: {"warrior": 1}, B1: {"warrior": 2}}}
    )
    carry(state, MOUND, A1, Item.HAMMER, A1)
    state.rng = dice_seed(2, 1)
    start = state.clone()
    events = play(state, Command(CommandKind.BATTLE, B1, clearing=MOUND, target="A1"))
    assert "contraband_dropped" in kinds_of(events)
    assert state.carried == {}
    assert state.dropped == {MOUND: [HAMMER_A1]}
    for viewer in (*state.order, None):  # dropped items are public
        assert view(state, viewer)["dropped"] == {
            MOUND: [{"item": "hammer", "team": "A", "crafter": "A1"}]
        }
    assert_items_conserved(state)
    assert_folds(start, events, state)


def test_R18_contraband_stays_while_a_carrier_warrior_is_left() -> None:
    state = full_position(
        turn=B1, actions=1, pieces={MOUND: {A1: {"warrior": 3}, B1: {"warrior": 2}}}
    )
    carry(state, MOUND, A1, Item.HAMMER, A1)
    state.rng = dice_seed(2, 1)
    play(state, Command(CommandKind.BATTLE, B1, clearing=MOUND, target="A1"))
    assert state.pieces[MOUND][A1]["warrior"] == 1
    assert state.carried == {MOUND: {A1: [HAMMER_A1]}} and state.dropped == {}


def test_R18_any_removal_drops_it_tax_collector_included() -> None:
    state = full_position(
        actions=1, pieces={MOUND: {A1: {"warrior": 1}}}, in_play={A1: ["tax_collector.1"]}
    )
    carry(state, MOUND, A1, Item.TEA, A1)
    play(state, Command(CommandKind.TAX_COLLECTOR, A1, clearing=MOUND))
    assert state.dropped == {MOUND: [DroppedItem(Item.TEA, Team.A, A1)]}


def test_R18_marquise_collects_with_one_move_of_a_march_and_marches_it_home() -> None:
    state = full_position(actions=2, pieces={MOUND: {A1: {"warrior": 1}}})
    drop(state, MOUND, Item.HAMMER, A1)
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A1].hand.append(card)
    collect = Command(CommandKind.COLLECT, A1, clearing=MOUND, piece="hammer", target="A1")
    assert legal_of(state, CommandKind.COLLECT) == [collect]
    play(state, collect)
    assert (state.actions, state.march_left) == (1, 1)  # the first move of a march
    assert state.carried == {MOUND: {A1: [HAMMER_A1]}} and state.dropped == {}
    play(state, first_legal(state, CommandKind.MARCH, to=QUARRY))  # the march's second move
    assert (state.actions, state.march_left) == (1, 0)
    assert state.scores[Team.A] == 2 and state.seats[A1].crafted_items == [Item.HAMMER]
    assert_items_conserved(state)


def test_R18_marquise_collect_as_the_second_move_ends_the_march() -> None:
    drift = next(c for c in board().adjacent[MOUND] if c.startswith("winter."))
    state = full_position(actions=1, pieces={drift: {A1: {"warrior": 2}}})
    drop(state, MOUND, Item.HAMMER, A1)
    assert legal_of(state, CommandKind.COLLECT) == []  # no warrior of A1 in Mound yet
    play(state, Command(CommandKind.MARCH, A1, clearing=drift, to=MOUND, count=1))
    assert (state.actions, state.march_left) == (0, 1)
    play(state, first_legal(state, CommandKind.COLLECT))
    assert (state.actions, state.march_left) == (0, 0)
    assert state.carried == {MOUND: {A1: [HAMMER_A1]}}


def test_R18_collecting_needs_no_rule_and_any_faction_may_collect() -> None:
    pieces = {MOUND: {A1: {"warrior": 1}, B1: {"warrior": 3}}}
    state = full_position(actions=1, pieces=pieces)
    drop(state, MOUND, Item.HAMMER, A1)
    assert legal_of(state, CommandKind.COLLECT)  # B rules Mound; A1 still collects
    rival = full_position(turn=B1, actions=1, pieces=pieces)
    drop(rival, MOUND, Item.HAMMER, A1)
    play(rival, first_legal(rival, CommandKind.COLLECT))  # the rival takes A's item away
    assert rival.carried == {MOUND: {B1: [HAMMER_A1]}}


def test_R18_eyrie_collects_by_resolving_a_move_card_matching_the_clearing() -> None:
    rabbit = MOUND
    fox = winter_of("fox")[0]
    state = full_position(
        turn=A2,
        step="daylight.decree",
        pieces={rabbit: {A2: {"warrior": 1}}, fox: {A2: {"warrior": 1}}},
        decree={"move": [CARD_OF["rabbit"]]},  # and the Commander's bird vizier
    )
    assert suit(state, rabbit) == "rabbit"
    drop(state, rabbit, Item.HAMMER, A1)
    drop(state, fox, Item.BAG, A1)
    collects = legal_of(state, CommandKind.COLLECT)
    assert {(c.clearing, c.piece) for c in collects} == {(rabbit, "hammer"), (fox, "bag")}
    assert len(collects) == len(set(collects)) == 2  # one command each, under rabbit and bird
    play(state, first_legal(state, CommandKind.COLLECT, clearing=rabbit))
    assert state.used.get("decree:move:rabbit") == 1  # the matching card, the bird kept
    assert not state.used.get("decree:move:bird")
    assert state.carried == {rabbit: {A2: [HAMMER_A1]}}
    play(state, first_legal(state, CommandKind.COLLECT, clearing=fox))  # the bird is wild
    assert state.used.get("decree:move:bird") == 1


def test_R18_eyrie_move_card_of_another_suit_cannot_collect() -> None:
    fox = winter_of("fox")[0]
    state = full_position(
        turn=A2,
        step="daylight.decree",
        pieces={fox: {A2: {"warrior": 1}}},
        decree={"move": [CARD_OF["rabbit"]]},
    )
    state.used["decree:move:bird"] = 1  # the bird vizier already resolved
    drop(state, fox, Item.HAMMER, A1)
    assert legal_of(state, CommandKind.COLLECT) == []


@pytest.mark.parametrize("crafter", [B2, A1])
def test_R21_the_alliance_never_collects_a_dropped_item(crafter: Seat) -> None:
    """Revised R21: the Alliance relies on its allies' logistics, its own item or a rival's."""
    state = full_position(
        turn=B2, step="evening.operations", pieces={QUARRY: {B2: {"warrior": 1}}}, officers={B2: 1}
    )
    drop(state, QUARRY, Item.COINS, crafter)
    assert not legal_of(state, CommandKind.COLLECT)
    assert legal_of(state, CommandKind.MOVE)  # its operations go on as usual
    assert_refused(
        state,
        Command(CommandKind.COLLECT, B2, clearing=QUARRY, piece="coins", target=crafter.value),
        IllegalCommand,
    )


# ----- R19: seizure ------------------------------------------------------------------------------


def test_R19_marquise_seizes_a_rival_item_on_its_home_map_for_1_vp() -> None:
    state = full_position(actions=2, pieces={QUARRY: {A1: {"warrior": 1}}})
    drop(state, QUARRY, Item.COINS, B2)
    seize = Command(CommandKind.SEIZE, A1, clearing=QUARRY, piece="coins", target="B2")
    assert legal_of(state, CommandKind.SEIZE) == [seize]
    start = state.clone()
    events = play(state, seize)
    assert kinds_of(events)[-2:] == ["contraband_seized", "scored"]
    assert state.crate == [Item.COINS] and state.dropped == {}
    assert state.scores[Team.A] == 1 and state.seats[A1].vp == 1
    assert state.actions == 1  # a battle action
    for viewer in (*state.order, None):
        assert view(state, viewer)["crate"] == ["coins"]
    assert_items_conserved(state)
    assert_folds(start, events, state)


def test_R19_no_seizure_of_its_own_teams_item_off_its_home_map_or_without_a_warrior() -> None:
    state = full_position(
        actions=1, pieces={QUARRY: {A1: {"warrior": 1}}, MOUND: {A1: {"warrior": 1}}}
    )
    drop(state, QUARRY, Item.HAMMER, A2)  # its own team's item on its home map
    drop(state, MOUND, Item.COINS, B2)  # a rival item, but on the rival's home map
    drop(state, "autumn.creek", Item.BAG, B2)  # no warrior there
    assert legal_of(state, CommandKind.SEIZE) == []
    assert {c.clearing for c in legal_of(state, CommandKind.COLLECT)} == {QUARRY, MOUND}


def test_R19_eyrie_seizes_with_a_battle_card_matching_the_clearing() -> None:
    state = full_position(
        turn=A2,
        step="daylight.decree",
        pieces={QUARRY: {A2: {"warrior": 1}}},
        decree={"battle": [CARD_OF[full_match().suits[QUARRY]]]},
        leader="despot",  # viziers in Move and Build: the Battle card is the only one pending
    )
    state.used["decree:move:bird"] = 1  # the Move vizier is done
    drop(state, QUARRY, Item.COINS, B2)
    play(state, first_legal(state, CommandKind.SEIZE))
    assert state.crate == [Item.COINS] and state.scores[Team.A] == 1
    assert state.used.get(f"decree:battle:{suit(state, QUARRY)}") == 1


def test_R19_alliance_seizes_with_a_battle_operation() -> None:
    state = full_position(
        turn=B2, step="evening.operations", pieces={MOUND: {B2: {"warrior": 1}}}, officers={B2: 1}
    )
    drop(state, MOUND, Item.HAMMER, A1)
    events = play(state, first_legal(state, CommandKind.SEIZE))
    assert state.crate == [Item.HAMMER] and state.scores[Team.B] == 1
    used = of_kind(events, EventKind.ONCE_USED)
    assert [(e.seat, e.text) for e in used] == [("B2", "operations")]


def test_R19_a_vagabond_never_seizes() -> None:
    state = full_position(
        turn=A3, vagabonds={A3: {"location": QUARRY, "items": ["sword", "torch", "boots"]}}
    )
    drop(state, QUARRY, Item.COINS, B2)
    kinds = {c.kind for c in legal_of(state, CommandKind.SEIZE)} | {
        c.kind for c in legal_of(state, CommandKind.COLLECT)
    }
    assert kinds == set()
    assert legal_of(state, CommandKind.PICK_UP)  # its torch instead (R20)


# ----- R20: the Vagabond's torch -----------------------------------------------------------------


def test_R20_own_team_contraband_scores_when_the_vagabond_moves_home() -> None:
    state = full_position(
        turn=A3, vagabonds={A3: {"location": MOUND, "items": ["torch", "boots", "boots"]}}
    )
    drop(state, MOUND, Item.HAMMER, A1)
    items = item_count(state)
    play(state, first_legal(state, CommandKind.PICK_UP))
    assert item_keys(state, A3) == ["boots", "boots", "hammer/contraband", "torch/exhausted"]
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A3].hand.append(card)
    start = state.clone()
    events = play(state, first_legal(state, CommandKind.VAGABOND_MOVE, to=QUARRY, cards=(card,)))
    assert "contraband_validated" in kinds_of(events)
    scored = of_kind(events, EventKind.SCORED)[0]
    assert (scored.seat, scored.amount) == ("A1", 2)  # it counts as crafted by A1
    assert item_keys(state, A3) == ["boots", "boots/exhausted", "hammer", "torch/exhausted"]
    assert state.seats[A1].crafted_items == []  # the item stays in the Satchel
    assert item_count(state) == items
    assert_folds(start, events, state)


def test_R20_own_team_contraband_scores_on_a_birdsong_slip_home_too() -> None:
    state = full_position(
        turn=A3,
        step="birdsong.slip",
        vagabonds={A3: {"location": MOUND, "items": ["torch/exhausted", "boots"]}},
    )
    satchel(state, A3, Item.TEA, A2)
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A3].hand.append(card)
    events = play(state, first_legal(state, CommandKind.SLIP, to=QUARRY, cards=(card,)))
    scored = of_kind(events, EventKind.SCORED)
    assert [(s.seat, s.amount) for s in scored] == [("A2", 1)]  # the Eyrie's Disdain for Trade
    assert item_keys(state, A3) == ["boots", "tea", "torch/exhausted"]


def test_R20_no_points_before_the_bridge_or_when_leaving_home() -> None:
    drift = next(c for c in board().adjacent[MOUND] if c.startswith("winter."))
    state = full_position(turn=A3, vagabonds={A3: {"location": MOUND, "items": ["boots", "boots"]}})
    satchel(state, A3, Item.TEA, A1)
    events = play(state, first_legal(state, CommandKind.VAGABOND_MOVE, to=drift))
    assert not of_kind(events, EventKind.SCORED)
    assert "tea/contraband" in item_keys(state, A3)


def test_R20_a_rival_item_is_simply_kept_when_the_vagabond_goes_home() -> None:
    state = full_position(turn=A3, vagabonds={A3: {"location": MOUND, "items": ["torch", "boots"]}})
    drop(state, MOUND, Item.COINS, B2)  # lying on B's home map (a rival carrier dropped it)
    play(state, first_legal(state, CommandKind.PICK_UP))
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A3].hand.append(card)
    events = play(state, first_legal(state, CommandKind.VAGABOND_MOVE, to=QUARRY))
    assert "contraband_validated" not in kinds_of(events)
    assert "coins" in item_keys(state, A3)
    assert state.scores == {Team.A: 0, Team.B: 0}


# ----- R21: Revolutionary Agent ------------------------------------------------------------------


def test_R21_alliance_item_always_drops_even_with_its_warriors_there() -> None:
    fox = autumn_of("fox")[0]
    state = full_position(
        turn=B2,
        step="daylight.actions",
        pieces={fox: {B2: {"sympathy": 1, "warrior": 2}}},
        hands={B2: ["anvil"]},
    )
    play(state, first_legal(state, CommandKind.CRAFT, cards=("anvil",)))
    assert state.dropped == {fox: [DroppedItem(Item.HAMMER, Team.B, B2)]}
    assert state.carried == {}


def test_R21_a_teammate_collects_and_carries_it_home_as_the_alliances_craft() -> None:
    state = full_position(turn=B1, actions=1, pieces={QUARRY: {B1: {"warrior": 1}}})
    drop(state, QUARRY, Item.HAMMER, B2)  # crafted by the Alliance in Autumn (R21)
    card = fee(state, MOUND)
    state.deck.remove(card)
    state.seats[B1].hand.append(card)
    play(state, first_legal(state, CommandKind.COLLECT))
    events = play(state, first_legal(state, CommandKind.MARCH, to=MOUND))
    validated = of_kind(events, EventKind.CONTRABAND_VALIDATED)[0]
    assert (validated.seat, validated.target) == ("B1", "B2")
    assert state.scores[Team.B] == 2
    assert state.seats[B2].vp == 2 and state.seats[B1].vp == 0  # credited to the crafter
    assert state.seats[B2].crafted_items == [Item.HAMMER]
    assert_items_conserved(state)
