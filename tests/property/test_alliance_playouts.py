"""Random legal playouts with Woodland Alliances: whole matches end without an exception.

Lineups: an Alliance on each team, and an Alliance against a lone Marquise.  Checked after
every command: the 47 cards are each exactly once (the supporters included) and every piece
is on the board, in the supply or (Alliance warriors) among the officers; the 24 crafting
items are in a stock, a Crafted Items box, dropped or carried on the map or in the crate
(R10, R16-R21); supporters stay
within 5 while their Alliance has no base (once its own decision is answered).  At the end:
folding the events rebuilds the live state, and no view or event shows an Alliance's
supporters to another seat.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from frontier.engine import (
    Event,
    State,
    evolve,
    execute,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.engine.hashing import state_hash
from frontier.engine.model import Item
from frontier.engine.sympathy import AllianceState, bases_on_map
from frontier.engine.view import can_see_hand, event_for, view
from tests.engine_helpers import (
    KindFirstBot,
    assert_conserved,
    assert_items_conserved,
    string_values,
)

LINEUPS = ("A=marquise,alliance;B=marquise,alliance", "A=marquise;B=marquise,alliance")
SEEDS = hs.integers(min_value=0, max_value=2**62)


def check_step(state: State) -> None:
    assert_conserved(state)
    assert_items_conserved(state)  # stocks, crafted, ruins, contraband, crate (R10, R16-R21)
    waiting = {d.seat for d in state.decisions}
    for seat, seat_state in state.seats.items():
        extra = seat_state.extra
        if (
            isinstance(extra, AllianceState)
            and seat not in waiting
            and not bases_on_map(state, seat)
        ):
            assert len(extra.supporters) <= 5


ITEM_WORDS = {i.value for i in Item}


def check_supporters_secrecy(state: State, events: list[Event]) -> None:
    for owner, seat_state in state.seats.items():
        if not isinstance(seat_state.extra, AllianceState):
            continue
        secret = set(seat_state.extra.supporters)
        for viewer in (*state.order, None):
            if can_see_hand(state, viewer, owner):
                continue
            # A card seen earlier in a revealed hand (Codebreakers, Outrage) may since have
            # become a supporter: that old knowledge is legitimately still in the view.
            known = state.known_hands.get(viewer, {}) if viewer is not None else {}
            learnt = {c for cards in known.values() for c in cards}
            # the "sword" card and the sword item share a word: public item lists name items
            assert not (string_values(view(state, viewer)) & secret) - learnt - ITEM_WORDS
    for event in events:
        for viewer in (*state.order, None):
            seen = event_for(state, event, viewer)
            if viewer is not None and viewer.value in (event.seat, event.target):
                continue
            if event.kind.value == "supporters_added":
                assert set(seen.cards) == {"hidden"}


def play_match(lineup: str, seed: int, bot_seed: int) -> None:
    config = make_config(seed=seed, lineup=lineup)
    state = initial_state(config)
    bot = KindFirstBot(bot_seed)
    events: list[Event] = []
    while not state.over:
        assert len(events) < 200_000, "the match does not end"
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        assert legal, f"{seat} must act but has no legal command ({state.step})"
        events += execute(state, bot.choose(legal))
        check_step(state)
    assert state.winner in {"A", "B", "draw"}
    rebuilt = initial_state(config)
    for event in events:
        evolve(rebuilt, event)
    assert state_hash(rebuilt) == state_hash(state)
    check_supporters_secrecy(state, events)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_alliance_on_both_teams_random_playouts_end_and_fold(seed: int, bot_seed: int) -> None:
    play_match(LINEUPS[0], seed, bot_seed)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_alliance_against_a_lone_marquise_random_playouts_end_and_fold(
    seed: int, bot_seed: int
) -> None:
    play_match(LINEUPS[1], seed, bot_seed)
