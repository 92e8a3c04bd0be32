"""The Vagabond's other Daylight actions (explore, aid with R27/R34, quest, strike, repair,
craft), the characters' special actions, Evening, and the pawn.

Setup, Birdsong, moving and battling are in ``test_vagabond.py``.
"""

from __future__ import annotations

from frontier.engine import Command, CommandKind, State, evolve
from frontier.engine.hashing import state_hash
from frontier.engine.model import Item, Seat, Team
from frontier.engine.pieces import open_slots, ruler
from frontier.engine.rng import below
from frontier.engine.vagabond_state import vstate
from frontier.engine.view import view
from tests.engine_helpers import (
    first_legal,
    legal_of,
    play,
)
from tests.vagabond_helpers import (
    A1,
    A3,
    B1,
    B3,
    BEACH,
    CREEK,
    item_keys,
    vb_position,
)

RANGER_LINEUP = "A=marquise,,ranger;B=marquise,,thief"


def set_quests(state: State, face_up: list[str], done: tuple[str, ...] = ()) -> None:
    """Make ``face_up`` the face-up quests; ``done`` leave the game; the deck keeps its order."""
    rest = [q for q in [*state.quest_deck, *state.quests] if q not in face_up and q not in done]
    state.quests = list(face_up)
    state.quest_deck = rest


# ----- Daylight: explore, aid, quest, strike, repair, craft ---------------------------------


def test_vagabond_explore_takes_the_hidden_ruin_item_scores_1_and_removes_the_ruin() -> None:
    state = vb_position(vagabonds={A3: {"location": BEACH, "items": ["torch"]}})
    hidden = state.ruins[BEACH][0]
    slots = open_slots(state, BEACH)
    play(state, first_legal(state, CommandKind.EXPLORE))
    assert item_keys(state, A3) == sorted([hidden.value, "torch/exhausted"])
    assert BEACH not in state.ruins and open_slots(state, BEACH) == slots + 1
    assert vstate(state, A3).explored == 1
    assert state.scores[Team.A] == 1
    assert legal_of(state, CommandKind.EXPLORE) == []


def test_R27_aid_to_an_ally_gives_a_card_takes_a_crafted_item_and_scores_nothing() -> None:
    state = vb_position(
        pieces={CREEK: {A1: {"warrior": 1}}},
        hands={A3: ["bake_sale", "anvil"]},
        vagabonds={A3: {"location": CREEK, "items": ["boots"]}},
    )
    state.seats[A1].crafted_items = [Item.BAG, Item.COINS]
    aids = legal_of(state, CommandKind.AID)
    assert {(c.target, c.cards) for c in aids} == {("A1", ("bake_sale",))}  # matching card
    play(state, Command(CommandKind.AID, A3, target="A1", cards=("bake_sale",), piece="boots"))
    assert "bake_sale" in state.seats[A1].hand
    assert {c.piece for c in legal_of(state, CommandKind.TAKE_ITEM, A3)} == {"bag", "coins"}
    play(state, Command(CommandKind.TAKE_ITEM, A3, piece="coins", target="A1"))
    assert state.seats[A1].crafted_items == [Item.BAG]
    assert item_keys(state, A3) == ["boots/exhausted", "coins"]
    assert state.scores[Team.A] == 0
    assert vstate(state, A3).relations["A1"] == "allied"


def test_R34_aid_to_a_rival_moves_the_relationship_track_and_scores() -> None:
    rabbits = ["bake_sale", "a_visit_to_friends", "smugglers_trail", "root_tea_rabbit"]
    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 1}}},
        hands={A3: rabbits},
        vagabonds={A3: {"location": CREEK, "items": ["boots"] * 4}},
    )

    def aid(card_id: str) -> None:
        play(state, Command(CommandKind.AID, A3, target="B1", cards=(card_id,), piece="boots"))

    aid(rabbits[0])
    assert (vstate(state, A3).relations["B1"], state.scores[Team.A]) == ("amiable", 1)
    aid(rabbits[1])
    assert (vstate(state, A3).relations["B1"], state.scores[Team.A]) == ("amiable", 1)
    aid(rabbits[2])  # 2 aids this turn at Amiable reach Friendly
    assert (vstate(state, A3).relations["B1"], state.scores[Team.A]) == ("friendly", 3)
    state.used = {}  # a new turn: the 3 aids needed for Allied must come in one turn
    aid(rabbits[3])
    assert (vstate(state, A3).relations["B1"], state.scores[Team.A]) == ("friendly", 3)
    # Allied: every aid scores 2; Hostile: aid allowed, never improves
    for level, gain in (("allied", 2), ("hostile", 0)):
        state = vb_position(
            pieces={CREEK: {B1: {"warrior": 1}}},
            hands={A3: rabbits},
            vagabonds={
                A3: {"location": CREEK, "items": ["boots"], "relations": {"B1": level}},
            },
        )
        aid(rabbits[0])
        assert (vstate(state, A3).relations["B1"], state.scores[Team.A]) == (level, gain)


