"""A plain move costs and scores nothing: the one kind of command whose preview is not read
from its events (``frontier.engine.score_preview.plain_move``) is checked here against them.

Over random playouts of lineups with every faction (two Eyries for the Decree's moves, an
Alliance for Outrage, Vagabonds for the contraband they carry and the Eyrie's wings), every
legal command the shortcut calls a plain move is played on a copy of the state, and its
events say what the shortcut says: no cost, no VP.  Every other command still has a chance
to be a move with a fee or contraband (their previews are read from their events), and
the playouts check that such moves do reach the lists.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.engine import initial_state, legal_commands, make_config, to_act
from frontier.engine.score_preview import NOTHING, plain_move, played
from tests.engine_helpers import KindFirstBot, execute_as_decided

LINEUPS = (
    "A=marquise,eyrie,thief;B=marquise,alliance,tinker",
    "A=marquise,alliance,ranger;B=marquise,eyrie,thief",
    "A=marquise,eyrie;B=marquise,eyrie",
)
SEEDS = st.integers(min_value=0, max_value=2**62)
COMMANDS = 400  # commands played per playout (a few rounds)


def check_playout(lineup: str, seed: int, bot_seed: int, seen: Counter[str]) -> None:
    state = initial_state(make_config(seed=seed, lineup=lineup))
    bot = KindFirstBot(bot_seed, 3)
    for _ in range(COMMANDS):
        if state.over:
            return
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        for cmd in legal:
            if plain_move(state, cmd):
                assert played(state, cmd) == NOTHING, cmd
                seen["plain"] += 1
            elif cmd.kind.value in ("march", "move", "decree_move"):
                seen["with fee or contraband"] += 1
        execute_as_decided(state, bot.choose(legal))


@pytest.mark.parametrize("lineup", LINEUPS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_a_plain_move_costs_and_scores_nothing_as_its_events_say(
    lineup: str, seed: int, bot_seed: int
) -> None:
    seen: Counter[str] = Counter()
    check_playout(lineup, seed, bot_seed, seen)
    assert seen["plain"] > 0


def test_moves_with_a_fee_or_contraband_are_played_for_their_facts() -> None:
    """The playouts reach both sides of the shortcut: moves it answers and moves it leaves
    to their events (a bridge fee, contraband carried along)."""
    seen: Counter[str] = Counter()
    for seed in range(3):
        check_playout(LINEUPS[0], seed, seed + 1, seen)
    assert seen["plain"] > 100 and seen["with fee or contraband"] > 10, seen
