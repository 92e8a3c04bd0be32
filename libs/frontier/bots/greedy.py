"""Greedy bots: take the command that most raises the own team's score or hurts the rival's.

Two variants, because they see different things:

* :class:`GreedyBot` (registry name ``greedy``) is the in-process bot of tournaments and of
  the orchestrator's takeovers.  For each legal command it runs the owning domain's part of
  the pure engine (``apply_command``, the command and what it sets off at once, such as a
  battle) on a *copy* of the state and reads the events: points scored for its team minus
  points for the rival (the ``SCORED`` events), then rival pieces removed minus its own.
  What it uses: the full state, like every in-process bot (see :class:`frontier.bots.Bot`),
  but the copy's random generator is replaced by the bot's own, so it does not foresee the
  real dice or draws; it does see whether the defender's hidden hand holds an ambush (the
  battle then stops for that decision and scores nothing yet).  Nothing else of the hidden
  state influences its choice.
* :class:`GreedyViewBot` (registry name ``greedy-view``) decides from a seat's *view* only,
  which is all a remote bot has (``frontier bot --kind greedy`` runs the same
  :func:`view_score`): the public card catalogue gives a craft's points, the public board
  says whether a battle can win buildings, and building and ambushing are worth something.

Ties are broken by the bot's own seeded generator, so the bots stay reproducible, and
``END_PHASE`` carries a small penalty: with nothing better to do, act rather than pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from frontier.engine import Command, CommandKind, EventKind, Seat, State, rng
from frontier.engine.cards import catalog
from frontier.engine.ctx import Ctx
from frontier.engine.decide import apply_command
from frontier.engine.model import other_team
from frontier.engine.pieces import BUILDINGS, TOKENS, WARRIOR
from frontier.engine.view import view

POINT = 100  # one victory point, in evaluation units
PIECE = 10  # one piece removed
PASS_PENALTY = 1  # END_PHASE when something else scores as much


def _tie_break(best: list[Command], state: int) -> tuple[Command, int]:
    if len(best) == 1:
        return best[0], state
    index, state = rng.below(state, len(best))
    return best[index], state


def _pick(scored: Sequence[tuple[int, Command]], state: int) -> tuple[Command, int]:
    top = max(score for score, _ in scored)
    return _tie_break([cmd for score, cmd in scored if score == top], state)


class GreedyBot:
    """One-command lookahead with the pure engine (see the module docstring)."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        self._rng = rng.seed_state(seed)

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError(f"no legal command to choose from for seat {seat.value}")
        if len(legal) == 1:
            return legal[0]
        dice, self._rng = rng.next_u64(self._rng)
        scored = [(self.evaluate(state, seat, cmd, dice), cmd) for cmd in legal]
        cmd, self._rng = _pick(scored, self._rng)
        return cmd

    @staticmethod
    def evaluate(state: State, seat: Seat, cmd: Command, dice: int) -> int:
        """The value of ``cmd``'s immediate events for ``seat``'s team (higher is better)."""
        probe = state.clone()
        probe.rng = dice  # the bot's own randomness: no peeking at the real dice or draws
        ctx = Ctx(probe)
        apply_command(ctx, cmd)
        team = seat.team
        value = -PASS_PENALTY if cmd.kind is CommandKind.END_PHASE else 0
        for event in ctx.events:
            if event.kind is EventKind.SCORED:
                value += POINT * event.amount * (1 if event.target == team.value else -1)
            elif event.kind is EventKind.PIECES_REMOVED and event.seat:
                owner_team = Seat(event.seat).team
                value += PIECE * event.count * (1 if owner_team is other_team(team) else -1)
        return value


def view_score(data: Mapping[str, Any], seat: str, cmd: Command) -> int:
    """A command's value judged from a seat's view alone (what a remote bot can do).

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


class ViewGreedy:
    """:func:`view_score` with seeded tie-breaks, on a seat's view (shared with the SDK)."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        self._rng = rng.seed_state(seed)

    def choose_from_view(self, data: Mapping[str, Any], seat: str, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError(f"no legal command to choose from for seat {seat}")
        scored = [(view_score(data, seat, cmd), cmd) for cmd in legal]
        cmd, self._rng = _pick(scored, self._rng)
        return cmd


class GreedyViewBot:
    """The remote greedy bot's policy run in-process on ``view(state, seat)`` (fair play)."""

    __slots__ = ("_policy",)

    def __init__(self, seed: int) -> None:
        self._policy = ViewGreedy(seed)

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        return self._policy.choose_from_view(view(state, seat), seat.value, legal)
