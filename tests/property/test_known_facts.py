"""The facts of a legal command known without playing it are the facts its events give.

``frontier.engine.score_preview.preview`` answers two kinds of command without playing them:
a plain move (no cost, no VP) and a command whose faction states its facts
(``FactionRules.known_facts``: the Marquise's builds).  Over random playouts of lineups with
every faction (two Eyries for the Decree's moves, an Alliance for Outrage, Vagabonds for the
contraband they carry and the Eyrie's wings), every legal command so answered is also
played on a copy of the state, and its events must say the same.  The playouts also check
that both sides are reached: moves and builds answered at once, and moves with a fee or
contraband left to their events.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.engine import initial_state, legal_commands, make_config, to_act
from frontier.engine.registry import rules_for
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
        known = rules_for(state.lineup[seat].faction).known_facts
        for cmd in legal:
            if plain_move(state, cmd):
                assert played(state, cmd) == NOTHING, cmd
                seen["plain"] += 1
            elif known is not None and (facts := known(state, cmd)) is not None:
                assert played(state, cmd) == facts, cmd
                seen["known"] += 1
            elif cmd.kind.value in ("march", "move", "decree_move"):
                seen["with fee or contraband"] += 1
        execute_as_decided(state, bot.choose(legal))


@pytest.mark.parametrize("lineup", LINEUPS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_facts_known_without_playing_are_what_playing_says(
    lineup: str, seed: int, bot_seed: int
) -> None:
    seen: Counter[str] = Counter()
    check_playout(lineup, seed, bot_seed, seen)
    assert seen["plain"] > 0 and seen["known"] > 0


def test_the_playouts_reach_both_sides_of_the_shortcuts() -> None:
    """Moves and builds answered without playing, and moves left to their events (a bridge
    fee, contraband carried along)."""
    seen: Counter[str] = Counter()
    for seed in range(3):
        check_playout(LINEUPS[0], seed, seed + 1, seen)
    assert seen["plain"] > 100 and seen["known"] > 10 and seen["with fee or contraband"] > 10, seen
