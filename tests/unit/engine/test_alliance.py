"""Woodland Alliance (base Root §11) with its variant rulings (R12, R16, R21, R25).

Each test is named after the ruling or the rule step it checks, and fails if that rule were
broken (a teammate triggering Outrage, a bridge not counting as a path, a craft on the rival
map scoring at once...).
"""

from __future__ import annotations

import dataclasses

import pytest

from frontier.engine import (
    Command,
    CommandKind,
    EventKind,
    IllegalCommand,
    Seat,
)
from frontier.engine.board import board
from frontier.engine.model import Faction, Team
from frontier.engine.registry import REGISTRY
from frontier.engine.state import State
from frontier.engine.sympathy import alliance_state
from frontier.engine.view import event_for, view
from tests.alliance_helpers import (
    A1,
    A2,
    B1,
    B2,
    BIRD,
    SUIT_CARD,
    alliance_match,
    alliance_position,
    events_of,
    fresh,
    kinds_of_seat,
    supporters_of,
    sym,
    turn_passed_to,
)
from tests.engine_helpers import (
    assert_conserved,
    assert_refused,
    first_legal,
    legal_of,
    play,
    setup_seat,
    string_values,
)

# ----- setup (R12) and the supporters stack -------------------------------------------------


def test_R12_alliance_starts_with_no_pieces_and_three_face_downsupporters_of() -> None:
    state = fresh(0)
    events = setup_seat(state, "autumn.hill") + setup_seat(state, "winter.hedge")
    assert state.round == 1
    for seat in (A2, B2):
        assert not any(state.pieces[c].get(seat) for c in board().order)
        assert len(supporters_of(state, seat)) == 3
        assert len(state.seats[seat].hand) == 3  # the supporters are not the hand
        assert state.seats[seat].supply == {
            "warrior": 10,
            "sympathy": 10,
            "base_fox": 1,
            "base_rabbit": 1,
            "base_mouse": 1,
        }
        assert alliance_state(state, seat).officers == 0
    added = [e for e in events if e.kind is EventKind.SUPPORTERS_ADDED]
    assert [(e.seat, e.text, len(e.cards)) for e in added] == [
        ("A2", "setup", 3),
        ("B2", "setup", 3),
    ]
    assert_conserved(state)


def test_alliance_supporters_are_hidden_from_other_seats() -> None:
    state = fresh(0)
    events = setup_seat(state, "autumn.hill") + setup_seat(state, "winter.hedge")
    secret = set(supporters_of(state, A2))
    for viewer in (A1, B1, B2, None):
        assert not string_values(view(state, viewer)) & secret, viewer
    own = view(state, A2)
    assert own["private"]["A2"] == {"supporters": sorted(secret)}
    public = next(s for s in view(state, B1)["seats"] if s["seat"] == "A2")["faction_state"]
    assert public == {
        "supporters": 3,
        "officers": 0,
        "bases_left": ["fox", "mouse", "rabbit"],
        "sympathy_placed": 0,
    }
    added = next(e for e in events if e.kind is EventKind.SUPPORTERS_ADDED and e.seat == "A2")
    assert event_for(state, added, A2).cards == added.cards
    for viewer in (A1, B1, B2, None):
        assert event_for(state, added, viewer).cards == ("hidden",) * 3


def test_alliance_supporters_do_not_count_for_the_hand_limit() -> None:
    state = alliance_position(
        step="evening.operations",
        hands={A2: ["anvil", "sword", "bake_sale", "investments"]},
        supporters={A2: ["root_tea_fox", "root_tea_rabbit", "root_tea_mouse", BIRD, "cobbler.1"]},
    )
    events = play(state, Command(CommandKind.END_PHASE, A2))  # no officers: to the draw
    assert len(state.seats[A2].hand) == 5
    assert len(supporters_of(state, A2)) == 5
    assert turn_passed_to(events, B2)  # no discard was asked


