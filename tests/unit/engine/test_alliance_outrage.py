"""The Woodland Alliance's reach into the other factions' turns: Outrage Without Borders
(R25) and the loss of a base (base Root §11)."""

from __future__ import annotations

import pytest

from frontier.engine import (
    Command,
    CommandKind,
    EventKind,
    Seat,
    legal_commands,
)
from frontier.engine.board import AUTUMN, WINTER
from frontier.engine.model import Team
from frontier.engine.state import State
from frontier.engine.sympathy import alliance_state
from frontier.engine.view import event_for, view
from tests.alliance_helpers import (
    A1,
    A2,
    B1,
    B2,
    BIRD,
    OTHER_CARD,
    SUIT_CARD,
    alliance_match,
    alliance_position,
    events_of,
    kinds_of_seat,
    supporters_of,
    sym,
)
from tests.engine_helpers import (
    assert_conserved,
    dice_seed,
    first_legal,
    play,
    stack_deck,
)

# ----- Outrage Without Borders (R25) --------------------------------------------------------

# (map, sympathetic clearing, adjacent clearing the rival moves from)
OUTRAGE_PLACES = [
    (AUTUMN, "autumn.hill", "autumn.creek"),
    (WINTER, "winter.mound", "winter.trench"),
]


def _outrage_position(dest: str, origin: str, mover: Seat, hand: list[str]) -> State:
    return alliance_position(
        turn=mover,
        step="daylight.actions",
        actions=1,
        pieces={dest: {A2: sym()}, origin: {mover: {"warrior": 2}}},
        hands={mover: hand},
    )


@pytest.mark.parametrize(("map_name", "dest", "origin"), OUTRAGE_PLACES)
def test_R25_outrage_only_rival_team_triggers(map_name: str, dest: str, origin: str) -> None:
    suit = alliance_match().suits[dest]
    state = _outrage_position(dest, origin, B1, [SUIT_CARD[suit], OTHER_CARD[suit]])
    events = play(state, first_legal(state, CommandKind.MARCH, clearing=origin, to=dest, count=1))
    assert supporters_of(state, A2) == [SUIT_CARD[suit]]
    assert state.seats[B1].hand == [OTHER_CARD[suit]]
    added = events_of(events, EventKind.SUPPORTERS_ADDED)
    assert [(e.seat, e.target, e.text) for e in added] == [("A2", "B1", "outrage")]
    assert event_for(state, added[0], A1).cards == ("hidden",)  # face down
    assert event_for(state, added[0], B1).cards == (SUIT_CARD[suit],)  # the giver knows it
    assert_conserved(state)


@pytest.mark.parametrize(("map_name", "dest", "origin"), OUTRAGE_PLACES)
def test_R25_own_team_never_triggers_outrage(map_name: str, dest: str, origin: str) -> None:
    suit = alliance_match().suits[dest]
    state = _outrage_position(dest, origin, A1, [SUIT_CARD[suit]])
    events = play(state, first_legal(state, CommandKind.MARCH, clearing=origin, to=dest, count=1))
    assert supporters_of(state, A2) == []
    assert state.seats[A1].hand == [SUIT_CARD[suit]]
    assert not events_of(events, EventKind.HAND_REVEALED)
    assert not state.decisions


def test_R25_outrage_without_matching_card_reveals_hand_and_alliance_draws() -> None:
    dest, origin = "autumn.hill", "autumn.creek"  # fox
    hand = ["bake_sale", "mouse_in_a_sack"]
    state = _outrage_position(dest, origin, B1, hand)
    stack_deck(state, "cobbler.1")
    events = play(state, first_legal(state, CommandKind.MARCH, clearing=origin, to=dest, count=1))
    assert supporters_of(state, A2) == ["cobbler.1"]
    assert sorted(state.seats[B1].hand) == sorted(hand)
    reveal = events_of(events, EventKind.HAND_REVEALED)
    assert [(e.seat, e.target, e.cards) for e in reveal] == [("B1", "A2", tuple(sorted(hand)))]
    assert state.known_hands[A2][B1] == tuple(sorted(hand))
    # Only the Alliance (and the revealer) see the reveal; the Alliance's teammate does not.
    assert event_for(state, reveal[0], A2).cards == tuple(sorted(hand))
    for viewer in (A1, B2, None):
        assert event_for(state, reveal[0], viewer).cards == ("hidden", "hidden")
    assert view(state, A2)["known_hands"] == {"B1": sorted(hand)}
    assert view(state, A1)["known_hands"] == {}
    drawn = [e for e in events if e.kind is EventKind.SUPPORTERS_ADDED]
    assert [(e.target, e.cards) for e in drawn] == [("", ("cobbler.1",))]
    assert event_for(state, drawn[0], B1).cards == ("hidden",)
    assert_conserved(state)


