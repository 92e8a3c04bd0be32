"""The Vagabond (base Root §12 with R12, R27): setup, Birdsong, moving and battling.

The other Daylight actions, the special actions and Evening are in ``test_vagabond_actions.py``.

The variant's battle rulings for the Vagabond (R15, R27 hostility, R28, R29, R34 Infamy, R20)
are in ``test_vagabond_rulings.py``.
"""

from __future__ import annotations

import json

import pytest

from frontier.engine import Command, CommandKind, EventKind, IllegalCommand, State
from frontier.engine.board import board
from frontier.engine.ctx import Ctx
from frontier.engine.decide import advance
from frontier.engine.model import Team
from frontier.engine.pieces import ruler
from frontier.engine.vagabond_state import quests, vstate
from frontier.engine.view import view
from tests.engine_helpers import (
    CARD_OF,
    assert_refused,
    card_not_matching,
    dice_seed,
    first_legal,
    kinds_of,
    legal_of,
    play,
    setup_seat,
)
from tests.vagabond_helpers import (
    A1,
    A3,
    B1,
    B3,
    CREEK,
    HILL,
    KEEP_A,
    KEEP_B,
    MOUND,
    PAWN_A,
    QUARRY,
    fresh,
    item_keys,
    vagabond_match,
    vb_position,
)


def enter(state: State) -> None:
    """Run the automatic steps from the current step (as after a command)."""
    advance(Ctx(state))


# ----- setup (R12, R27) ---------------------------------------------------------------------


def test_R12_vagabond_pawn_starts_in_a_forest_of_its_home_map() -> None:
    state = fresh()
    setup_seat(state, KEEP_A)
    setup_seat(state, KEEP_B)
    assert (state.turn_seat, state.step) == (A3, "setup.pawn")
    forests = {c.clearing for c in legal_of(state, CommandKind.PLACE_PAWN)}
    assert forests == {f for f in board().forests if f.startswith("autumn.forest.")}
    play(state, first_legal(state, CommandKind.PLACE_PAWN, clearing=PAWN_A))
    assert vstate(state, A3).location == PAWN_A
    assert state.turn_seat is B3
    forests = {c.clearing for c in legal_of(state, CommandKind.PLACE_PAWN)}
    assert forests == {f for f in board().forests if f.startswith("winter.forest.")}
    assert_refused(state, Command(CommandKind.PLACE_PAWN, B3, clearing=PAWN_A), IllegalCommand)


@pytest.mark.parametrize(
    ("character", "items"),
    [
        ("thief", ["boots", "sword", "tea", "torch"]),
        ("tinker", ["bag", "boots", "hammer", "torch"]),
        ("ranger", ["boots", "crossbow", "sword", "torch"]),
    ],
)
def test_vagabond_starting_items_face_up(character: str, items: list[str]) -> None:
    state = fresh(lineup=f"A=marquise,,{character};B=marquise")
    assert item_keys(state, A3) == items  # face up, undamaged


def test_R27_relationships_indifferent_with_rivals_allied_with_allies() -> None:
    state = vagabond_match()
    assert vstate(state, A3).relations == {"A1": "allied", "B1": "indifferent", "B3": "indifferent"}
    assert vstate(state, B3).relations == {"A1": "indifferent", "A3": "indifferent", "B1": "allied"}


def test_vagabond_quest_deck_shared_seeded_and_hidden() -> None:
    a, b = fresh(7), fresh(7)
    assert (a.quests, a.quest_deck) == (b.quests, b.quest_deck)  # the match seed decides
    assert len(a.quests) == 3 and len(a.quest_deck) == 12
    assert sorted(a.quests + a.quest_deck) == sorted(quests())
    orders = {tuple(fresh(seed).quest_deck + fresh(seed).quests) for seed in range(6)}
    assert len(orders) > 1
    assert fresh(lineup="A=marquise;B=marquise").quests == []  # no Vagabond, no quests
    for viewer in (A3, B3, A1, None):
        text = json.dumps(view(a, viewer))
        assert all(q in text for q in a.quests)
        assert not [q for q in a.quest_deck if q in text], "the quest deck order leaks"
        assert json.loads(text)["quest_deck_count"] == 12


# ----- Birdsong -----------------------------------------------------------------------------


