"""Random legal playouts of R2's default lineup (A = Marquise, Eyrie, Thief; B = Marquise,
Alliance, Tinker), where contraband (R16-R21) and wood across the bridges (R26) happen.

Checked after every command: ``decide`` predicts exactly what ``execute`` applies; the legal
commands are distinct; every item is in exactly one place (stocks, Crafted Items boxes, ruins,
Vagabonds, contraband dropped or carried, the crate; an item limit may remove some from the
game); carried contraband always has a warrior of its carrier under it; a Vagabond's
contraband is its own team's; every seat's view shows every dropped and carried item (R18).
At the end: folding the events onto the initial state rebuilds the live state.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.engine import (
    Command,
    Event,
    EventKind,
    State,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.vagabond_state import VagabondState
from frontier.engine.view import view
from tests.engine_helpers import (
    KindFirstBot,
    assert_events_rebuild,
    assert_items_conserved,
    execute_as_decided,
)
from tests.golden.regenerate import GOLDENS

SEEDS = st.integers(min_value=0, max_value=2**62)


def check_contraband(state: State) -> None:
    for per_seat in state.carried.values():
        for items in per_seat.values():
            assert all(d.team is d.crafter.team for d in items)
    for items in state.dropped.values():
        assert all(d.team is d.crafter.team for d in items)
    for seat in state.order:
        extra = state.seats[seat].extra
        if isinstance(extra, VagabondState):
            for it in extra.items:
                assert it.contraband == bool(it.crafter)
                assert not it.contraband or it.crafter[0] == seat.team.value  # R20: own team
    dropped = {c: len(items) for c, items in state.dropped.items()}
    carried = {c: {s.value: len(i) for s, i in p.items()} for c, p in state.carried.items()}
    for viewer in (*state.order, None):
        v = view(state, viewer)
        assert {c: len(items) for c, items in v["dropped"].items()} == dropped
        assert {c: {s: len(i) for s, i in p.items()} for c, p in v["carried"].items()} == carried
        assert len(v["crate"]) == len(state.crate)


Choose = Callable[[list[Command]], Command]
# (state before, the events of one command, state after): extra checks of one step
StepCheck = Callable[[State, list[Event], State], None]


def play_out(state: State, choose: Choose, check: StepCheck | None = None) -> list[Event]:
    """Play ``state`` to the end with ``choose``, checking the invariants above after every
    command (and ``check``, given the state before it); the events of the whole match."""
    events: list[Event] = []
    removed = 0
    while not state.over:
        assert len(events) < 200_000, "the match does not end"
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        assert legal, f"{seat.value} must act in {state.step} but has no legal command"
        assert len(set(legal)) == len(legal), "duplicate legal commands"
        before = state.clone() if check is not None else None
        got = execute_as_decided(state, choose(legal))
        if check is not None and before is not None:
            check(before, got, state)
        removed += sum(1 for e in got if e.kind is EventKind.ITEM_REMOVED)
        events += got
        assert_items_conserved(state, removed)
        check_contraband(state)
    assert state.winner in {"A", "B", "draw"}
    return events


def play_match(seed: int, bot_seed: int, patience: int = 3) -> list[Event]:
    config = make_config(seed=seed, lineup=R2_DEFAULT_LINEUP)
    state = initial_state(config)
    events = play_out(state, KindFirstBot(bot_seed, patience).choose)
    assert_events_rebuild(config, state, events)
    return events


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_R16_R21_R26_default_lineup_random_playouts_keep_every_item_and_fold(
    seed: int, bot_seed: int
) -> None:
    play_match(seed, bot_seed)


def test_R16_R21_R26_golden_seeds_keep_every_invariant() -> None:
    """The default-lineup golden seeds craft, carry, drop, collect, seize and validate
    contraband and carry wood across a bridge: the invariants above hold there too."""
    for golden in GOLDENS:
        if golden.lineup == R2_DEFAULT_LINEUP:
            play_match(golden.seed, golden.bot_seed, golden.patience)
