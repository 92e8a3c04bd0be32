"""Contraband crafted on the rival map and carried home (R16, R17), for every faction of the
default lineup (R2).  Dropping, collecting, seizing and the torch (R18-R21) are in
``test_contraband_dropped.py``; the decisions the rulings leave open are documented in
:mod:`frontier.engine.contraband`.
"""

from __future__ import annotations

from frontier.engine import Command, CommandKind, EventKind, State, Team
from frontier.engine.board import AUTUMN, WINTER, board
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
    carry,
    fee,
    full_match,
    full_position,
    item_count,
    of_kind,
    suit,
    winter_of,
)
from tests.engine_helpers import (
    CARD_OF,
    assert_items_conserved,
    first_legal,
    kinds_of,
    legal_of,
    play,
)
from tests.vagabond_helpers import item_keys

# ----- R16: crafting with pieces on the rival map ------------------------------------------------


def test_R16_marquise_workshop_on_the_rival_map_crafts_contraband_its_warriors_carry() -> None:
    fox = winter_of("fox")[0]
    state = full_position(
        step="daylight.craft",
        pieces={fox: {A1: {"workshop": 1, "warrior": 2}}},
        hands={A1: ["anvil"]},
    )
    start = state.clone()
    crafts = legal_of(state, CommandKind.CRAFT)
    assert crafts == [Command(CommandKind.CRAFT, A1, to=fox, cards=("anvil",), clearings=(fox,))]
    events = play(state, crafts[0])
    crafted = of_kind(events, EventKind.CARD_CRAFTED)[0]
    assert (crafted.to, crafted.target, crafted.piece) == (fox, "A1", "hammer")
    assert state.carried == {fox: {A1: [HAMMER_A1]}}
    assert state.stock[WINTER][Item.HAMMER] == 0  # the rival map's stock (R10, R16)
    assert state.stock[AUTUMN][Item.HAMMER] == 1
    assert state.scores[Team.A] == 0 and state.seats[A1].crafted_items == []  # no points yet
    assert not of_kind(events, EventKind.SCORED)
    for viewer in (*state.order, None):  # carried contraband is public
        assert view(state, viewer)["carried"] == {
            fox: {"A1": [{"item": "hammer", "team": "A", "crafter": "A1"}]}
        }
    assert_items_conserved(state)
    assert_folds(start, events, state)


def test_R16_crafter_picks_a_used_clearing_with_its_warriors_else_the_item_drops() -> None:
    fox1, fox2 = winter_of("fox")[:2]
    workshops = {fox1: {A1: {"workshop": 1}}, fox2: {A1: {"workshop": 1}}}
    hand = {A1: ["foxfolk_steel"]}  # a sword: fox + fox

    def crafts_with(warriors: dict[str, int]) -> tuple[State, list[Command]]:
        pieces = {c: {A1: {**workshops[c][A1], "warrior": warriors.get(c, 0)}} for c in workshops}
        state = full_position(step="daylight.craft", pieces=pieces, hands=hand)
        return state, legal_of(state, CommandKind.CRAFT)

    _, only_one = crafts_with({fox2: 1})
    assert [c.to for c in only_one] == [fox2]  # must be carried: the one clearing with warriors
    _, both = crafts_with({fox1: 1, fox2: 3})
    assert sorted(c.to for c in both) == sorted([fox1, fox2])  # the crafter's choice
    state, none = crafts_with({})
    assert sorted(c.to for c in none) == sorted([fox1, fox2])  # dropped where it chooses
    events = play(state, next(c for c in none if c.to == fox2))
    assert of_kind(events, EventKind.CARD_CRAFTED)[0].target == ""
    assert state.dropped == {fox2: [DroppedItem(Item.SWORD, Team.A, A1)]}
    assert state.carried == {}
    assert_items_conserved(state)


def test_R16_eyrie_roost_on_the_rival_map_crafts_contraband() -> None:
    fox = winter_of("fox")[0]
    state = full_position(
        turn=A2,
        step="daylight.craft",
        pieces={fox: {A2: {"roost": 1, "warrior": 1}}},
        hands={A2: ["anvil"]},
    )
    play(state, first_legal(state, CommandKind.CRAFT, cards=("anvil",)))
    assert state.carried == {fox: {A2: [DroppedItem(Item.HAMMER, Team.A, A2)]}}
    assert state.scores[Team.A] == 0  # Disdain for Trade would have scored 1 at home
    assert_items_conserved(state)