def test_vagabond_refresh_three_plus_two_per_face_up_tea() -> None:
    exhausted = ["boots/exhausted"] * 2 + ["sword/exhausted"] * 2 + ["torch/exhausted"] * 2
    state = vb_position(
        step="birdsong.start",
        vagabonds={A3: {"location": CREEK, "items": ["tea", *exhausted]}},
    )
    enter(state)
    assert state.step == "birdsong.refresh"  # 6 exhausted, 3 + 2 x 1 tea = 5 refreshed
    keys = {c.piece for c in legal_of(state, CommandKind.REFRESH)}
    assert keys == {"boots/exhausted", "sword/exhausted", "torch/exhausted"}
    for _ in range(5):
        cmd = legal_of(state, CommandKind.REFRESH)[0]
        play(state, cmd)
    assert state.step != "birdsong.refresh"
    assert sum(it.exhausted for it in vstate(state, A3).items) == 1


def test_vagabond_refresh_is_automatic_when_everything_fits() -> None:
    state = vb_position(
        step="birdsong.start",
        vagabonds={A3: {"location": CREEK, "items": ["tea/exhausted", "sword/exhausted", "boots"]}},
    )
    enter(state)
    assert state.step == "birdsong.slip"
    assert item_keys(state, A3) == ["boots", "sword", "tea"]


def test_vagabond_slip_is_free_to_an_adjacent_clearing_or_forest() -> None:
    state = vb_position(
        step="birdsong.slip", vagabonds={A3: {"location": CREEK, "items": ["boots"]}}
    )
    dests = {c.to for c in legal_of(state, CommandKind.SLIP)}
    assert dests == set(board().adjacent[CREEK]) | set(board().clearing_forests[CREEK])
    play(state, first_legal(state, CommandKind.SLIP, to="autumn.forest.n"))
    assert vstate(state, A3).location == "autumn.forest.n"
    assert (state.turn_seat, state.step) == (A3, "daylight.actions")  # one slip per Birdsong
    assert item_keys(state, A3) == ["boots"]  # free
    # from a forest: its clearings and the adjacent forests
    state = vb_position(step="birdsong.slip", vagabonds={A3: {"location": "autumn.forest.n"}})
    dests = {c.to for c in legal_of(state, CommandKind.SLIP)}
    forest = "autumn.forest.n"
    assert dests == set(board().forests[forest]) | set(board().forest_adjacent[forest])


def test_vagabond_slip_across_bridge_pays_fee() -> None:
    suit = fresh().suits[MOUND]
    fee, other = CARD_OF[suit], card_not_matching(suit)
    state = vb_position(
        step="birdsong.slip",
        hands={A3: [fee, other]},
        vagabonds={A3: {"location": QUARRY, "items": ["boots"]}},
    )
    slips = [c for c in legal_of(state, CommandKind.SLIP) if c.to == MOUND]
    assert [c.cards for c in slips] == [(fee,)]  # R7: only a card matching the destination
    events = play(state, slips[0])
    assert EventKind.BRIDGE_CROSSED.value in kinds_of(events)
    assert state.discard[-1] == fee and state.seats[A3].hand == [other]
    assert vstate(state, A3).location == MOUND
    assert item_keys(state, A3) == ["boots"]  # a slip needs no boots
    broke = vb_position(
        step="birdsong.slip", hands={A3: [other]}, vagabonds={A3: {"location": QUARRY}}
    )
    assert MOUND not in {c.to for c in legal_of(broke, CommandKind.SLIP)}


# ----- Daylight: move -----------------------------------------------------------------------


