"""``play_remote``'s players: each seat's turn reaches a remote bot's strategy as the bot
would read it, so ``frontier stack play --bot`` plays exactly as that remote bot."""

from __future__ import annotations

from typing import Any

from frontier.bots import GreedyBot
from frontier.bots.sdk import make_strategy
from frontier.engine import Seat, execute, initial_state, legal_commands, make_config, to_act
from frontier.engine.rng import below, seed_state
from frontier.engine.view import view
from frontier.play.remote_match import _decision
from frontier.v1 import types_pb2
from frontier.wire.convert import command_to_proto

MIRROR = "A=marquise;B=marquise"


def _turn(seed: int) -> tuple[Seat, dict[str, Any], list[types_pb2.LegalCommand]]:
    state = initial_state(make_config(seed=seed, lineup=MIRROR))
    seat = to_act(state)
    assert seat is not None
    legal = [
        types_pb2.LegalCommand(id=f"c{i}", command=command_to_proto(c), label=f"label {i}")
        for i, c in enumerate(legal_commands(state, seat))
    ]
    return seat, view(state, seat), legal


def test_the_decision_carries_the_seat_its_view_and_every_legal_command() -> None:
    state = initial_state(make_config(seed=4, lineup=MIRROR))
    seat, seen, legal = _turn(4)
    commands = legal_commands(state, seat)
    decision = _decision(seat, seen, legal)
    assert decision.seat is seat and decision.view == seen
    assert [c.command for c in decision.legal] == commands
    assert [(c.id, c.label) for c in decision.legal] == [(p.id, p.label) for p in legal]
    assert decision.budget_ms == 0 and decision.deadline_unix_ms == 0


def test_greedy_picks_a_legal_id_and_random_draws_as_the_engine_generator() -> None:
    seat, seen, legal = _turn(9)
    decision = _decision(seat, seen, legal)
    ids = [c.id for c in legal]
    assert make_strategy("greedy", 1).choose(decision) in ids
    index, _ = below(seed_state(77), len(ids))
    assert make_strategy("random", 77).choose(decision) == ids[index]


def test_the_remote_greedy_bot_answers_as_the_in_process_greedy_bot_with_its_seed() -> None:
    """`frontier bot --kind greedy` is the server's greedy bot, not a weaker stand-in: the
    same seed picks the same command from the same view, decision after decision."""
    state = initial_state(make_config(seed=21, lineup="A=marquise,eyrie;B=marquise,alliance"))
    remote = make_strategy("greedy", 5)
    local = GreedyBot(5)
    choices = 0
    while choices < 12:
        seat = to_act(state)
        assert seat is not None
        commands = legal_commands(state, seat)
        legal = [
            types_pb2.LegalCommand(id=f"c{i}", command=command_to_proto(c))
            for i, c in enumerate(commands)
        ]
        answered = remote.choose(_decision(seat, view(state, seat), legal))
        chosen = local.choose(state, seat, commands)
        assert answered == f"c{commands.index(chosen)}"
        choices += len(commands) > 1
        execute(state, chosen)
