"""The Woodland Alliance's turn after Birdsong (base Root §11.5-11.6, with R16 and R21):
crafting, mobilizing and training in Daylight, Military Operations and the draw in Evening,
Guerrilla War, and the faction's own state.

Setup, the supporters stack, Revolt and Spread Sympathy are in ``test_alliance.py``.
"""

from __future__ import annotations

from frontier.engine import (
    CommandKind,
    EventKind,
    evolve,
    legal_commands,
)
from frontier.engine.board import AUTUMN, WINTER
from frontier.engine.hashing import state_hash
from frontier.engine.model import Item, Team
from frontier.engine.state import DroppedItem
from frontier.engine.sympathy import AllianceState, alliance_state
from frontier.engine.view import view
from tests.alliance_helpers import (
    A1,
    A2,
    B1,
    B2,
    BIRD,
    alliance_match,
    alliance_position,
    clearings_of_suit,
    kinds_of_seat,
    supporters_of,
    sym,
    turn_passed_to,
)
from tests.engine_helpers import (
    dice_seed,
    first_legal,
    legal_of,
    play,
)

# ----- Daylight: craft, mobilize, train -----------------------------------------------------


def test_alliance_crafts_with_sympathy_on_its_home_map_and_scores() -> None:
    state = alliance_position(
        step="daylight.actions", pieces={"autumn.hill": {A2: sym()}}, hands={A2: ["anvil"]}
    )
    cmd = first_legal(state, CommandKind.CRAFT, cards=("anvil",))
    assert cmd.clearings == ("autumn.hill",) and cmd.to == ""
    play(state, cmd)
    assert state.seats[A2].crafted_items == [Item.HAMMER]
    assert state.stock[AUTUMN][Item.HAMMER] == 0
    assert state.scores[Team.A] == 2
    assert state.dropped == {}


def test_R21_revolutionary_agent_drops_item_on_rival_map() -> None:
    probe = alliance_match()
    fox = clearings_of_suit(probe, WINTER, "fox")[0]
    state = alliance_position(
        step="daylight.actions", pieces={fox: {A2: sym()}}, hands={A2: ["anvil"]}
    )
    start = state.clone()
    cmd = first_legal(state, CommandKind.CRAFT, cards=("anvil",))
    assert cmd.clearings == (fox,) and cmd.to == fox
    events = play(state, cmd)
    assert state.dropped == {fox: [DroppedItem(Item.HAMMER, Team.A, A2)]}
    assert state.stock[WINTER][Item.HAMMER] == 0  # the rival map's stock
    assert state.stock[AUTUMN][Item.HAMMER] == 1
    assert state.seats[A2].crafted_items == []
    assert state.scores[Team.A] == 0  # no VP now
    assert "anvil" in state.discard
    for viewer in (A1, B1, B2, None):  # dropped items are public
        assert view(state, viewer)["dropped"] == {
            fox: [{"item": "hammer", "team": "A", "crafter": "A2"}]
        }
    for event in events:
        evolve(start, event)
    assert state_hash(start) == state_hash(state)


def test_R16_alliance_craft_uses_pieces_on_one_map_only() -> None:
    probe = alliance_match()
    winter_fox = clearings_of_suit(probe, WINTER, "fox")[0]
    state = alliance_position(
        step="daylight.actions",
        pieces={"autumn.hill": {A2: sym()}, winter_fox: {A2: sym()}},
        hands={A2: ["foxfolk_steel"]},
    )
    assert not legal_of(state, CommandKind.CRAFT, A2)  # fox + fox across two maps
    state = alliance_position(
        step="daylight.actions",
        pieces={
            "autumn.hill": {A2: sym()},
            "autumn.mountain": {A2: sym()},
            winter_fox: {A2: sym()},
        },
        hands={A2: ["foxfolk_steel"]},
    )
    assert [c.clearings for c in legal_of(state, CommandKind.CRAFT, A2)] == [
        ("autumn.hill", "autumn.mountain")
    ]


def test_alliance_mobilize_puts_a_hand_card_on_thesupporters_of() -> None:
    state = alliance_position(step="daylight.actions", hands={A2: ["anvil", "bake_sale"]})
    assert {c.cards for c in legal_of(state, CommandKind.MOBILIZE, A2)} == {
        ("anvil",),
        ("bake_sale",),
    }
    play(state, first_legal(state, CommandKind.MOBILIZE, cards=("bake_sale",)))
    assert supporters_of(state, A2) == ["bake_sale"]
    assert state.seats[A2].hand == ["anvil"]


def test_alliance_train_spends_a_card_matching_a_base_on_the_map() -> None:
    hand = ["anvil", "bake_sale", BIRD]
    state = alliance_position(step="daylight.actions", hands={A2: hand})
    assert not legal_of(state, CommandKind.TRAIN, A2)  # no base on the map
    state = alliance_position(
        step="daylight.actions", pieces={"autumn.meadow": {A2: {"base_fox": 1}}}, hands={A2: hand}
    )
    assert {c.cards for c in legal_of(state, CommandKind.TRAIN, A2)} == {("anvil",), (BIRD,)}
    play(state, first_legal(state, CommandKind.TRAIN, cards=("anvil",)))
    assert alliance_state(state, A2).officers == 1
    assert state.seats[A2].supply["warrior"] == 9
    assert "anvil" in state.discard


