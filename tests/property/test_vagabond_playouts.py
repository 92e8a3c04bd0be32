"""Random legal playouts with two Vagabonds (one per team): whole matches end without an
exception, and folding the events rebuilds the live state.

Lineups: "A=marquise,,thief;B=marquise,,tinker" and "A=marquise,,ranger;B=marquise,,thief"
(the second seats stay empty).  Checked after every command: the 47 cards are each exactly
once; every item is in a map stock, a Crafted Items box, a ruin, a Vagabond's hands,
dropped or carried on the map or in the crate, unless an item limit removed it from the game;
the 15 quests are face up, in the quest deck or completed.  At the end: the fold from
``initial_state`` equals the live state (``state_hash``), and no view shows the quest deck or
a hidden ruin item.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from frontier.engine import (
    Event,
    EventKind,
    State,
    execute,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.engine.board import board
from frontier.engine.cards import deck_ids
from frontier.engine.vagabond_state import VagabondState, is_clearing, quests, vagabond_seats
from frontier.engine.view import view
from tests.engine_helpers import (
    KindFirstBot,
    all_cards,
    assert_events_rebuild,
    assert_items_conserved,
    items_in_the_box,
)

LINEUPS = ("A=marquise,,thief;B=marquise,,tinker", "A=marquise,,ranger;B=marquise,,thief")
SEEDS = hs.integers(min_value=0, max_value=2**62)
MAP_STOCK_ITEMS = 24  # two stocks of 12 (R10)
RUIN_ITEMS = 8  # R9
STARTING_ITEMS = 4  # per Vagabond (base Root §12.1)
MAX_COMMANDS = 5_000


def _vagabonds(state: State) -> list[VagabondState]:
    out = []
    for seat in vagabond_seats(state):
        extra = state.seats[seat].extra
        assert isinstance(extra, VagabondState)
        out.append(extra)
    return out


def check_step(state: State, removed_items: int) -> None:
    assert sorted(all_cards(state)) == sorted(deck_ids())
    vagabonds = _vagabonds(state)
    assert items_in_the_box(state) == MAP_STOCK_ITEMS + RUIN_ITEMS + STARTING_ITEMS * len(vagabonds)
    assert_items_conserved(state, removed_items)
    done = [q for vs in vagabonds for q in vs.quests_done]
    assert sorted([*state.quests, *state.quest_deck, *done]) == sorted(quests())
    assert len(state.quests) == min(3, 15 - len(done))
    for vs in vagabonds:
        if state.round:
            assert is_clearing(vs.location) or vs.location in board().forests


def check_secrets(state: State) -> None:
    hidden_quests = set(state.quest_deck)
    for viewer in (*state.order, None):
        text = json.dumps(view(state, viewer))
        assert not [q for q in hidden_quests if f'"{q}"' in text]
        v = json.loads(text)
        for clearing in v["clearings"]:
            assert clearing["ruin_items"] == len(state.ruins.get(clearing["id"], ()))


def play_match(lineup: str, seed: int, bot_seed: int) -> None:
    config = make_config(seed=seed, lineup=lineup)
    state = initial_state(config)
    bot = KindFirstBot(bot_seed)
    events: list[Event] = []
    removed = 0
    commands = 0
    while not state.over:
        assert commands < MAX_COMMANDS, "the match does not end"
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        assert legal, f"{seat.value} has no legal command in {state.step}"
        new = execute(state, bot.choose(legal))
        commands += 1
        removed += sum(1 for e in new if e.kind is EventKind.ITEM_REMOVED)
        events += new
        check_step(state, removed)
    check_secrets(state)
    assert_events_rebuild(config, state, events)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_thief_and_tinker_random_playouts_end_and_fold(seed: int, bot_seed: int) -> None:
    play_match(LINEUPS[0], seed, bot_seed)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_ranger_and_thief_random_playouts_end_and_fold(seed: int, bot_seed: int) -> None:
    play_match(LINEUPS[1], seed, bot_seed)
