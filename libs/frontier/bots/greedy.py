"""Greedy bots: take the command that leaves the own team best placed, without a search.

Two variants, because they see different things:

* :class:`GreedyBot` (registry name ``greedy``) is the in-process bot of tournaments, of
  the server's bot seats and of the orchestrator's takeovers.  It plans the rest of its
  turn once per command: on one determinization of its seat's view
  (:mod:`frontier.bots.determinize`, the search's; nothing hidden is read), each legal
  command is played, the rest of the turn is played by the search's playout policy taking
  its best-ranked command every time (:func:`frontier.bots.playout.best_ranked`), and the
  position the turn ends in is judged by the search's leaf evaluation
  (:func:`frontier.bots.evaluation.evaluate`: team score, material weighted by the rounds
  left, contraband on its way home, bridges, stocks).  The command whose turn ends best
  wins.  Why the whole turn and not only the command: most commands score nothing by
  themselves (a march, a recruit, a card spent on a craft's cost), so a bot that judged
  the command alone broke those ties at random and played like the random bot for most of
  a turn; with the turn it sees the march that lets it battle, the recruit that lets it
  build.  Why one sample, a fixed policy and no tree: it is the cheap bot the server runs
  for every seat nobody else plays (about 10 ms a decision; the search bot is ``search``).
  The same sample and tie-break seed serve every command of a decision, so the commands are
  compared on the same cards and dice.
  A remote bot plays it too (``frontier bot --kind greedy``): :meth:`GreedyBot.choose_from_view`
  needs only the seat's view.
* :class:`GreedyViewBot` (registry name ``greedy-view``) looks at each command alone, with
  no look-ahead (:func:`view_score`): the public card catalogue gives a craft's points, the
  public board says whether a battle can win buildings, and building and ambushing are
  worth something.  It is the weaker yardstick a lobby or a takeover may still ask for.

Ties are broken by the bot's own seeded generator, so the bots stay reproducible, and
``END_PHASE`` carries a small penalty: with nothing better to do, act rather than pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from frontier.engine import Command, CommandKind, Seat, State, legal_commands, rng, to_act
from frontier.engine.cards import catalog
from frontier.engine.decide import execute_chosen
from frontier.engine.pieces import BUILDINGS, TOKENS, WARRIOR
from frontier.engine.view import view

from .determinize import ViewModel
from .evaluation import evaluate
from .playout import best_ranked

POINT = 100  # one victory point, in evaluation units
PIECE = 10  # one piece removed
PASS_PENALTY = 1  # END_PHASE when something else scores as much
TURN_LIMIT = 60  # commands a planned turn plays at most (a safety net: the turn ends first)


def _tie_break(best: list[Command], state: int) -> tuple[Command, int]:
    if len(best) == 1:
        return best[0], state
    index, state = rng.below(state, len(best))
    return best[index], state


def _pick(scored: Sequence[tuple[int, Command]], state: int) -> tuple[Command, int]:
    top = max(score for score, _ in scored)
    return _tie_break([cmd for score, cmd in scored if score == top], state)


class GreedyBot:
    """Plays each command's turn out with the playout policy and takes the best (see the
    module docstring)."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        self._rng = rng.seed_state(seed)

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError(f"no legal command to choose from for seat {seat.value}")
        if len(legal) == 1:
            return legal[0]
        return self.choose_from_view(view(state, seat), legal)

    def choose_from_view(self, data: Mapping[str, Any], legal: list[Command]) -> Command:
        """The greedy command among ``legal``, from the seat's view alone."""
        if not legal:
            raise ValueError("no legal command to choose from")
        if len(legal) == 1:
            return legal[0]
        seed, self._rng = rng.next_u64(self._rng)
        cmd, self._rng = _pick(turn_values(data, legal, seed), self._rng)
        return cmd