# ----- Evening: Military Operations and the draw --------------------------------------------


def test_alliance_evening_operations_one_per_officer_then_draw_one_plus_bases() -> None:
    state = alliance_position(
        step="evening.operations",
        pieces={"autumn.meadow": {A2: {"base_fox": 1}}, "autumn.glade": {A2: {"warrior": 2}}},
        officers={A2: 2},
    )
    kinds = {c.kind for c in legal_commands(state, A2)}
    assert {CommandKind.MOVE, CommandKind.RECRUIT, CommandKind.ORGANIZE} <= kinds
    play(state, first_legal(state, CommandKind.RECRUIT, clearing="autumn.meadow"))
    assert kinds_of_seat(state, "autumn.meadow", A2) == {"base_fox": 1, "warrior": 1}
    events = play(state, first_legal(state, CommandKind.ORGANIZE, clearing="autumn.glade"))
    assert kinds_of_seat(state, "autumn.glade", A2) == {"warrior": 1, "sympathy": 1}
    assert state.scores[Team.A] == 0  # the first token scores 0
    # Two officers, two operations: the Evening goes on by itself and draws 1 + 1 base.
    assert turn_passed_to(events, B2)
    drawn = [e for e in events if e.kind is EventKind.CARDS_DRAWN and e.seat == "A2"]
    assert [len(e.cards) for e in drawn] == [2]


def test_alliance_organize_only_in_unsympathetic_clearings() -> None:
    state = alliance_position(
        step="evening.operations",
        pieces={
            "autumn.glade": {A2: {"warrior": 1, "sympathy": 1}},
            "autumn.hill": {A2: {"warrior": 1}},
        },
        officers={A2: 1},
    )
    assert [c.clearing for c in legal_of(state, CommandKind.ORGANIZE, A2)] == ["autumn.hill"]


def test_alliance_battle_is_a_military_operation() -> None:
    state = alliance_position(
        step="evening.operations",
        pieces={"autumn.glade": {A2: {"warrior": 2}, B1: {"warrior": 1}}},
        officers={A2: 1},
        rng_state=dice_seed(3, 0),
    )
    events = play(
        state, first_legal(state, CommandKind.BATTLE, clearing="autumn.glade", target="B1")
    )
    assert kinds_of_seat(state, "autumn.glade", B1) == {}
    assert turn_passed_to(events, B2)  # the only operation is spent


# ----- Guerrilla War ------------------------------------------------------------------------


def test_alliance_guerrilla_war_defender_deals_high_die() -> None:
    state = alliance_position(
        turn=B1,
        step="daylight.actions",
        actions=1,
        pieces={"autumn.glade": {A2: {"warrior": 3}, B1: {"warrior": 3}}},
        rng_state=dice_seed(3, 1),
    )
    events = play(state, first_legal(state, CommandKind.BATTLE, clearing="autumn.glade"))
    hits = next(e for e in events if e.kind is EventKind.HITS_SET)
    assert hits.values[:2] == (1, 3)  # attacker deals the low die, the Alliance the high
    assert kinds_of_seat(state, "autumn.glade", A2) == {"warrior": 2}
    assert kinds_of_seat(state, "autumn.glade", B1) == {}


def test_alliance_attacking_deals_the_high_die_as_usual() -> None:
    state = alliance_position(
        step="evening.operations",
        pieces={"autumn.glade": {A2: {"warrior": 3}, B1: {"warrior": 3}}},
        officers={A2: 1},
        rng_state=dice_seed(3, 1),
    )
    events = play(state, first_legal(state, CommandKind.BATTLE, clearing="autumn.glade"))
    hits = next(e for e in events if e.kind is EventKind.HITS_SET)
    assert hits.values[:2] == (3, 1)


# ----- faction state ------------------------------------------------------------------------


def test_alliance_state_clone_is_deep_and_hash_covers_it() -> None:
    state = alliance_match()
    copy = state.clone()
    alliance_state(copy, A2).supporters.append("x")
    alliance_state(copy, A2).officers += 1
    assert alliance_state(state, A2).officers == 0
    assert "x" not in alliance_state(state, A2).supporters
    assert state_hash(copy) != state_hash(state)
    assert isinstance(state.seats[A2].extra, AllianceState)


def test_alliance_sympathy_is_per_alliance() -> None:
    # A clearing with only the rival Alliance's token is unsympathetic to this one.
    state = alliance_position(pieces={"autumn.hill": {B2: sym()}}, supporters={A2: ["anvil"]})
    assert "autumn.hill" in {c.clearing for c in legal_of(state, CommandKind.SPREAD_SYMPATHY, A2)}