def test_R25_outrage_card_choice_is_a_decision_of_the_mover() -> None:
    dest, origin = "autumn.hill", "autumn.creek"  # fox
    state = _outrage_position(dest, origin, B1, ["anvil", BIRD, "bake_sale"])
    play(state, first_legal(state, CommandKind.MARCH, clearing=origin, to=dest, count=1))
    assert [(d.seat, d.kind) for d in state.decisions] == [(B1, "outrage")]
    options = legal_commands(state, B1)
    assert {c.cards for c in options} == {("anvil",), (BIRD,)}  # birds count as matching
    assert all(c.kind is CommandKind.OUTRAGE for c in options)
    play(state, first_legal(state, CommandKind.OUTRAGE, cards=(BIRD,)))
    assert supporters_of(state, A2) == [BIRD]
    assert sorted(state.seats[B1].hand) == ["anvil", "bake_sale"]
    assert not state.decisions


def test_R25_removing_sympathy_in_battle_asks_the_remover_even_off_turn() -> None:
    glade = "autumn.glade"  # fox
    state = alliance_position(
        step="evening.operations",
        pieces={glade: {A2: {"warrior": 1, "sympathy": 1}, B1: {"warrior": 3}}},
        hands={B1: ["anvil", "foxfolk_steel"]},
        officers={A2: 1},
        rng_state=dice_seed(3, 2),
    )
    before = state.scores[Team.B]
    play(state, first_legal(state, CommandKind.BATTLE, clearing=glade, target="B1"))
    play(state, Command(CommandKind.DECLINE, B1))  # R4: the ambush decision opens for any card
    assert kinds_of_seat(state, glade, A2) == {}  # the warrior, then the sympathy token
    assert state.scores[Team.B] - before == 1
    assert state.turn_seat is A2
    assert [(d.seat, d.kind) for d in state.decisions] == [(B1, "outrage")]
    play(state, first_legal(state, CommandKind.OUTRAGE, cards=("foxfolk_steel",)))
    assert supporters_of(state, A2) == ["foxfolk_steel"]
    assert state.battle is None
    assert_conserved(state)


# ----- a base removed -----------------------------------------------------------------------


def _base_attack(extra_base: bool) -> State:
    supporters = [
        "anvil",  # fox: discarded with the fox base
        BIRD,  # birds are discarded too
        "a_visit_to_friends",
        "bake_sale",
        "smugglers_trail",
        "mouse_in_a_sack",
        "root_tea_mouse",
        "investments",
    ]
    pieces = {"autumn.meadow": {A2: {"base_fox": 1}, B1: {"warrior": 3}}}
    if extra_base:
        pieces["autumn.creek"] = {A2: {"base_rabbit": 1}}
    return alliance_position(
        turn=B1,
        step="daylight.actions",
        actions=1,
        pieces=pieces,
        supporters={A2: supporters},
        officers={A2: 3},
        rng_state=dice_seed(3, 0),  # defenseless: 0 rolled + 1 hit, the base
    )


def test_alliance_base_removed_consequences() -> None:
    state = _base_attack(extra_base=False)
    play(state, first_legal(state, CommandKind.BATTLE, clearing="autumn.meadow", target="A2"))
    assert kinds_of_seat(state, "autumn.meadow", A2) == {}
    assert state.seats[A2].supply["base_fox"] == 1  # back on the faction board
    assert "anvil" in state.discard and BIRD in state.discard
    assert alliance_state(state, A2).officers == 1  # 3 officers: half rounded up (2) lost
    assert state.seats[A2].supply["warrior"] == 10 - 1
    # No base left and 6 supporters: the Alliance chooses one to discard down to 5.
    assert [(d.seat, d.kind) for d in state.decisions] == [(A2, "supporters_limit")]
    options = legal_commands(state, A2)
    assert {c.cards[0] for c in options} == set(supporters_of(state, A2))
    play(state, first_legal(state, CommandKind.DISCARD, cards=("investments",)))
    assert sorted(supporters_of(state, A2)) == sorted(
        ["a_visit_to_friends", "bake_sale", "smugglers_trail", "mouse_in_a_sack", "root_tea_mouse"]
    )
    assert not state.decisions and state.battle is None
    assert_conserved(state)


def test_alliance_base_removed_with_another_base_left_keeps_every_other_supporter() -> None:
    state = _base_attack(extra_base=True)
    play(state, first_legal(state, CommandKind.BATTLE, clearing="autumn.meadow", target="A2"))
    assert len(supporters_of(state, A2)) == 6
    assert not state.decisions
