"""The search bot: information-set Monte Carlo tree search over the pure engine.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012), sized for the variant:

* **Determinizations.**  Each iteration deals a fresh state from the seat's *view*
  (:mod:`frontier.bots.determinize`): hidden hands, supporters, deck, ruins and quests are
  sampled, the true ones are never read.  The in-process bot builds ``view(state, seat)``
  first, so in-process and remote play run the same search on the same information.
* **The tree** holds the seat's own decisions of the current turn, keyed by command (the
  seat's own knowledge is the same in every determinization, so its commands are too); a
  child's availability counts the iterations where it was legal, and selection is UCB1
  over the available children with that count (the ISMCTS rule), widened progressively:
  the playout policy ranks a node's commands and only the best few compete, more as its
  visits grow (:func:`_select`).  Other seats' decisions inside the horizon (an ambush,
  Field Hospitals, Outrage) are played by the playout policy, as chance.
* **The horizon** is the end of the turn after the current one (or ``max_depth``
  commands): the own turn is where a plan is made (move, then battle, then craft), and
  the next seat's turn, played by the playout policy, is the rival's answer to it.  Then
  :func:`frontier.bots.team_evaluation.evaluate_team` judges the position in points: team
  score, contraband in transit, bridges, the Vagabonds' items, the Alliance's supporters
  and officers, the income of the roosts and sawmills, and material weighted by the rounds
  left of the 6.
* **Two styles, one loop.** The registry's ``search`` (:data:`BASELINE`, 64 iterations) has
  neither widening nor the extra turn and is judged by
  :func:`frontier.bots.evaluation.evaluate`; ``search-team`` (:data:`TEAM`, 128 iterations)
  is the loop described above.  ``search`` stays the default and the arena's entrant
  because ``search-team`` has not yet shown an edge over it that its interval supports
  (docs/bots.md has the head-to-head figures).
* **The budget** is an iteration count (reproducible: the tournament and the tests use it)
  and, optionally, a wall-clock limit; a remote bot takes the limit from the decision's
  ``budget_ms`` (see :func:`time_limit_ms`), so it answers well inside the match clock.

Seeded: one SplitMix64 stream in the bot deals the determinizations and drives the
playouts, so the same view, legal list and seed give the same command.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from frontier.engine import Command, Seat, State, legal_commands, rng, to_act
from frontier.engine.decide import execute_chosen
from frontier.engine.model import Team
from frontier.engine.view import view

from .determinize import ViewModel
from .evaluation import evaluate
from .playout import command_value, policy_choice
from .team_evaluation import evaluate_team

DEFAULT_ITERATIONS = 64  # the registry's "search": about 0.1 s a decision on one core
TEAM_ITERATIONS = 128  # "search-team" (see docs/bots.md for its think time)
MAX_DEPTH = 80  # commands per iteration, a safety net: the turn's end comes first
WIDEN_BASE = 4  # children competing at a new node (progressive widening)...
WIDEN_RATE = 1.5  # ... and this many more per square root of its visits
EXPLORATION = 1.5  # UCB1's constant, in points (the evaluation's unit)
CLOCK_SHARE = 0.6  # of the decision's budget_ms a remote bot spends thinking
CLOCK_MARGIN_MS = 150  # kept for the answer's trip back to the server


@dataclass(frozen=True, slots=True)
class SearchStyle:
    """What a search does besides its budget: the baseline and the team search differ
    only here, so both run the one search loop.

    ``widening`` ranks a node's commands by the playout policy and lets only the best few
    compete (more as visits grow); ``extra_turns`` plays that many whole turns after the
    current one with the playout policy before judging (the rival's answer to a plan);
    ``evaluator`` judges the position at the horizon for a team, in points.
    """

    widening: bool
    extra_turns: int
    evaluator: Callable[[State, Team], float]
    max_depth: int = MAX_DEPTH


BASELINE = SearchStyle(widening=False, extra_turns=0, evaluator=evaluate)
TEAM = SearchStyle(widening=True, extra_turns=1, evaluator=evaluate_team, max_depth=160)


class _Node:
    """One of the seat's own decisions in the tree: visits, summed value, availability."""

    __slots__ = ("available", "children", "prior", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Command, _Node] = {}
        self.visits = 0
        self.available = 1
        self.total = 0.0
        self.prior = 0  # the playout policy's rank of the command (widening only)

    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


def time_limit_ms(budget_ms: int, reserve_ms: int, own_limit_ms: float | None) -> float | None:
    """The thinking time for a decision on the match clock (None: no wall-clock limit).

    A share of the decision's budget, less a margin for the answer's trip; the reserve is
    left alone (it is what saves the seat from a strike when the machine is slow).  With no
    clock (``budget_ms`` 0) the bot's own limit applies alone.
    """
    if budget_ms <= 0:
        return own_limit_ms
    clock = max(1.0, budget_ms * CLOCK_SHARE - CLOCK_MARGIN_MS)
    return clock if own_limit_ms is None else min(clock, own_limit_ms)


class SearchBot:
    """ISMCTS on determinizations of the seat's view (see the module docstring)."""

    __slots__ = ("_rng", "iterations", "last_iterations", "style", "time_limit_ms")

    def __init__(
        self,
        seed: int,
        iterations: int = DEFAULT_ITERATIONS,
        time_limit_ms: float | None = None,
        style: SearchStyle = BASELINE,
    ) -> None:
        if iterations < 1:
            raise ValueError(f"the search needs at least 1 iteration, got {iterations}")
        if time_limit_ms is not None and time_limit_ms <= 0:
            raise ValueError(f"the time limit must be positive, got {time_limit_ms} ms")
        self._rng = rng.seed_state(seed)
        self.iterations = iterations
        self.time_limit_ms = time_limit_ms
        self.style = style
        self.last_iterations = 0  # how many the last decision ran (tests, measurements)

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError(f"no legal command to choose from for seat {seat.value}")
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        return self.choose_from_view(view(state, seat), legal)

    def choose_from_view(
        self, data: Mapping[str, Any], legal: list[Command], time_limit_ms: float | None = None
    ) -> Command:
        """The search's command among ``legal``, from the seat's view alone."""
        if not legal:
            raise ValueError("no legal command to choose from")
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        model = ViewModel(data)
        limit = self.time_limit_ms if time_limit_ms is None else time_limit_ms
        deadline = None if limit is None else time.monotonic() + limit / 1000.0
        root = _Node()
        done = 0
        while done < self.iterations:
            if deadline is not None and done and time.monotonic() >= deadline:
                break
            sample_seed, self._rng = rng.next_u64(self._rng)
            self._iterate(root, model.sample(sample_seed), model.viewer, legal, sample_seed)
            done += 1
        self.last_iterations = done
        empty = _Node()
        return max(
            legal,
            key=lambda c: (root.children.get(c, empty).visits, root.children.get(c, empty).mean()),
        )

    def _iterate(
        self, root: _Node, state: State, seat: Seat, legal: list[Command], gen: int
    ) -> None:
        """One iteration: select and expand in the tree, play out to the horizon, back up."""
        style = self.style
        turn = (state.round, state.turn_seat)
        turns_left = style.extra_turns  # whole turns played out after the current one
        node: _Node | None = root
        path = [root]
        current: list[Command] | None = legal
        for _ in range(style.max_depth):
            actor = to_act(state)
            if actor is None:
                break
            if (state.round, state.turn_seat) != turn:
                if turns_left == 0:
                    break
                turns_left -= 1
                turn = (state.round, state.turn_seat)
                node = None  # the tree holds the current turn; later turns are playout
            options = current if current is not None else legal_commands(state, actor)
            if not options:
                break
            if node is not None and actor is seat:
                cmd, node, gen = _select(node, state, options, gen, style.widening)
                path.append(node)
                if node.visits == 0:
                    node = None  # expanded one new node: the rest is playout
            else:
                cmd, gen = policy_choice(state, options, gen)
            _, current = execute_chosen(state, cmd, options)
        value = style.evaluator(state, seat.team)
        for visited in path:
            visited.visits += 1
            visited.total += value


def _select(
    node: _Node, state: State, options: list[Command], gen: int, widening: bool
) -> tuple[Command, _Node, int]:
    """ISMCTS selection among the available children; an untried command first.

    With ``widening``, only the ``_width(visits)`` children the playout policy ranks highest
    compete (progressive widening): a turn offers dozens of marches, and a budget of a
    hundred iterations spread over all of them samples each once, so the best single
    playout would win; the policy's ranking (ties broken by a draw made when the child is
    first seen) decides which commands enter first, and more enter as the node's visits grow.
    """
    for cmd in options:
        child = node.children.get(cmd)
        if child is None:
            node.children[cmd] = child = _Node()
            if widening:
                tie, gen = rng.below(gen, 1 << 16)
                child.prior = command_value(state, cmd) * (1 << 16) + tie
        else:
            child.available += 1
    if widening and len(options) > 1:
        ranked = sorted(options, key=lambda c: -node.children[c].prior)
        options = ranked[: _width(node.visits)]
    untried = [cmd for cmd in options if node.children[cmd].visits == 0]
    if untried:
        if widening:
            cmd = untried[0]
        else:
            cmd, gen = policy_choice(state, untried, gen)
        return cmd, node.children[cmd], gen
    best: Command | None = None
    best_value = -math.inf
    for cmd in options:
        child = node.children[cmd]
        value = child.mean() + EXPLORATION * math.sqrt(math.log(child.available) / child.visits)
        if value > best_value:
            best, best_value = cmd, value
    assert best is not None
    return best, node.children[best], gen


def _width(visits: int) -> int:
    """How many children compete at a node visited ``visits`` times (progressive widening)."""
    return WIDEN_BASE + int(WIDEN_RATE * math.sqrt(visits))