def turn_values(
    data: Mapping[str, Any], legal: list[Command], seed: int
) -> list[tuple[int, Command]]:
    """Each command of ``legal`` with the value of the turn it begins, in evaluation units
    (100 = one victory point) for the viewer's team: on the determinization ``seed`` deals
    from ``data``, the command, then the rest of the turn by the playout policy's best."""
    model = ViewModel(data)
    sample = model.sample(seed)
    team = model.viewer.team
    turn = (sample.round, sample.turn_seat)
    out = []
    for cmd in legal:
        state = sample.clone()
        _, current = execute_chosen(state, cmd, legal)
        gen = seed
        for _ in range(TURN_LIMIT):
            actor = to_act(state)
            if actor is None or (state.round, state.turn_seat) != turn:
                break
            options = current if current is not None else legal_commands(state, actor)
            if not options:
                break
            # the policy's best, never a uniform draw: the planned turn is the policy's
            # idea of a good turn, not a sample of it
            best, gen = best_ranked(state, options, gen)
            _, current = execute_chosen(state, best, options)
        penalty = PASS_PENALTY if cmd.kind is CommandKind.END_PHASE else 0
        out.append((round(POINT * evaluate(state, team)) - penalty, cmd))
    return out


def view_score(data: Mapping[str, Any], seat: str, cmd: Command) -> int:
    """A command's value judged from a seat's view alone, without playing anything out.

    Heuristics, in evaluation units (100 = one point): a craft is worth the card's printed
    points (public catalogue); a battle or strike against the rival team is worth the
    rival's buildings and tokens in that clearing when the own team has more warriors there;
    building is worth one point, recruiting and ambushing a little; ``END_PHASE`` costs a
    little.  Everything read here is in the view or in public static data.
    """
    kind = cmd.kind
    team = seat[:1]
    if kind is CommandKind.END_PHASE:
        return -PASS_PENALTY
    if kind is CommandKind.CRAFT and cmd.cards:
        card = catalog().get(cmd.cards[0])
        return POINT * card.vp + 5 if card is not None else 0
    if kind in (CommandKind.BUILD, CommandKind.DECREE_BUILD, CommandKind.PLACE_BUILDING):
        return POINT
    if kind in (CommandKind.RECRUIT, CommandKind.DECREE_RECRUIT):
        return 20
    if kind is CommandKind.AMBUSH:
        return 2 * PIECE
    if kind in (CommandKind.BATTLE, CommandKind.DECREE_BATTLE, CommandKind.STRIKE):
        if not cmd.target or cmd.target[:1] == team:
            return 0
        pieces = _clearing_pieces(data, cmd.clearing)
        ours = sum(k.get(WARRIOR, 0) for s, k in pieces.items() if s[:1] == team)
        theirs = sum(k.get(WARRIOR, 0) for s, k in pieces.items() if s[:1] != team)
        prize = sum(
            n
            for s, k in pieces.items()
            if s[:1] != team
            for piece, n in k.items()
            if piece in BUILDINGS or piece in TOKENS
        )
        if kind is CommandKind.STRIKE:
            return POINT if cmd.piece in BUILDINGS or cmd.piece in TOKENS else PIECE
        return POINT * prize + PIECE * min(ours, theirs) if ours > theirs else 0
    return 0


def _clearing_pieces(data: Mapping[str, Any], clearing: str) -> dict[str, dict[str, int]]:
    for entry in data.get("clearings", ()):
        if entry.get("id") == clearing:
            pieces: dict[str, dict[str, int]] = entry.get("pieces", {})
            return pieces
    return {}


class GreedyViewBot:
    """:func:`view_score` with seeded tie-breaks, on ``view(state, seat)`` (no look-ahead)."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        self._rng = rng.seed_state(seed)

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError(f"no legal command to choose from for seat {seat.value}")
        data = view(state, seat)
        scored = [(view_score(data, seat.value, cmd), cmd) for cmd in legal]
        cmd, self._rng = _pick(scored, self._rng)
        return cmd
