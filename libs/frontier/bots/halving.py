"""The halving search bot: every legal command played out on shared samples, the worse half
dropped round by round, the rival's answer inside the horizon.

Why not the tree of :mod:`frontier.bots.search`: a decision here is one command of a turn
that offers dozens (every march, battle, craft), and what is asked is the best of them,
not a good average over the ones tried (simple regret, not cumulative).  UCB1 spends its
budget on the commands that look good early; *sequential halving* (Karnin, Koren and
Somekh, 2013) spends it evenly on a shrinking set instead:

* **Rounds.**  The budget (playouts) is split over ``ceil(log2(n))`` rounds for ``n`` legal
  commands; a round plays every remaining command on the same fresh samples, then the
  worse half (by mean value over all its playouts so far) is dropped.  The last command
  standing is the answer.  A command that is noisy but good survives a round it would
  lose under UCB1 after two unlucky playouts.
* **Common random numbers.**  A sample is one determinization of the seat's view
  (:mod:`frontier.bots.determinize`: hidden hands, deck and ruins dealt from what the seat
  may see) and one seed for the rest of the playout; every command of the round is played
  on that same sample.  Two commands are then compared on the same cards and, as long as
  their playouts run alike, the same dice: the difference is the commands', not the
  luck's, and a few samples rank them.
* **The horizon** is the end of the *next* turn, a rival's (R3: the seats alternate
  teams): the own turn is finished by the playout policy's best command every time
  (:func:`frontier.bots.playout.best_ranked`, the greedy bot's plan of a turn), and the
  rival's turn is played by the playout policy with its share of uniform moves, so a plan
  that leaves a carrier, a roost or a workshop open to the next seat's battle pays for it.
  :func:`frontier.bots.team_evaluation.evaluate_team` then judges the position for the
  own team (the score, contraband on its way home, material by the rounds left, the
  Vagabonds' items, the Alliance's supporters and officers, the income of the roosts and
  sawmills).

Measured on the arena's six mirror lineups (docs/bots.md): it wins 46 of 48 matches against
greedy and 69 of 72 against ``search``, at a think time far below 1 s.

The budget is a playout count (reproducible: tournaments and tests use it) and, for a
remote bot on a clock, an optional wall-clock limit checked between playouts: when it runs
out, the best command by the means so far is answered.  Seeded: one SplitMix64 stream in
the bot deals the samples, so the same view, legal list and seed give the same command.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

from frontier.engine import Command, Seat, State, legal_commands, rng, to_act
from frontier.engine.decide import execute_chosen
from frontier.engine.model import Team
from frontier.engine.view import view

from .determinize import ViewModel
from .playout import best_ranked, policy_choice
from .team_evaluation import evaluate_team

DEFAULT_PLAYOUTS = 512  # a decision's budget: see docs/bots.md for the think time it costs
MAX_DEPTH = 160  # commands a playout plays at most (a safety net: the rival's turn ends first)
ANSWER_TURNS = 1  # whole turns after the own turn inside the horizon (the rival's answer)


class HalvingSearchBot:
    """Sequential halving over the legal commands (see the module docstring)."""

    __slots__ = ("_rng", "last_playouts", "playouts", "time_limit_ms")

    def __init__(
        self, seed: int, playouts: int = DEFAULT_PLAYOUTS, time_limit_ms: float | None = None
    ) -> None:
        if playouts < 1:
            raise ValueError(f"the halving search needs at least 1 playout, got {playouts}")
        if time_limit_ms is not None and time_limit_ms <= 0:
            raise ValueError(f"the time limit must be positive, got {time_limit_ms} ms")
        self._rng = rng.seed_state(seed)
        self.playouts = playouts
        self.time_limit_ms = time_limit_ms
        self.last_playouts = 0  # how many the last decision played (tests, measurements)

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        if len(legal) == 1:  # a forced move: no view to build
            self.last_playouts = 0
            return legal[0]
        return self.choose_from_view(view(state, seat), legal)

    def choose_from_view(
        self, data: Mapping[str, Any], legal: list[Command], time_limit_ms: float | None = None
    ) -> Command:
        """The command of ``legal`` that survives the halving, from the seat's view alone."""
        if not legal:
            raise ValueError("no legal command to choose from")
        self.last_playouts = 0
        if len(legal) == 1:
            return legal[0]
        model = ViewModel(data)
        team = model.viewer.team
        limit = self.time_limit_ms if time_limit_ms is None else time_limit_ms
        deadline = None if limit is None else time.monotonic() + limit / 1000.0
        alive = list(legal)
        totals = dict.fromkeys(alive, 0.0)
        counts = dict.fromkeys(alive, 0)
        per_round = self.playouts / math.ceil(math.log2(len(alive)))
        while len(alive) > 1:
            for _ in range(max(1, int(per_round // len(alive)))):
                if deadline is not None and self.last_playouts and time.monotonic() >= deadline:
                    # every command still in play has been played: the first sample plays
                    # them all, and a later round's survivors were played before
                    return max(alive, key=lambda c: totals[c] / counts[c])
                seed, self._rng = rng.next_u64(self._rng)
                sample = model.sample(seed)
                for cmd in alive:
                    totals[cmd] += _playout(sample.clone(), cmd, legal, seed, team)
                    counts[cmd] += 1
                    self.last_playouts += 1
            alive.sort(key=lambda c: -totals[c] / counts[c])  # stable: ties keep legal order
            alive = alive[: math.ceil(len(alive) / 2)] if len(alive) > 2 else alive[:1]
        return alive[0]


def _playout(state: State, cmd: Command, legal: list[Command], gen: int, team: Team) -> float:
    """``cmd`` on a sample, the rest of the own turn by the policy's best, the next turn by
    the policy; the position's value for ``team`` in points."""
    turn = (state.round, state.turn_seat)
    answers = ANSWER_TURNS
    own_turn = True
    _, current = execute_chosen(state, cmd, legal)
    for _ in range(MAX_DEPTH):
        actor = to_act(state)
        if actor is None:
            break
        if (state.round, state.turn_seat) != turn:
            if answers == 0:
                break
            answers -= 1
            turn = (state.round, state.turn_seat)
            own_turn = False
        options = current if current is not None else legal_commands(state, actor)
        if not options:
            break
        if own_turn and actor.team is team:
            chosen, gen = best_ranked(state, options, gen)
        else:
            chosen, gen = policy_choice(state, options, gen)
        _, current = execute_chosen(state, chosen, options)
    return evaluate_team(state, team)
