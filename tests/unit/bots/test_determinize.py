"""Determinization: states rebuilt from a seat's view agree with everything that view shows.

The search bot plays on states rebuilt from ``view(state, seat)`` with the hidden parts
sampled, so these tests walk real matches (every lineup family, random and greedy bots,
R4's visible team hands) and check at many decisions that a sample

* shows the seat exactly the view it was built from (so every public fact, the seat's own
  hand and faction board included, is unchanged),
* offers the seat exactly the legal commands of the true state,
* holds every card exactly once (card counts are conserved), the ruins' and the quest
  deck's items likewise, with the hidden hands at their public sizes,

and that different sample seeds deal different hidden parts, cards the seat was shown stay
in their hand, and a view that does not add up is refused with a clear error.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator

import pytest

from frontier.bots import GreedyBot, RandomBot
from frontier.bots.determinize import ViewMismatch, ViewModel
from frontier.engine import Seat, State, execute, initial_state, legal_commands, make_config, to_act
from frontier.engine.cards import deck_ids
from frontier.engine.factions.eyrie_board import VIZIERS, EyrieState
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.state import Decision
from frontier.engine.sympathy import AllianceState
from frontier.engine.view import view

LINEUPS = [
    R2_DEFAULT_LINEUP,
    "A=marquise;B=marquise",
    "A=marquise,eyrie;B=marquise,alliance",
    "A=marquise,alliance,ranger;B=marquise,eyrie,thief",
]


def _walk(lineup: str, seed: int, every: int = 4) -> Iterator[tuple[State, Seat]]:
    """Every ``every``-th decision of one match (greedy on odd seeds, random on even)."""
    state = initial_state(make_config(seed=seed, lineup=lineup, team_hands_visible=seed == 2))
    bot = GreedyBot(seed) if seed % 2 else RandomBot(seed)
    n = 0
    while (seat := to_act(state)) is not None:
        legal = legal_commands(state, seat)
        if n % every == 0:
            yield state, seat
        execute(state, bot.choose(state, seat, legal))
        n += 1


def _cards(state: State) -> Counter[str]:
    """Every card of the match wherever it lies."""
    out: Counter[str] = Counter(state.deck)
    out.update(state.discard)
    for st in state.seats.values():
        out.update(st.hand)
        out.update(st.play_area)
        if isinstance(st.extra, EyrieState):
            out.update(c for cards in st.extra.decree.values() for c in cards if c not in VIZIERS)
        elif isinstance(st.extra, AllianceState):
            out.update(st.extra.supporters)
    return out


@pytest.mark.parametrize("lineup", LINEUPS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_samples_agree_with_the_view(lineup: str, seed: int) -> None:
    checked = 0
    for state, seat in _walk(lineup, seed):
        shown = view(state, seat)
        model = ViewModel(shown)
        sample = model.sample(seed * 1000 + checked)
        assert view(sample, seat) == shown
        assert legal_commands(sample, seat) == legal_commands(state, seat)
        assert _cards(sample) == _cards(state) == Counter(deck_ids())
        assert sorted(sample.seats[seat].hand) == sorted(state.seats[seat].hand)
        for other, st in state.seats.items():
            assert len(sample.seats[other].hand) == len(st.hand)
        assert Counter(i for items in sample.ruins.values() for i in items) == Counter(
            i for items in state.ruins.values() for i in items
        )
        assert {c: len(i) for c, i in sample.ruins.items()} == {
            c: len(i) for c, i in state.ruins.items()
        }
        assert sorted(sample.quest_deck) == sorted(state.quest_deck)
        checked += 1
    assert checked > 10


def test_samples_differ_in_the_hidden_parts_only() -> None:
    state, seat = next(s for s in _walk(R2_DEFAULT_LINEUP, 0) if s[0].round >= 1)
    model = ViewModel(view(state, seat))
    first, second = model.sample(1), model.sample(2)
    assert first.deck != second.deck
    assert any(sorted(first.seats[s].hand) != sorted(second.seats[s].hand) for s in state.order), (
        "two seeds should deal the hidden hands differently"
    )
    assert sorted(first.seats[seat].hand) == sorted(second.seats[seat].hand)
    assert first.rng != second.rng != state.rng
    assert model.sample(1).deck == first.deck  # seeded: the same seed deals the same


def test_a_card_the_seat_was_shown_stays_in_that_hand() -> None:
    state, seat = next(s for s in _walk("A=marquise;B=marquise", 0) if s[0].round >= 1)
    shown = view(state, seat)
    rival = next(s for s in state.order if s.team is not seat.team)
    card = state.seats[rival].hand[0]
    shown = {**shown, "known_hands": {rival.value: [card]}}
    for sample_seed in range(5):
        assert card in ViewModel(shown).sample(sample_seed).seats[rival].hand


def test_a_view_that_does_not_add_up_is_refused() -> None:
    state, seat = next(_walk("A=marquise;B=marquise", 0))
    shown = view(state, seat)
    broken = copy.deepcopy(shown)
    broken["deck_count"] += 1
    with pytest.raises(ViewMismatch, match="unseen cards"):
        ViewModel(broken)
    doubled = copy.deepcopy(shown)
    doubled["discard"] = doubled["discard"] + doubled["hands"][seat.value] * 5
    with pytest.raises(ViewMismatch, match="does not hold"):
        ViewModel(doubled)
    missing = {k: v for k, v in shown.items() if k != "ruin_pool"}
    with pytest.raises(ViewMismatch, match="ruin_pool"):
        ViewModel(missing)
    spectator = {**shown, "viewer": "spectator"}
    with pytest.raises(ViewMismatch):
        ViewModel(spectator)


def test_a_queued_decision_shows_only_to_its_seat() -> None:
    """The view lists the first open decision for everyone, a queued one only for its seat
    (its existence may say something of that seat's hand)."""
    state = initial_state(make_config(seed=0, lineup="A=marquise;B=marquise"))
    state.decisions = [
        Decision(Seat.A1, "cobbler"),
        Decision(Seat.B1, "field_hospitals", clearing="autumn.fox1"),
    ]
    assert [d["seat"] for d in view(state, Seat.A1)["decisions"]] == ["A1"]
    assert [d["seat"] for d in view(state, Seat.B1)["decisions"]] == ["A1", "B1"]
    assert [d["seat"] for d in view(state, None)["decisions"]] == ["A1"]
    assert view(state, Seat.B1)["decisions"][1]["kind"] == "field_hospitals"
