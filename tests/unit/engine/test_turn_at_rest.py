"""``turn.at_rest`` is exactly "advance() would do nothing": the orchestrator relies on it to
skip the turn-order round trip, so a wrong answer would make the server and the engine
differ."""

from __future__ import annotations

import pytest

from frontier.engine import initial_state, legal_commands, make_config, rng, to_act
from frontier.engine.ctx import Ctx
from frontier.engine.decide import advance, apply_command, finish
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.turn import at_rest


@pytest.mark.parametrize("lineup", ["A=marquise;B=marquise", R2_DEFAULT_LINEUP])
def test_at_rest_holds_exactly_when_advance_emits_nothing(lineup: str) -> None:
    rested = moved = 0
    for seed in range(6):
        state = initial_state(make_config(seed=seed, lineup=lineup))
        chooser = rng.seed_state(seed)
        while (seat := to_act(state)) is not None:
            legal = legal_commands(state, seat)
            index, chooser = rng.below(chooser, len(legal))
            ctx = Ctx(state)
            apply_command(ctx, legal[index])
            rest, commands = at_rest(state)
            if commands is not None:
                assert rest and state.turn_seat is not None
                assert commands == legal_commands(state, state.turn_seat)
            before = len(ctx.events)
            advance(ctx)
            assert rest == (len(ctx.events) == before), (seed, state.step)
            rested += rest
            moved += not rest
            finish(ctx)
    assert rested > 0 and moved > 0