def test_alliance_supporters_limit_five_without_a_base_extra_card_discarded() -> None:
    hill = "autumn.hill"  # fox
    five = ["root_tea_fox", "root_tea_rabbit", "root_tea_mouse", BIRD, "cobbler.1"]
    state = alliance_position(
        turn=B1,
        step="daylight.actions",
        actions=1,
        pieces={hill: {A2: sym()}, "autumn.creek": {B1: {"warrior": 2}}},
        hands={B1: ["anvil"], A2: ["bake_sale"]},
        supporters={A2: five},
    )
    play(state, first_legal(state, CommandKind.MARCH, clearing="autumn.creek", to=hill, count=1))
    assert sorted(supporters_of(state, A2)) == sorted(five)  # the stack is full
    assert "anvil" in state.discard and "anvil" not in state.seats[B1].hand
    # Mobilize is only offered within the limit.
    state.turn_seat, state.step = A2, "daylight.actions"
    assert not legal_of(state, CommandKind.MOBILIZE, A2)


def test_alliance_supporters_unlimited_with_a_base_on_the_map() -> None:
    five = ["root_tea_fox", "root_tea_rabbit", "root_tea_mouse", BIRD, "cobbler.1"]
    state = alliance_position(
        step="daylight.actions",
        pieces={"autumn.meadow": {A2: {"base_fox": 1}}},
        hands={A2: ["bake_sale"]},
        supporters={A2: five},
    )
    play(state, first_legal(state, CommandKind.MOBILIZE, cards=("bake_sale",)))
    assert sorted(supporters_of(state, A2)) == sorted([*five, "bake_sale"])
    assert "bake_sale" not in state.seats[A2].hand


# ----- Birdsong: Revolt ---------------------------------------------------------------------


def _revolt_position() -> State:
    # Meadow (fox, 2 slots): rival Marquise warriors, sawmill and wood; a teammate's workshop.
    return alliance_position(
        pieces={
            "autumn.meadow": {
                A2: sym(),
                B1: {"warrior": 2, "sawmill": 1, "wood": 1},
                A1: {"warrior": 1, "workshop": 1},
            },
            "autumn.hill": {A2: sym()},  # fox
            "autumn.mountain": {A2: sym()},  # fox
            "autumn.creek": {A2: sym()},  # rabbit: does not count for a fox base
        },
        supporters={A2: ["anvil", "foxfolk_steel", BIRD]},
    )


def test_alliance_revolt_removes_rival_pieces_scores_and_places_base_warriors_officer() -> None:
    state = _revolt_position()
    options = legal_of(state, CommandKind.REVOLT, A2)
    assert {c.cards for c in options if c.clearing == "autumn.meadow"} == {
        ("anvil", "foxfolk_steel"),
        (BIRD, "anvil"),  # one bird (birds are wild), the other paid with a fox
    }
    assert all(c.clearing in {"autumn.meadow", "autumn.hill", "autumn.mountain"} for c in options)
    before = state.scores[Team.A]
    play(state, first_legal(state, CommandKind.REVOLT, clearing="autumn.meadow"))
    meadow = "autumn.meadow"
    assert kinds_of_seat(state, meadow, B1) == {}
    assert kinds_of_seat(state, meadow, A2) == {"sympathy": 1, "base_fox": 1, "warrior": 3}
    assert alliance_state(state, A2).officers == 1
    assert state.scores[Team.A] - before == 2  # the sawmill and the wood
    assert supporters_of(state, A2) == [BIRD]
    assert state.seats[A2].supply["warrior"] == 10 - 3 - 1
    assert_conserved(state)


def test_R25_revolt_removes_only_the_rival_team_teammates_are_untouched() -> None:
    state = _revolt_position()
    play(state, first_legal(state, CommandKind.REVOLT, clearing="autumn.meadow"))
    assert kinds_of_seat(state, "autumn.meadow", A1) == {"warrior": 1, "workshop": 1}


