"""Contraband (R16-R21): crafting on the rival map, carrying, dropping, collecting, seizing and
validating the item at home, for every faction of the default lineup (R2).

Each test is named after the ruling it checks (VARIANT_RULES.md); the decisions the rulings
leave open are documented in :mod:`frontier.engine.contraband`.
"""

from __future__ import annotations

from frontier.engine import Command, CommandKind, Event, EventKind, State, Team, evolve
from frontier.engine.board import AUTUMN, WINTER, board
from frontier.engine.hashing import state_hash
from frontier.engine.model import Item
from frontier.engine.state import DroppedItem
from frontier.engine.view import view
from tests.contraband_helpers import (
    A1,
    A2,
    A3,
    B1,
    B2,
    MOUND,
    QUARRY,
    carry,
    drop,
    full_match,
    full_position,
    satchel,
    suit,
)
from tests.engine_helpers import (
    CARD_OF,
    assert_items_conserved,
    dice_seed,
    first_legal,
    item_locations,
    kinds_of,
    legal_of,
    play,
)
from tests.vagabond_helpers import item_keys

HAMMER_A1 = DroppedItem(Item.HAMMER, Team.A, A1)


def winter_of(suit_name: str) -> list[str]:
    """Winter clearings of ``suit_name`` in the seed-0 matches these tests build (R5)."""
    probe = full_match()
    return [c for c in board().on_map(WINTER) if probe.suits[c] == suit_name]


def autumn_of(suit_name: str) -> list[str]:
    probe = full_match()
    return [c for c in board().on_map(AUTUMN) if probe.suits[c] == suit_name]


def fee(state: State, dest: str) -> str:
    """A plain card paying the bridge fee into ``dest`` (R7)."""
    return CARD_OF[suit(state, dest)]


def of_kind(events: list[Event], kind: EventKind) -> list[Event]:
    return [e for e in events if e.kind is kind]


def item_count(state: State) -> int:
    """Every item on the table (Vagabond positions set items by hand, so tests compare)."""
    return sum(item_locations(state).values())


def assert_folds(before: State, events: list[Event], after: State) -> None:
    for event in events:
        evolve(before, event)
    assert state_hash(before) == state_hash(after)


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


def test_R16_vagabond_hammers_on_the_rival_map_drop_the_item_where_the_pawn_stands() -> None:
    state = full_position(
        turn=A3,
        hands={A3: ["a_visit_to_friends"]},  # boots: rabbit
        vagabonds={A3: {"location": MOUND, "items": ["hammer", "torch"]}},
    )
    assert suit(state, MOUND) == "rabbit"
    items = item_count(state)
    crafts = legal_of(state, CommandKind.CRAFT)
    assert [(c.to, c.clearings) for c in crafts] == [(MOUND, (MOUND,))]
    events = play(state, crafts[0])
    assert state.dropped == {MOUND: [DroppedItem(Item.BOOTS, Team.A, A3)]}  # no warrior carries
    assert not of_kind(events, EventKind.ITEM_GAINED) and not of_kind(events, EventKind.SCORED)
    assert item_keys(state, A3) == ["hammer/exhausted", "torch"]
    assert state.stock[WINTER][Item.BOOTS] == 1
    assert item_count(state) == items
    # its torch picks it up (R20); see test_R20_* for the way home
    play(state, first_legal(state, CommandKind.PICK_UP))
    assert item_keys(state, A3) == ["boots/contraband", "hammer/exhausted", "torch/exhausted"]
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


def test_R18_alliance_collects_with_an_evening_move_operation() -> None:
    state = full_position(
        turn=B2, step="evening.operations", pieces={QUARRY: {B2: {"warrior": 1}}}, officers={B2: 1}
    )
    drop(state, QUARRY, Item.COINS, B2)
    events = play(state, first_legal(state, CommandKind.COLLECT))
    assert state.carried == {QUARRY: {B2: [DroppedItem(Item.COINS, Team.B, B2)]}}
    used = of_kind(events, EventKind.ONCE_USED)
    assert [(e.seat, e.text) for e in used] == [("B2", "operations")]  # its one operation


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
