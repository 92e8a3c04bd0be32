"""The section "Decided by the engine" of docs/rules.md, one line at a time.

Lines tested elsewhere, by the ruling they settle:

* a carrier keeps its item while a warrior of its faction remains (R18):
  ``test_contraband_dropped.py::test_R18_contraband_stays_while_a_carrier_warrior_is_left``;
* War Veteran replaces the Vagabond's own die; the defender's die stands (R29):
  ``test_vagabond_rulings.py::test_R29_war_veteran_rerolls_its_die_in_a_looting_battle``;
* Looting only against a defender with crafted items (R28):
  ``test_vagabond_rulings.py::test_R28_looting_needs_a_defender_with_crafted_items``;
* Wings of the Alliance are optional, and paying the fee owes the Eyrie nothing (R23):
  ``test_wings_of_the_alliance.py::test_R23_wings_into_a_roost_clearing_waives_the_fee_but_paying_stays_possible``.

Here: Disdain for Trade on contraband (R17) with and without the Builder, and the order in
which hits remove buildings and tokens.
"""

from __future__ import annotations

from frontier.engine import Command, CommandKind, Event, EventKind, Team
from frontier.engine.model import Item
from tests.alliance_helpers import A2 as ALLIANCE
from tests.alliance_helpers import B1 as RIVAL
from tests.alliance_helpers import alliance_position, kinds_of_seat
from tests.contraband_helpers import A2, A3, MOUND, QUARRY, fee, full_position, of_kind, satchel
from tests.engine_helpers import A, B, dice_seed, first_legal, legal_of, play, position

CREEK, MEADOW = "autumn.creek", "autumn.meadow"


def _slip_home_with_eyrie_contraband(leader: str) -> list[Event]:
    state = full_position(
        turn=A3,
        step="birdsong.slip",
        leader=leader,
        vagabonds={A3: {"location": MOUND, "items": ["boots"]}},
    )
    satchel(state, A3, Item.HAMMER, A2)  # printed 2 VP
    card = fee(state, QUARRY)
    state.deck.remove(card)
    state.seats[A3].hand.append(card)
    return play(state, first_legal(state, CommandKind.SLIP, to=QUARRY, cards=(card,)))


def test_R17_disdain_for_trade_applies_when_eyrie_contraband_scores_unless_builder() -> None:
    scored = of_kind(_slip_home_with_eyrie_contraband("commander"), EventKind.SCORED)
    assert [(e.seat, e.amount) for e in scored] == [("A2", 1)]
    scored = of_kind(_slip_home_with_eyrie_contraband("builder"), EventKind.SCORED)
    assert [(e.seat, e.amount) for e in scored] == [("A2", 2)]  # the printed VP


def _removed(events: list[Event]) -> list[str]:
    return [e.piece for e in of_kind(events, EventKind.PIECES_REMOVED)]


def test_hits_that_clear_every_building_and_token_remove_buildings_first_asking_nobody() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 3}, B: {"keep": 1, "sawmill": 1}}})
    state.rng = dice_seed(1, 0)  # 1 rolled + 1 defenseless: both pieces
    events = play(state, Command(CommandKind.BATTLE, A, clearing=CREEK, target=B.value))
    assert _removed(events) == ["sawmill", "keep"]  # the building, then the token
    assert not state.decisions and state.battle is None
    assert state.scores[Team.A] == 2


def test_R25_the_base_loss_comes_before_the_outrage_when_hits_clear_the_alliance() -> None:
    state = alliance_position(
        turn=RIVAL,
        step="daylight.actions",
        actions=1,
        pieces={MEADOW: {ALLIANCE: {"base_fox": 1, "sympathy": 1}, RIVAL: {"warrior": 3}}},
        supporters={ALLIANCE: ["anvil", "bake_sale"]},
        officers={ALLIANCE: 2},
        rng_state=dice_seed(1, 1),  # Guerrilla War: the lower die, 1, + 1 defenseless
    )
    events = play(state, first_legal(state, CommandKind.BATTLE, clearing=MEADOW, target="A2"))
    assert kinds_of_seat(state, MEADOW, ALLIANCE) == {}
    kinds = [e.kind for e in events]
    removed = [i for i, k in enumerate(kinds) if k is EventKind.PIECES_REMOVED]
    assert _removed(events) == ["base_fox", "sympathy"]
    base_loss = kinds.index(EventKind.SUPPORTERS_DISCARDED)  # the fox supporter goes
    outrage = next(
        i
        for i, e in enumerate(events)
        if i > removed[1] and e.kind in (EventKind.DECISION_REQUESTED, EventKind.HAND_REVEALED)
    )
    assert removed[0] < base_loss < removed[1] < outrage


def test_hits_that_remove_only_some_pieces_let_the_seat_taking_them_choose() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 3}, B: {"sawmill": 1, "wood": 2}}})
    state.rng = dice_seed(1, 0)  # 2 hits for 3 pieces of two kinds
    play(state, Command(CommandKind.BATTLE, A, clearing=CREEK, target=B.value))
    d = state.decisions[0]
    assert (d.seat, d.kind, d.count) == (B, "allocate_hits", 2)
    assert {c.piece for c in legal_of(state, CommandKind.REMOVE_PIECE, B)} == {"sawmill", "wood"}
    play(state, Command(CommandKind.REMOVE_PIECE, B, clearing=CREEK, piece="wood"))
    play(state, Command(CommandKind.REMOVE_PIECE, B, clearing=CREEK, piece="wood"))
    assert state.pieces[CREEK][B] == {"sawmill": 1, "wood": 0}
