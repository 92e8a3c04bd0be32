"""The greedy bots and the tournament's statistics."""

from __future__ import annotations

import io
import json

import pytest

from frontier.bots import GreedyBot, GreedyViewBot, RandomBot, make_bot
from frontier.bots.greedy import POINT, turn_values, view_score
from frontier.cli.progress import ProgressBar
from frontier.engine import (
    Command,
    CommandKind,
    Seat,
    State,
    execute,
    initial_state,
    legal_commands,
    make_config,
    rng,
    to_act,
)
from frontier.engine.cards import catalog
from frontier.engine.hashing import state_hash
from frontier.engine.view import view
from frontier.play import tournament
from frontier.play.tournament_report import report

MIRROR = "A=marquise;B=marquise"


def _states(seed: int, limit: int = 400) -> list[State]:
    """Copies of a random match's states, one per decision."""
    state = initial_state(make_config(seed=seed, lineup=MIRROR))
    bot = RandomBot(seed)
    out: list[State] = []
    while (seat := to_act(state)) is not None and len(out) < limit:
        out.append(state.clone())
        execute(state, bot.choose(state, seat, legal_commands(state, seat)))
    return out


def test_greedy_takes_the_command_whose_planned_turn_ends_best_and_leaves_the_state_alone() -> None:
    scored_apart = 0
    for state in _states(seed=5)[::4]:
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        if len(legal) < 2:
            continue
        sample_seed, _ = rng.next_u64(rng.seed_state(1))  # GreedyBot(1)'s first draw
        values = {c: v for v, c in turn_values(view(state, seat), legal, sample_seed)}
        before = (state_hash(state), state.rng)
        chosen = GreedyBot(1).choose(state, seat, legal)
        assert (state_hash(state), state.rng) == before
        assert values[chosen] == max(values.values())
        scored_apart += len(set(values.values())) > 1
    assert scored_apart >= 10, "the planned turns tell commands apart"


def test_greedy_reads_nothing_the_seats_view_hides() -> None:
    """The deck's order, the other hands and the generator are hidden from the seat: the
    greedy bot chooses the same whatever they are."""
    compared = 0
    for state in _states(seed=8)[5::10]:
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        other = state.clone()
        other.rng ^= 0x5DEECE66D
        other.deck.reverse()
        hands = [s for s in other.seats.values() if s is not other.seats[seat]]
        if len(hands) > 1:
            hands[0].hand, hands[1].hand = hands[1].hand, hands[0].hand
        if view(other, seat) != view(state, seat):
            continue  # the swap showed something (hand sizes differ): not a hidden change
        assert GreedyBot(3).choose(other, seat, legal) == GreedyBot(3).choose(state, seat, legal)
        compared += 1
    assert compared >= 5


def test_greedy_is_reproducible_and_registered() -> None:
    state = _states(seed=2)[30]
    seat = to_act(state)
    assert seat is not None
    legal = legal_commands(state, seat)
    picks = {GreedyBot(9).choose(state, seat, legal) for _ in range(3)}
    assert len(picks) == 1
    assert isinstance(make_bot("greedy", 0), GreedyBot)
    assert isinstance(make_bot("greedy-view", 0), GreedyViewBot)
    assert GreedyViewBot(1).choose(state, seat, legal) in legal


def test_view_score_reads_only_public_facts() -> None:
    state = _states(seed=3)[20]
    data = view(state, Seat.A1)
    craft_card = next(cid for cid, c in catalog().items() if c.vp >= 2)
    craft = Command(CommandKind.CRAFT, Seat.A1, cards=(craft_card,))
    assert view_score(data, "A1", craft) >= 2 * POINT
    assert view_score(data, "A1", Command(CommandKind.END_PHASE, Seat.A1)) < 0
    own = Command(CommandKind.BATTLE, Seat.A1, clearing="autumn.hill", target="A2")
    assert view_score(data, "A1", own) == 0  # never attack a teammate


def test_wilson_interval() -> None:
    low, high = tournament.wilson(85, 100)
    assert 0.76 < low < 0.77 and 0.90 < high < 0.92  # the textbook values
    assert tournament.wilson(0, 10)[0] == 0.0 and tournament.wilson(10, 10)[1] == 1.0
    assert tournament.wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        tournament.wilson(11, 10)


def test_schedule_plays_each_seed_from_both_sides() -> None:
    games = tournament.schedule([MIRROR], ["greedy", "random"], 6, seed=40)
    assert [(g.bot_a, g.seed) for g in games] == [
        ("greedy", 40),
        ("random", 40),
        ("greedy", 41),
        ("random", 41),
        ("greedy", 42),
        ("random", 42),
    ]
    three = tournament.schedule([MIRROR], ["a", "b", "c"], 12, seed=0)
    pairs = {frozenset((g.bot_a, g.bot_b)) for g in three}
    assert len(pairs) == 3
    with pytest.raises(ValueError):
        tournament.schedule([MIRROR], ["greedy"], 2, seed=0)


def test_a_small_tournament_adds_up() -> None:
    out = io.StringIO()
    result = tournament.run([MIRROR], ["greedy", "random"], 4, seed=7, progress=ProgressBar(out))
    row = result.lineups[MIRROR]
    assert row.games == 4 and not row.errors
    for t in row.bots.values():
        assert t.games == 4 and t.wins + t.draws + t.losses == 4
    assert row.bots["greedy"].wins + row.bots["random"].wins + row.draws == 4
    assert "4/4 matches" in out.getvalue()
    text = report(result)
    assert "greedy" in text and "95% CI" in text
    assert json.loads(json.dumps(result.as_json()))["lineups"][MIRROR]["games"] == 4