def test_alliance_revolt_needs_a_base_on_the_faction_board_and_twosupporters_of() -> None:
    state = _revolt_position()
    alliance_state(state, A2).supporters.remove("anvil")
    alliance_state(state, A2).supporters.remove(BIRD)
    state.deck[:0] = ["anvil", BIRD]
    assert not legal_of(state, CommandKind.REVOLT, A2)  # one supporter only
    state = _revolt_position()
    state.seats[A2].supply["base_fox"] = 0  # the fox base is already on the map
    state.pieces["autumn.dune"][A2] = {"base_fox": 1}
    assert not legal_of(state, CommandKind.REVOLT, A2)
    cmd = Command(
        CommandKind.REVOLT, A2, clearing="autumn.meadow", cards=("anvil", "foxfolk_steel")
    )
    assert_refused(state, cmd, IllegalCommand)


def test_alliance_revolt_needs_an_open_slot_after_removal_and_no_teammate_keep() -> None:
    # Hill has one slot, filled by the teammate's workshop: the base could not be placed.
    state = alliance_position(
        pieces={"autumn.hill": {A2: sym(), A1: {"workshop": 1}}},
        supporters={A2: ["anvil", "foxfolk_steel"]},
    )
    assert not legal_of(state, CommandKind.REVOLT, A2)
    # The same slot held by a rival building: the Revolt frees it.
    state = alliance_position(
        pieces={"autumn.hill": {A2: sym(), B1: {"workshop": 1}}},
        supporters={A2: ["anvil", "foxfolk_steel"]},
    )
    assert legal_of(state, CommandKind.REVOLT, A2)
    # A teammate's keep blocks the placement; a rival keep is removed by the Revolt.
    state = alliance_position(
        pieces={"autumn.meadow": {A2: sym(), A1: {"keep": 1}}},
        supporters={A2: ["anvil", "foxfolk_steel"]},
    )
    assert not legal_of(state, CommandKind.REVOLT, A2)


def test_alliance_revolt_calls_the_full_removal_hook_of_rival_factions_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, str, str]] = []

    def spy(ctx: object, seat: Seat, clearing: str, remover: Seat) -> None:
        calls.append((seat.value, clearing, remover.value))

    marquise = REGISTRY[Faction.MARQUISE]
    monkeypatch.setitem(REGISTRY, Faction.MARQUISE, dataclasses.replace(marquise, full_removal=spy))
    state = _revolt_position()
    play(state, first_legal(state, CommandKind.REVOLT, clearing="autumn.meadow"))
    assert calls == [("B1", "autumn.meadow", "A2")]  # never the teammate A1


def test_R25_revolt_removing_the_rival_alliance_sympathy_triggers_its_outrage() -> None:
    state = _revolt_position()
    state.pieces["autumn.meadow"][B2] = {"sympathy": 1}
    state.seats[B2].supply["sympathy"] -= 1
    state.seats[A2].hand = []
    top = state.deck[-1]
    before = state.scores[Team.A]
    events = play(state, first_legal(state, CommandKind.REVOLT, clearing="autumn.meadow"))
    assert state.scores[Team.A] - before == 3  # sawmill, wood and the rival sympathy token
    revealed = events_of(events, EventKind.HAND_REVEALED)
    assert [(e.seat, e.target, e.cards) for e in revealed] == [("A2", "B2", ())]
    assert supporters_of(state, B2) == [top]
    assert_conserved(state)


# ----- Birdsong: Spread Sympathy ------------------------------------------------------------


def test_alliance_spread_sympathy_anywhere_first_then_adjacent_never_a_keep() -> None:
    state = alliance_position(
        pieces={"autumn.hill": {A1: {"keep": 1}}},
        supporters={A2: [BIRD, "root_tea_mouse"]},
    )
    first = {c.clearing for c in legal_of(state, CommandKind.SPREAD_SYMPATHY, A2)}
    assert first == set(board().order) - {"autumn.hill"}  # every clearing on both maps
    play(state, first_legal(state, CommandKind.SPREAD_SYMPATHY, clearing="autumn.dune"))
    assert kinds_of_seat(state, "autumn.dune", A2) == {"sympathy": 1}
    assert state.scores[Team.A] == 0  # the first token scores 0
    after = {c.clearing for c in legal_of(state, CommandKind.SPREAD_SYMPATHY, A2)}
    assert after == {"autumn.glade", "autumn.haven"}  # Hill holds the keep


