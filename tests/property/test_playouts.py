"""Random legal playouts over many seeds: the engine's invariants hold at every step.

Checked after every command of every match:

* no exception, and the match ends within the round limit with a winner (R3, R30);
* every one of the 47 cards is exactly once in deck + discard + hands + play areas (R11), and
  every piece is on the board or in its owner's supply (the keep may be gone for good); every
  item is in a stock, a Crafted Items box, a ruin, contraband on the map or the crate;
* ``decide`` on the state gives exactly the events ``execute`` then applies, and leaves the
  state untouched;
* folding the events one by one onto a copy rebuilds the live state (``state_hash`` equal),
  and a whole match folds from ``initial_state`` to the final state;
* replays are deterministic (same seed and commands: same events, same hash);
* no view and no event as seen by a seat shows another seat's secret hand cards, the deck
  order, hidden ruin items or the generator state (R4, R33).

The default run is sized to stay well under a minute on a 2-core machine; the ``slow``
variant (``pytest -m slow``) plays thousands of matches with the cheap checks.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.engine import (
    Command,
    Event,
    EventKind,
    Seat,
    State,
    decide,
    evolve,
    execute,
    initial_state,
    legal_commands,
    make_config,
    rng,
    to_act,
)
from frontier.engine.board import WINTER, board
from frontier.engine.cards import CardKind, catalog
from frontier.engine.hashing import state_hash
from frontier.engine.model import Item
from frontier.engine.view import can_see_hand, event_for, view
from frontier.wire.view import view_to_proto
from tests.engine_helpers import (
    LINEUP,
    KindFirstBot,
    assert_conserved,
    assert_items_conserved,
    clearings_of,
    new_state,
    put_in_play,
    string_values,
)

SEEDS = st.integers(min_value=0, max_value=2**62)
PERSISTENT = sorted(cid for cid, c in catalog().items() if c.kind is CardKind.PERSISTENT)


# ----- the checks ---------------------------------------------------------------------------


def _known_to(state: State, viewer: Seat) -> set[str]:
    """Cards ``viewer`` legitimately learnt through a card (Codebreakers, R33)."""
    return {c for cards in state.known_hands.get(viewer, {}).values() for c in cards}


ITEM_WORDS = {i.value for i in Item}


def check_view_secrecy(state: State) -> None:
    for viewer in (*state.order, None):
        v = view(state, viewer)
        text = json.dumps(v)
        strings = string_values(v)
        known = _known_to(state, viewer) if viewer is not None else set()
        # the "sword" card and the sword item share a word: public item lists name items
        known |= ITEM_WORDS
        for owner in state.order:
            if can_see_hand(state, viewer, owner):
                continue
            secret = set(state.seats[owner].hand) - known
            assert not strings & secret, f"{viewer} sees {owner}'s hand: {strings & secret}"
        assert not (strings & set(state.deck)) - known, "a view shows cards in the deck"
        assert str(state.rng) not in text, "a view shows the generator state"
        for key in ("rng", "seed", "deck", "ruins"):
            assert key not in v
        for clearing in v["clearings"]:
            assert isinstance(clearing["ruin_items"], int), "a view shows ruin items"
        typed = MessageToDict(view_to_proto(v))  # every typed field of the wire View too
        typed.pop("json")
        typed_strings = string_values(typed)
        for owner in state.order:
            if not can_see_hand(state, viewer, owner):
                leaked = typed_strings & (set(state.seats[owner].hand) - known)
                assert not leaked, f"{viewer}'s typed view shows {owner}'s hand: {leaked}"
        assert not (typed_strings & set(state.deck)) - known, "a typed view shows deck cards"


def check_event_secrecy(state: State, event: Event) -> None:
    """``state`` is the state right after ``event`` was applied."""
    deck = set(state.deck)
    for viewer in (*state.order, None):
        seen = event_for(state, event, viewer)
        cards = set(seen.cards) - {"hidden"}
        assert len(seen.cards) == len(event.cards)
        assert not cards & deck, f"{event.kind} shows deck cards to {viewer}"
        involved = viewer is not None and viewer.value in (event.seat, event.target)
        if involved or event.kind is EventKind.DISCARD_CARD_TAKEN:  # Day Labor: public cards
            continue
        for owner in state.order:
            if can_see_hand(state, viewer, owner):
                continue
            leaked = cards & set(state.seats[owner].hand)
            assert not leaked, f"{event.kind} shows {owner}'s hand {leaked} to {viewer}"


def step_checked(state: State, cmd: Command, *, secrecy: bool = True) -> list[Event]:
    """Execute ``cmd`` with every per-command check."""
    before = state_hash(state)
    shadow = state.clone()
    predicted = decide(state, cmd)
    assert state_hash(state) == before, "decide changed its input state"
    events = execute(state, cmd)
    assert events == predicted, "decide and execute disagree"
    for event in events:
        evolve(shadow, event)
        if secrecy:
            check_event_secrecy(shadow, event)
    assert state_hash(shadow) == state_hash(state), "the events do not rebuild the state"
    assert_conserved(state)
    assert_items_conserved(state)
    assert state.round <= state.options.max_rounds
    if secrecy:
        check_view_secrecy(state)
    return events


def play_checked(
    state: State, bot_seed: int, *, secrecy: bool = True, limit: int = 5_000
) -> tuple[list[Command], list[Event]]:
    bot = KindFirstBot(bot_seed)
    commands: list[Command] = []
    events: list[Event] = []
    while not state.over:
        assert len(commands) < limit, "the match does not end"
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        assert legal, f"{seat} must act but has no legal command"
        assert len(set(legal)) == len(legal), "duplicate legal commands"
        cmd = bot.choose(legal)
        commands.append(cmd)
        events += step_checked(state, cmd, secrecy=secrecy)
    assert state.winner in {"A", "B", "draw"}
    assert state.round <= 6
    assert to_act(state) is None
    return commands, events


def mixed_position(seed: int, spread: int) -> State:
    """A post-setup position with both seats' warriors scattered over both maps and some
    persistent cards in play, so battles, ambushes, bridges and card effects happen often."""
    from tests.engine_helpers import after_setup, put

    state = after_setup(seed)
    r = rng.seed_state(seed ^ 0x5EED)
    clearings = board().order
    for seat in state.order:
        for _ in range(spread):
            if state.seats[seat].supply.get("warrior", 0) == 0:
                break
            i, r = rng.below(r, len(clearings))
            put(state, clearings[i], seat, "warrior")
        for _ in range(3):
            i, r = rng.below(r, len(PERSISTENT))
            cid = PERSISTENT[i]
            held = {catalog()[c].type for c in state.seats[seat].play_area}
            if catalog()[cid].type not in held and cid not in state.seats[seat].hand:
                put_in_play(state, seat, cid)
        for _ in range(3):  # a fuller hand: more ambushes, fees and field hospitals
            if state.deck:
                state.seats[seat].hand.append(state.deck.pop())
    # a short deck, so the discard pile is reshuffled during the match (R11)
    keep, r = rng.below(r, 8)
    state.discard.extend(state.deck[: len(state.deck) - keep])
    del state.deck[: len(state.deck) - keep]
    return state


# ----- the properties -----------------------------------------------------------------------


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_random_playouts_keep_every_invariant(seed: int, bot_seed: int) -> None:
    state = new_state(seed)
    commands, events = play_checked(state, bot_seed)
    # the whole match folds from the initial state
    rebuilt = new_state(seed)
    for event in events:
        evolve(rebuilt, event)
    assert state_hash(rebuilt) == state_hash(state)
    # and replays deterministically
    replay = new_state(seed)
    replayed: list[Event] = []
    for cmd in commands:
        replayed += execute(replay, cmd)
    assert replayed == events
    assert state_hash(replay) == state_hash(state)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS, spread=st.integers(min_value=4, max_value=12))
def test_random_playouts_from_mixed_positions_keep_every_invariant(
    seed: int, bot_seed: int, spread: int
) -> None:
    state = mixed_position(seed, spread)
    start = state.clone()
    _, events = play_checked(state, bot_seed)
    for event in events:
        evolve(start, event)
    assert state_hash(start) == state_hash(state)


@settings(max_examples=200, deadline=None)
@given(seed=SEEDS)
def test_R5_R9_R11_seeded_setup_for_any_seed(seed: int) -> None:
    state = initial_state(make_config(seed=seed, lineup=LINEUP))
    assert Counter(state.suits[c] for c in clearings_of(WINTER)) == {
        "fox": 4,
        "rabbit": 4,
        "mouse": 4,
    }
    assert sorted(i.value for items in state.ruins.values() for i in items) == sorted(
        ["bag", "boots", "hammer", "sword"] * 2
    )
    assert_conserved(state)
    assert state_hash(state) == state_hash(initial_state(make_config(seed=seed, lineup=LINEUP)))


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("mixed", [False, True])
def test_thousands_of_random_matches(mixed: bool) -> None:
    for n in range(1_000):  # x 2 variants: 2,000 matches, about 15 minutes
        seed = rng.next_u64(n * 2 + int(mixed))[0] >> 2
        state = mixed_position(seed, 8) if mixed else new_state(seed)
        start = state.clone()
        _, events = play_checked(state, seed ^ 0xB07, secrecy=n % 20 == 0)
        for event in events:
            evolve(start, event)
        assert state_hash(start) == state_hash(state), f"match {n} (seed {seed})"