def test_R16_one_map_per_craft_for_the_marquise_too() -> None:
    fox = winter_of("fox")[0]
    state = full_position(
        step="daylight.craft",
        pieces={fox: {A1: {"workshop": 1}}, "autumn.hill": {A1: {"workshop": 1}}},
        hands={A1: ["foxfolk_steel"]},  # fox + fox: one workshop on each map is not enough
    )
    assert legal_of(state, CommandKind.CRAFT) == []


def test_R16_vagabond_hammers_on_the_rival_map_put_the_item_in_the_satchel_as_contraband() -> None:
    state = full_position(
        turn=A3,
        hands={A3: ["a_visit_to_friends"]},  # boots: rabbit
        vagabonds={A3: {"location": MOUND, "items": ["hammer", "torch", "boots", "boots"]}},
    )
    assert suit(state, MOUND) == "rabbit"
    items = item_count(state)
    crafts = legal_of(state, CommandKind.CRAFT)
    assert [(c.to, c.clearings) for c in crafts] == [(MOUND, (MOUND,))]
    start = state.clone()
    events = play(state, crafts[0])
    assert state.dropped == {} and state.carried == {}  # nothing lies at its feet
    gained = of_kind(events, EventKind.ITEM_GAINED)
    assert [(e.piece, e.clearing, e.text) for e in gained] == [("boots", MOUND, "contraband")]
    assert not of_kind(events, EventKind.SCORED)  # no points yet (R16, R17)
    assert item_keys(state, A3) == [
        "boots",
        "boots",
        "boots/contraband",
        "hammer/exhausted",
        "torch",
    ]
    assert state.stock[WINTER][Item.BOOTS] == 1  # the rival map's stock
    assert state.seats[A3].crafted_items == []
    assert item_count(state) == items
    assert_folds(start, events, state)
    # entering its home map over the bridge scores it for the team, as crafted by A3 (R17)
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A3].hand.append(card)
    events = play(state, first_legal(state, CommandKind.VAGABOND_MOVE, to=QUARRY, cards=(card,)))
    assert "contraband_validated" in kinds_of(events)
    scored = of_kind(events, EventKind.SCORED)
    assert [(e.seat, e.amount, e.target) for e in scored] == [("A3", 1, "A")]  # boots: 1 VP
    assert "boots" in item_keys(state, A3) and "boots/contraband" not in item_keys(state, A3)
    assert item_count(state) == items


# ----- R17: carrying home ------------------------------------------------------------------------


def test_R17_march_across_the_bridge_home_validates_the_contraband() -> None:
    state = full_position(actions=1, pieces={MOUND: {A1: {"warrior": 2}}})
    state.seats[A1].hand = []
    carry(state, MOUND, A1, Item.HAMMER, A1)
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A1].hand.append(card)
    marches = {(c.count, c.clearings) for c in legal_of(state, CommandKind.MARCH) if c.to == QUARRY}
    # fewer than all warriors: with or without the contraband; all of them: it must go along
    assert marches == {(1, ()), (1, (MOUND,)), (2, (MOUND,))}
    start = state.clone()
    cmd = Command(
        CommandKind.MARCH, A1, clearing=MOUND, to=QUARRY, count=2, cards=(card,), clearings=(MOUND,)
    )
    events = play(state, cmd)
    assert kinds_of(events)[-4:] == [
        "pieces_moved",
        "contraband_moved",
        "contraband_validated",
        "scored",
    ]
    scored = of_kind(events, EventKind.SCORED)[0]
    assert (scored.seat, scored.amount, scored.target) == ("A1", 2, "A")  # the hammer's VP
    assert state.carried == {} and state.seats[A1].crafted_items == [Item.HAMMER]
    assert state.scores[Team.A] == 2
    assert_items_conserved(state)
    assert_folds(start, events, state)


def test_R17_contraband_stays_with_the_warriors_left_and_goes_with_the_last_ones() -> None:
    state = full_position(actions=2, pieces={MOUND: {A1: {"warrior": 2}}})
    carry(state, MOUND, A1, Item.HAMMER, A1)
    drift = next(c for c in board().adjacent[MOUND] if c.startswith("winter."))
    play(state, Command(CommandKind.MARCH, A1, clearing=MOUND, to=drift, count=1))
    assert state.carried == {MOUND: {A1: [HAMMER_A1]}}
    options = {
        (c.count, c.clearings)
        for c in legal_of(state, CommandKind.MARCH)
        if c.clearing == MOUND and c.to == drift
    }
    assert options == {(1, (MOUND,))}  # the last warrior must take it along
    events = play(
        state, Command(CommandKind.MARCH, A1, clearing=MOUND, to=drift, count=1, clearings=(MOUND,))
    )
    assert kinds_of(events)[-1] == "contraband_moved"  # not across a bridge: no points
    assert state.carried == {drift: {A1: [HAMMER_A1]}}
    assert state.scores[Team.A] == 0


