"""What each seat may see (R4, R33): ``view`` and ``event_for``."""

from __future__ import annotations

import dataclasses
import json

from frontier.engine import Command, CommandKind, Event, EventKind, Seat
from frontier.engine.model import Faction, Item
from frontier.engine.state import SeatSpec
from frontier.engine.view import can_see_hand, event_for, view
from tests.alliance_helpers import A1, A2, B1, B2, alliance_position
from tests.engine_helpers import CARD_OF, A, B, after_setup, play, position, string_values


def test_R4_own_hand_visible_others_hand_sizes_only() -> None:
    state = after_setup(seed=4)
    own = view(state, A)
    assert own["hands"] == {"A1": sorted(state.seats[A].hand)}
    sizes = {s["seat"]: s["hand_count"] for s in own["seats"]}
    assert sizes == {"A1": len(state.seats[A].hand), "B1": len(state.seats[B].hand)}
    assert not string_values(own) & set(state.seats[B].hand)


def test_R4_spectator_sees_no_hand() -> None:
    state = after_setup(seed=4)
    spectator = view(state, None)
    assert spectator["viewer"] == "spectator"
    assert spectator["hands"] == {} and spectator["known_hands"] == {}
    for st in state.seats.values():
        assert not string_values(spectator) & set(st.hand)


def test_R4_views_hide_deck_order_ruin_items_and_the_generator() -> None:
    state = after_setup(seed=4)
    for viewer in (A, B, None):
        v = view(state, viewer)
        text = json.dumps(v)
        assert v["deck_count"] == len(state.deck)
        # the "sword" card and the sword item share a word: the public ruin_pool names items
        assert not string_values(v) & (set(state.deck) - {i.value for i in Item})
        assert str(state.rng) not in text
        assert "rng" not in v and "seed" not in v and "ruins" not in v
        for clearing in v["clearings"]:
            assert isinstance(clearing["ruin_items"], int)
            assert not {i.value for i in Item} & string_values(clearing, frozenset())


def test_R4_team_hands_visible_is_off_by_default_and_shows_only_teammates() -> None:
    off = position()
    on = position(team_hands_visible=True)
    for state in (off, on):
        state.lineup[Seat.A2] = SeatSpec(Faction.EYRIE)
    assert not can_see_hand(off, A, Seat.A2)
    assert can_see_hand(on, A, Seat.A2) and can_see_hand(on, Seat.A2, A)
    assert not can_see_hand(on, A, B) and not can_see_hand(on, None, A)
    drawn = Event(EventKind.CARDS_DRAWN, seat="A2", cards=(CARD_OF["fox"],))
    assert event_for(on, drawn, A).cards == (CARD_OF["fox"],)
    assert event_for(off, drawn, A).cards == ("hidden",)
    assert event_for(on, drawn, B).cards == ("hidden",)


def test_R4_drawn_cards_are_redacted_for_everyone_but_the_drawer() -> None:
    state = position(actions=0, pieces={"autumn.creek": {A: {"warrior": 1}}})
    events = play(state, Command(CommandKind.END_PHASE, A))
    drawn = next(e for e in events if e.kind is EventKind.CARDS_DRAWN)
    assert event_for(state, drawn, A) == drawn
    assert event_for(state, drawn, B).cards == ("hidden",) * len(drawn.cards)
    assert event_for(state, drawn, None).cards == ("hidden",) * len(drawn.cards)
    # public events pass through unchanged
    moved = Event(EventKind.CARDS_DISCARDED, seat="A1", cards=(CARD_OF["fox"],))
    assert event_for(state, moved, B) == moved


def test_R4_a_given_card_is_seen_by_giver_and_receiver_only() -> None:
    state = position()
    given = Event(EventKind.CARD_GIVEN, seat="A1", target="B1", cards=(CARD_OF["fox"],))
    assert event_for(state, given, A) == given
    assert event_for(state, given, B) == given
    assert event_for(state, given, None).cards == ("hidden",)


def test_R4_view_shows_the_public_board() -> None:
    state = after_setup(seed=4)
    v = view(state, B)
    hill = next(c for c in v["clearings"] if c["id"] == "autumn.hill")
    assert hill["pieces"]["A1"]["keep"] == 1
    assert v["to_act"] == "A1" and v["round"] == 1
    assert v["stock"]["autumn"]["boots"] == 2
    assert v["scores"] == {"A": 0, "B": 0}


def test_R4_team_hands_visible_shows_teammates_hands_but_not_the_alliance_supporters() -> None:
    state = alliance_position(
        supporters={A2: ["anvil", "foxfolk_steel"]}, hands={A1: ["root_tea_mouse"]}
    )
    state.options = dataclasses.replace(state.options, team_hands_visible=True)
    mate = view(state, A1)
    assert set(mate["hands"]) == {"A1", "A2"}  # the teammate's hand, as the option says
    assert mate["private"] == {}  # ... and nothing more: no supporters
    assert not string_values(mate) & {"anvil", "foxfolk_steel"}
    assert view(state, A2)["private"] == {"A2": {"supporters": ["anvil", "foxfolk_steel"]}}
    added = Event(
        EventKind.SUPPORTERS_ADDED, seat="A2", cards=("anvil",), text="outrage", target="B1"
    )
    assert event_for(state, added, A1).cards == ("hidden",)  # A2's teammate
    assert event_for(state, added, A2).cards == ("anvil",)
    assert event_for(state, added, B1).cards == ("anvil",)  # the giver
    assert event_for(state, added, B2).cards == ("hidden",)  # the giver's teammate
