"""Random legal playouts with Eyries (R2 lineups with one or two Eyrie seats).

For any seed and any random bot: the match ends without an exception; after every command
``decide`` predicts exactly what ``execute`` applies, every card is exactly once somewhere
(the Decree included), every piece is on the board or in its owner's supply, every item is in
one place (contraband and the crate included), the Decree holds both Loyal Viziers, no view
shows another seat's hand, and folding the whole event stream onto the initial state rebuilds
the live state (``state_hash``).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.engine import (
    Event,
    State,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.engine.cards import deck_ids
from frontier.engine.factions.eyrie_board import VIZIERS, EyrieState
from frontier.engine.model import Faction, Item
from frontier.engine.view import can_see_hand, view
from tests.engine_helpers import (
    MARQUISE_SUPPLY,
    KindFirstBot,
    assert_events_rebuild,
    assert_items_conserved,
    execute_as_decided,
)
from tests.eyrie_helpers import all_cards_with_decree

LINEUPS = ("A=marquise,eyrie;B=marquise,eyrie", "A=marquise,eyrie;B=marquise")
SEEDS = st.integers(min_value=0, max_value=2**62)
EYRIE_BOX = {"warrior": 20, "roost": 7}
ITEM_NAMES = frozenset(i.value for i in Item)


def check_conserved(state: State) -> None:
    assert sorted(all_cards_with_decree(state)) == sorted(deck_ids())
    for seat, st_ in state.seats.items():
        total = dict(st_.supply)
        for per_seat in state.pieces.values():
            for kind, n in per_seat.get(seat, {}).items():
                assert n >= 0
                total[kind] = total.get(kind, 0) + n
        if st_.faction is Faction.EYRIE:
            assert isinstance(st_.extra, EyrieState)
            assert total == EYRIE_BOX
            tucked = sorted(e for col in st_.extra.decree.values() for e in col if e in VIZIERS)
            assert tucked == (sorted(VIZIERS) if st_.extra.leader else tucked)
            assert len(tucked) in (0, 2)
        else:
            for kind, n in MARQUISE_SUPPLY.items():
                assert total.get(kind, 0) == n or (kind == "keep" and total.get(kind, 0) == 0)
    assert min(state.scores.values()) >= 0  # R31
    assert_items_conserved(state)  # stocks, crafted, ruins, contraband, crate (R16-R19)


def check_hands_hidden(state: State) -> None:
    for viewer in (*state.order, None):
        text = json.dumps(view(state, viewer))
        for owner in state.order:
            if can_see_hand(state, viewer, owner):
                continue
            known = state.known_hands.get(viewer, {}) if viewer is not None else {}
            hidden = set(state.seats[owner].hand) - {c for cs in known.values() for c in cs}
            for cid in hidden - ITEM_NAMES:  # the card "sword" shares its id with the item
                assert f'"{cid}"' not in text, f"{viewer} sees {owner}'s {cid}"


def playout(lineup: str, seed: int, bot_seed: int) -> tuple[State, list[Event]]:
    config = make_config(seed=seed, lineup=lineup)
    state = initial_state(config)
    bot = KindFirstBot(bot_seed)
    events: list[Event] = []
    n = 0
    while not state.over:
        n += 1
        assert n < 5_000, "the match does not end"
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        assert legal, f"{seat} must act in {state.step} but has no legal command"
        assert len(set(legal)) == len(legal), "duplicate legal commands"
        cmd = bot.choose(legal)
        got = execute_as_decided(state, cmd)
        events += got
        check_conserved(state)
        if n % 25 == 0:
            check_hands_hidden(state)
    assert state.winner in {"A", "B", "draw"}
    assert_events_rebuild(config, state, events)
    return state, events


@pytest.mark.parametrize("lineup", LINEUPS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_eyrie_random_playouts_end_and_fold_to_the_live_state(
    lineup: str, seed: int, bot_seed: int
) -> None:
    state, events = playout(lineup, seed, bot_seed)
    assert any(e.kind.value == "leader_chosen" for e in events)
    assert state.round >= 1