def test_vagabond_quest_scores_completed_quests_of_its_suit_and_reveals_the_next() -> None:
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": ["torch", "sword", "tea"]}})
    set_quests(state, ["guard_duty_rabbit", "escort_mouse", "errand_fox"], done=("errand_rabbit",))
    vstate(state, A3).quests_done = ["errand_rabbit"]
    options = legal_of(state, CommandKind.QUEST)
    assert {(c.piece, c.target) for c in options} == {
        ("guard_duty_rabbit", "vp"),
        ("guard_duty_rabbit", "draw"),
    }  # only quests of the clearing's suit whose two items are ready
    top = state.quest_deck[-1]
    play(state, Command(CommandKind.QUEST, A3, piece="guard_duty_rabbit", target="vp"))
    assert state.scores[Team.A] == 2  # the second rabbit quest completed
    assert item_keys(state, A3) == ["sword/exhausted", "tea", "torch/exhausted"]
    assert state.quests == ["escort_mouse", "errand_fox", top]
    assert vstate(state, A3).quests_done == ["errand_rabbit", "guard_duty_rabbit"]


def test_vagabond_quest_reward_may_be_two_cards() -> None:
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": ["torch", "sword", "boots"]}})
    set_quests(state, ["guard_duty_rabbit", "escort_mouse", "errand_fox"])
    play(state, Command(CommandKind.QUEST, A3, piece="guard_duty_rabbit", target="draw"))
    assert len(state.seats[A3].hand) == 2 and state.scores[Team.A] == 0


def test_vagabond_strike_removes_a_warrior_and_makes_the_rival_hostile_without_infamy() -> None:
    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 2, "sawmill": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["crossbow"]}},
    )
    strikes = {(c.target, c.piece) for c in legal_of(state, CommandKind.STRIKE)}
    assert strikes == {("B1", "warrior")}  # buildings only once no warrior is left
    play(state, first_legal(state, CommandKind.STRIKE))
    assert state.pieces[CREEK][B1]["warrior"] == 1
    assert vstate(state, A3).relations["B1"] == "hostile"  # R27
    assert state.scores[Team.A] == 0  # a strike is not a battle: no Infamy
    assert item_keys(state, A3) == ["crossbow/exhausted"]


def test_vagabond_strike_removes_a_building_of_a_rival_without_warriors_there() -> None:
    state = vb_position(
        pieces={CREEK: {B1: {"sawmill": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["crossbow"]}},
    )
    play(state, Command(CommandKind.STRIKE, A3, target="B1", piece="sawmill"))
    assert state.pieces[CREEK][B1]["sawmill"] == 0
    assert state.scores[Team.A] == 1
    assert vstate(state, A3).relations["B1"] == "indifferent"


def test_vagabond_repair_with_a_hammer() -> None:
    state = vb_position(
        vagabonds={
            A3: {"location": "autumn.forest.n", "items": ["hammer", "sword/exhausted/damaged"]}
        }
    )
    assert {c.piece for c in legal_of(state, CommandKind.REPAIR)} == {"sword/exhausted/damaged"}
    play(state, first_legal(state, CommandKind.REPAIR))
    assert item_keys(state, A3) == ["hammer/exhausted", "sword/exhausted"]  # keeps its side


def test_vagabond_crafts_with_hammers_from_the_stock_of_the_map_it_stands_on() -> None:
    # On its home map; on the rival map the item is contraband (R16, engine/test_contraband)
    state = vb_position(
        hands={A3: ["bake_sale", "anvil"]},
        vagabonds={A3: {"location": CREEK, "items": ["hammer", "hammer", "bag"]}},
    )
    crafts = legal_of(state, CommandKind.CRAFT)
    assert [(c.cards, c.clearings) for c in crafts] == [(("bake_sale",), (CREEK, CREEK))]
    winter, autumn = dict(state.stock["winter"]), dict(state.stock["autumn"])
    play(state, crafts[0])
    assert state.stock["autumn"][Item.COINS] == autumn[Item.COINS] - 1
    assert state.stock["winter"] == winter
    assert item_keys(state, A3) == ["bag", "coins", "hammer/exhausted", "hammer/exhausted"]
    assert state.seats[A3].crafted_items == []  # the item went to its track, face up
    assert state.scores[Team.A] == 3  # the printed VP, as in base Root


# ----- special actions ----------------------------------------------------------------------


def test_thief_steal_takes_a_random_card_and_folds() -> None:
    hand = ["anvil", "bake_sale", "investments"]
    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 1}}},
        hands={B1: hand},
        vagabonds={A3: {"location": CREEK, "items": ["torch", "boots"]}},
    )
    assert {c.target for c in legal_of(state, CommandKind.STEAL)} == {"B1"}
    before = state.clone()
    index, _ = below(state.rng, 3)
    events = play(state, first_legal(state, CommandKind.STEAL))
    assert state.seats[A3].hand == [hand[index]]
    assert sorted(state.seats[B1].hand) == sorted(set(hand) - {hand[index]})
    for e in events:  # evolve redraws the same random card from the state's generator
        evolve(before, e)
    assert state_hash(before) == state_hash(state)