def test_R17_a_rival_carrier_never_validates_the_item() -> None:
    state = full_position(turn=B1, actions=1, pieces={QUARRY: {B1: {"warrior": 1}}})
    carry(state, QUARRY, B1, Item.HAMMER, A1)  # A's item, collected by B (R18)
    card = fee(state, MOUND)
    state.deck.remove(card)
    state.seats[B1].hand.append(card)
    cmd = first_legal(state, CommandKind.MARCH, to=MOUND, clearings=(QUARRY,))
    events = play(state, cmd)
    assert "contraband_validated" not in kinds_of(events)
    assert state.carried == {MOUND: {B1: [HAMMER_A1]}}
    assert state.scores == {Team.A: 0, Team.B: 0}


def test_R17_eyrie_decree_move_carries_home_with_disdain_for_trade() -> None:
    state = full_position(
        turn=A2,
        step="daylight.decree",
        pieces={MOUND: {A2: {"warrior": 1}}},
        decree={"move": [CARD_OF[full_match().suits[MOUND]]]},
        leader="charismatic",  # no vizier in the Move column
    )
    state.used["decree:recruit:bird"] = 2  # the Recruit viziers are done
    carry(state, MOUND, A2, Item.HAMMER, A2)
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A2].hand.append(card)
    moves = [c for c in legal_of(state, CommandKind.DECREE_MOVE) if c.to == QUARRY]
    assert [(m.clearings, m.cards) for m in moves] == [((MOUND,), (card,))]
    events = play(state, moves[0])
    assert "contraband_validated" in kinds_of(events)
    assert of_kind(events, EventKind.SCORED)[0].amount == 1  # an Eyrie item scores 1 (§10)
    assert state.seats[A2].crafted_items == [Item.HAMMER]


def test_R17_alliance_move_operation_carries_its_teams_contraband_home() -> None:
    state = full_position(
        turn=B2,
        step="evening.operations",
        pieces={QUARRY: {B2: {"warrior": 1}}},
        officers={B2: 1},
    )
    carry(state, QUARRY, B2, Item.COINS, B2)
    card = fee(state, MOUND)
    state.deck.remove(card)
    state.seats[B2].hand.append(card)
    events = play(state, first_legal(state, CommandKind.MOVE, to=MOUND))
    assert "contraband_validated" in kinds_of(events)
    assert state.scores[Team.B] == 3 and state.seats[B2].crafted_items == [Item.COINS]


def test_R17_cobbler_move_carries_contraband_home() -> None:
    state = full_position(
        actions=0, pieces={MOUND: {A1: {"warrior": 1}}}, in_play={A1: ["cobbler.1"]}
    )
    carry(state, MOUND, A1, Item.BAG, A1)
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A1].hand.append(card)
    play(state, Command(CommandKind.END_PHASE, A1))  # Evening starts: Cobbler is offered
    assert state.decisions and state.decisions[0].kind == "cobbler"
    cobbler = first_legal(state, CommandKind.COBBLER, to=QUARRY)
    assert cobbler.clearings == (MOUND,)
    events = play(state, cobbler)
    assert "contraband_validated" in kinds_of(events)
    assert state.scores[Team.A] == 1


def test_R17_vanguard_leader_takes_the_allys_contraband_along() -> None:
    state = full_position(
        turn=A3,
        pieces={MOUND: {A1: {"warrior": 2}}},
        vagabonds={
            A3: {"location": MOUND, "items": ["boots", "boots"], "legendary": "vanguard_leader"}
        },
    )
    carry(state, MOUND, A1, Item.HAMMER, A1)
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A3].hand.append(card)
    moves = [c for c in legal_of(state, CommandKind.VAGABOND_MOVE) if c.to == QUARRY]
    assert {(m.target, m.clearings) for m in moves} == {
        ("", ()),
        ("A1", ()),
        ("A1", (MOUND,)),  # one of two warriors: with or without the contraband
    }
    events = play(state, next(m for m in moves if m.clearings))
    assert "contraband_validated" in kinds_of(events)
    assert state.scores[Team.A] == 2 and state.seats[A1].crafted_items == [Item.HAMMER]
    assert state.carried == {}