def test_R25_sympathy_spreads_across_a_bridge() -> None:
    mound = "winter.mound"
    state = alliance_position(
        pieces={"autumn.quarry": {A2: sym()}},
        supporters={A2: [SUIT_CARD[alliance_match().suits[mound]]]},
    )
    targets = {c.clearing for c in legal_of(state, CommandKind.SPREAD_SYMPATHY, A2)}
    neighbours = {"autumn.creek", "autumn.beach", "autumn.mountain", mound}
    assert targets == {c for c in neighbours if state.suits[c] == state.suits[mound]}
    assert mound in targets
    play(state, first_legal(state, CommandKind.SPREAD_SYMPATHY, clearing=mound))
    assert kinds_of_seat(state, mound, A2) == {"sympathy": 1}
    # and back: from Winter's Spire across the bottom bridge to Autumn's Weald (rabbit)
    state = alliance_position(
        turn=B2, pieces={"winter.spire": {B2: sym()}}, supporters={B2: ["a_visit_to_friends"]}
    )
    assert "autumn.weald" in {c.clearing for c in legal_of(state, CommandKind.SPREAD_SYMPATHY, B2)}


def test_alliance_spread_sympathy_cost_and_vp_follow_the_track() -> None:
    # Three tokens placed: the 4th costs 2 supporters and scores 1 VP.
    placed = {c: {A2: sym()} for c in ("autumn.hill", "autumn.dune", "autumn.haven")}
    state = alliance_position(
        pieces={**placed}, supporters={A2: ["anvil", "foxfolk_steel", "a_visit_to_friends"]}
    )
    glade = [
        c for c in legal_of(state, CommandKind.SPREAD_SYMPATHY, A2) if c.clearing == "autumn.glade"
    ]
    assert [c.cards for c in glade] == [("anvil", "foxfolk_steel")]
    assert not [
        c for c in legal_of(state, CommandKind.SPREAD_SYMPATHY, A2) if c.clearing == "autumn.beach"
    ]  # rabbit: only one rabbit supporter for a cost of 2
    play(state, glade[0])
    assert state.scores[Team.A] == 1
    # Six placed: the 7th costs 3 and scores 3.
    six = {
        c: {A2: sym()}
        for c in (
            "autumn.hill",
            "autumn.dune",
            "autumn.haven",
            "autumn.meadow",
            "autumn.pond",
            "autumn.weald",
        )
    }
    state = alliance_position(pieces=six, supporters={A2: ["anvil", "foxfolk_steel", BIRD]})
    glade = [
        c for c in legal_of(state, CommandKind.SPREAD_SYMPATHY, A2) if c.clearing == "autumn.glade"
    ]
    assert [c.cards for c in glade] == [(BIRD, "anvil", "foxfolk_steel")]
    play(state, glade[0])
    assert state.scores[Team.A] == 3


def test_alliance_martial_law_costs_one_more_with_three_warriors_of_one_rival() -> None:
    rabbits = ["a_visit_to_friends", "bake_sale", "smugglers_trail"]
    state = alliance_position(
        pieces={
            "autumn.hill": {A2: sym()},
            "autumn.creek": {B1: {"warrior": 3}},  # rabbit, one rival with 3: Martial Law
            "autumn.beach": {A1: {"warrior": 3}},  # rabbit, a teammate's 3: no Martial Law
            "autumn.dune": {B1: {"warrior": 2}, B2: {"warrior": 1}},  # mouse: 3 over two rivals
        },
        supporters={A2: [*rabbits, "mouse_in_a_sack"]},
    )
    costs = {c.clearing: len(c.cards) for c in legal_of(state, CommandKind.SPREAD_SYMPATHY, A2)}
    assert costs == {"autumn.creek": 2, "autumn.beach": 1, "autumn.dune": 1}