def test_tinker_day_labor_takes_a_card_of_the_clearing_suit_or_a_bird_from_the_discard() -> None:
    state = vb_position(turn=B3, vagabonds={B3: {"location": CREEK, "items": ["torch", "boots"]}})
    for cid in ("bake_sale", "anvil", "crossbow_bird"):
        state.deck.remove(cid)
        state.discard.append(cid)
    options = {c.cards for c in legal_of(state, CommandKind.DAY_LABOR)}
    assert options == {("bake_sale",), ("crossbow_bird",)}
    play(state, Command(CommandKind.DAY_LABOR, B3, cards=("bake_sale",)))
    assert state.seats[B3].hand == ["bake_sale"] and "bake_sale" not in state.discard


def test_ranger_hideout_repairs_three_items_and_ends_daylight() -> None:
    damaged = ["sword/damaged", "boots/damaged", "crossbow/damaged", "hammer/exhausted/damaged"]
    state = vb_position(
        lineup=RANGER_LINEUP, vagabonds={A3: {"location": CREEK, "items": ["torch", *damaged]}}
    )
    play(state, first_legal(state, CommandKind.HIDEOUT))
    for piece in ("sword/damaged", "boots/damaged", "hammer/exhausted/damaged"):
        play(state, Command(CommandKind.REPAIR, A3, piece=piece))
    assert item_keys(state, A3) == [
        "boots",
        "crossbow/damaged",
        "hammer/exhausted",
        "sword",
        "torch/exhausted",
    ]
    # Daylight ended at once, though the boots and sword could still act: B3's turn now
    assert state.turn_seat is B3
    # with 3 damaged items or fewer there is no choice to make
    state = vb_position(
        lineup=RANGER_LINEUP,
        vagabonds={A3: {"location": CREEK, "items": ["torch", "boots", "sword/damaged"]}},
    )
    play(state, first_legal(state, CommandKind.HIDEOUT))
    assert item_keys(state, A3)[:2] == ["boots", "sword"] and state.turn_seat is B3


# ----- Evening ------------------------------------------------------------------------------


def test_vagabond_rests_in_a_forest_and_draws_one_plus_coins() -> None:
    items = ["sword/exhausted/damaged", "coins", "coins"]
    state = vb_position(vagabonds={A3: {"location": "autumn.forest.n", "items": items}})
    play(state, Command(CommandKind.END_PHASE, A3))
    assert item_keys(state, A3) == ["coins", "coins", "sword"]  # repaired, face up
    assert len(state.seats[A3].hand) == 3  # 1 + 2 coins on the track
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": ["sword/damaged"]}})
    play(state, Command(CommandKind.END_PHASE, A3))
    assert item_keys(state, A3) == ["sword/damaged"]  # no rest in a clearing
    assert len(state.seats[A3].hand) == 1


def test_vagabond_item_limit_counts_satchel_and_damaged_not_tracks() -> None:
    items = ["boots"] * 4 + ["sword/damaged"] * 4 + ["tea"] * 3
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": items}})
    play(state, Command(CommandKind.END_PHASE, A3))
    assert state.step == "evening.items"
    assert {c.piece for c in legal_of(state, CommandKind.REMOVE_ITEM)} == {"boots", "sword/damaged"}
    play(state, Command(CommandKind.REMOVE_ITEM, A3, piece="boots"))
    play(state, Command(CommandKind.REMOVE_ITEM, A3, piece="sword/damaged"))
    assert state.turn_seat is B3  # 6 items left off the tracks: the limit is met
    assert item_keys(state, A3).count("tea") == 3
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": [*items, "bag"]}})
    play(state, Command(CommandKind.END_PHASE, A3))
    assert state.turn_seat is B3  # a bag on its track: the limit is 8


# ----- the pawn -----------------------------------------------------------------------------


def test_vagabond_pawn_is_not_a_warrior_never_rules_and_shows_in_views() -> None:
    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["sword", "tea/damaged"]}},
    )
    assert ruler(state, CREEK) is Team.B
    assert A3 not in state.pieces[CREEK]
    spectator = view(state, None)
    clearing = next(c for c in spectator["clearings"] if c["id"] == CREEK)
    assert clearing["pawns"] == ["A3"]
    seat = next(s for s in spectator["seats"] if s["seat"] == "A3")
    assert seat["faction_state"]["location"] == CREEK
    assert [i["item"] for i in seat["faction_state"]["items"]] == ["sword", "tea"]
    assert seat["faction_state"]["items"][1]["damaged"] is True
    assert Seat.A3.value in {c["seat"] for c in spectator["seats"]}