def test_vagabond_move_exhausts_boots_and_ignores_rule() -> None:
    state = vb_position(
        pieces={HILL: {B1: {"warrior": 3}}, CREEK: {B1: {"warrior": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["boots", "boots"]}},
    )
    assert ruler(state, HILL) is Team.B and ruler(state, CREEK) is Team.B
    play(state, first_legal(state, CommandKind.VAGABOND_MOVE, to=HILL))
    assert vstate(state, A3).location == HILL
    assert item_keys(state, A3) == ["boots", "boots/exhausted"]


def test_R27_vagabond_move_into_hostile_warriors_costs_two_boots() -> None:
    hostile = {"A1": "allied", "B1": "hostile", "B3": "indifferent"}
    state = vb_position(
        pieces={HILL: {B1: {"warrior": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["boots"], "relations": hostile}},
    )
    assert HILL not in {c.to for c in legal_of(state, CommandKind.VAGABOND_MOVE)}
    state = vb_position(
        pieces={HILL: {B1: {"warrior": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["boots", "boots"], "relations": hostile}},
    )
    play(state, first_legal(state, CommandKind.VAGABOND_MOVE, to=HILL))
    assert item_keys(state, A3) == ["boots/exhausted", "boots/exhausted"]


def test_vagabond_moves_only_into_clearings() -> None:
    state = vb_position(vagabonds={A3: {"location": "autumn.forest.n", "items": ["boots"]}})
    dests = {c.to for c in legal_of(state, CommandKind.VAGABOND_MOVE)}
    assert dests == set(board().forests["autumn.forest.n"])
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": ["boots"]}})
    assert {c.to for c in legal_of(state, CommandKind.VAGABOND_MOVE)} == set(
        board().adjacent[CREEK]
    )
    state = vb_position(vagabonds={A3: {"location": CREEK, "items": ["boots/exhausted"]}})
    assert legal_of(state, CommandKind.VAGABOND_MOVE) == []


def test_R8_vagabond_bridge_fee_goes_to_the_rival_guarding_the_destination() -> None:
    suit = fresh().suits[MOUND]
    fee = CARD_OF[suit]
    state = vb_position(
        pieces={MOUND: {B1: {"warrior": 5}}},
        hands={A3: [fee]},
        vagabonds={A3: {"location": QUARRY, "items": ["boots"]}},
    )
    play(state, Command(CommandKind.VAGABOND_MOVE, A3, to=MOUND, cards=(fee,)))
    assert fee in state.seats[B1].hand and fee not in state.discard
    assert vstate(state, A3).location == MOUND


# ----- Daylight: battle ---------------------------------------------------------------------


def test_vagabond_battle_exhausts_a_sword_and_caps_rolled_hits_at_undamaged_swords() -> None:
    state = vb_position(
        pieces={CREEK: {B1: {"warrior": 4}}},
        vagabonds={A3: {"location": CREEK, "items": ["sword", "sword/exhausted", "sword/damaged"]}},
    )
    state.rng = dice_seed(3, 0)
    events = play(state, Command(CommandKind.BATTLE, A3, clearing=CREEK, target="B1"))
    hits = next(e for e in events if e.kind is EventKind.HITS_SET)
    assert hits.values == (2, 0, 0, 0)  # 3 rolled, capped at 2 undamaged swords
    assert state.pieces[CREEK][B1]["warrior"] == 2
    assert item_keys(state, A3) == ["sword/damaged", "sword/exhausted", "sword/exhausted"]


def test_vagabond_defenseless_without_sword_and_hits_damage_items() -> None:
    state = vb_position(
        turn=B1,
        pieces={CREEK: {B1: {"warrior": 3}}},
        vagabonds={A3: {"location": CREEK, "items": ["boots", "torch", "sword/damaged"]}},
    )
    state.actions = 3
    assert Command(CommandKind.BATTLE, B1, clearing=CREEK, target="A3") in legal_of(
        state, CommandKind.BATTLE
    )  # the pawn is a piece one can attack
    state.rng = dice_seed(2, 1)
    events = play(state, Command(CommandKind.BATTLE, B1, clearing=CREEK, target="A3"))
    hits = next(e for e in events if e.kind is EventKind.HITS_SET)
    assert hits.values == (2, 0, 1, 0)  # no undamaged sword: deals nothing, defenseless
    assert item_keys(state, A3) == ["boots/damaged", "sword/damaged", "torch/damaged"]
    assert vstate(state, A3).location == CREEK  # the pawn is never removed
    assert state.pieces[CREEK][B1]["warrior"] == 3


def test_vagabond_chooses_the_item_a_hit_damages() -> None:
    state = vb_position(
        turn=B1,
        pieces={CREEK: {B1: {"warrior": 3}}},
        vagabonds={A3: {"location": CREEK, "items": ["sword", "boots", "torch"]}},
    )
    state.actions = 3
    state.rng = dice_seed(1, 0)
    play(state, Command(CommandKind.BATTLE, B1, clearing=CREEK, target="A3"))
    options = {c.piece for c in legal_of(state, CommandKind.DAMAGE_ITEM, A3)}
    assert options == {"sword", "boots", "torch"}
    play(state, Command(CommandKind.DAMAGE_ITEM, A3, piece="torch"))
    assert item_keys(state, A3) == ["boots", "sword", "torch/damaged"]
    assert state.battle is None


def test_R27_vagabond_never_battles_allies() -> None:
    state = vb_position(
        pieces={CREEK: {A1: {"warrior": 2}, B1: {"warrior": 1}}},
        vagabonds={A3: {"location": CREEK, "items": ["sword"]}, B3: {"location": CREEK}},
    )
    targets = {c.target for c in legal_of(state, CommandKind.BATTLE)}
    assert targets == {"B1", "B3"}  # the rival Vagabond's pawn can be attacked too
    assert_refused(
        state, Command(CommandKind.BATTLE, A3, clearing=CREEK, target="A1"), IllegalCommand
    )
