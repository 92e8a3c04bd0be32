"""The search bot's playout policy: a cheap, slightly random greedy for every seat.

A playout continues a determinized state for a few dozen commands, so its policy must cost
about what the engine costs per command: it may not look ahead (that is what the tree is
for).  It ranks the legal commands by what they obviously do, from the command and the
board alone: crafting scores the card's points, building and revolting put scoring pieces
down, a battle where the own team outnumbers the rival wins its buildings and tokens,
carrying contraband toward a Border Bridge or home (R16-R17), collecting and seizing it
(R18-R19), recruiting, questing, exploring; ending a phase comes last.  A share of the
moves is uniform, so the playouts of one root command spread over what may happen.  The
greedy bot (greedy.py) plans its turns with the same ranking, taking its best command
every time (:func:`best_ranked`), never a uniform one.
"""

from __future__ import annotations

from frontier.engine import Command, CommandKind, State, rng
from frontier.engine.board import BRIDGES, HOME_MAP, board
from frontier.engine.cards import catalog
from frontier.engine.model import TEAM_OF, seat_named
from frontier.engine.pieces import BUILDINGS, TOKENS, WARRIOR

EXPLORE_ONE_IN = 8  # one move in this many is uniform
_BRIDGE_CLEARINGS: frozenset[str] = frozenset(c for pair in BRIDGES for c in pair)

_FLAT: dict[CommandKind, int] = {
    CommandKind.END_PHASE: -1,
    CommandKind.BUILD: 100,
    CommandKind.DECREE_BUILD: 100,
    CommandKind.PLACE_BUILDING: 100,
    CommandKind.PLACE_ROOST: 100,
    CommandKind.REVOLT: 150,
    CommandKind.SPREAD_SYMPATHY: 60,
    CommandKind.ORGANIZE: 60,
    CommandKind.SEIZE: 100,
    CommandKind.COLLECT: 40,
    CommandKind.QUEST: 100,
    CommandKind.EXPLORE: 60,
    CommandKind.AID: 30,
    CommandKind.RECRUIT: 20,
    CommandKind.DECREE_RECRUIT: 20,
    CommandKind.TRAIN: 20,
    CommandKind.MOBILIZE: 10,
    CommandKind.AMBUSH: 20,
    CommandKind.PICK_UP: 40,
}
_FIGHTS = frozenset((CommandKind.BATTLE, CommandKind.DECREE_BATTLE, CommandKind.STRIKE))
_MOVES = frozenset(
    (CommandKind.MARCH, CommandKind.DECREE_MOVE, CommandKind.MOVE, CommandKind.COBBLER)
)


def command_value(state: State, cmd: Command) -> int:
    """How good ``cmd`` obviously is for its seat (see the module docstring)."""
    kind = cmd.kind
    if kind is CommandKind.CRAFT and cmd.cards:
        card = catalog().get(cmd.cards[0])
        return 100 * card.vp + 5 if card is not None else 0
    if kind in _FIGHTS:
        return _fight_value(state, cmd)
    if kind in _MOVES and cmd.clearings:  # contraband goes along (R17)
        team = TEAM_OF[cmd.seat]
        if cmd.to in _BRIDGE_CLEARINGS or board().map_of(cmd.to) == HOME_MAP[team]:
            return 50
        return 10
    return _FLAT.get(kind, 0)


def _fight_value(state: State, cmd: Command) -> int:
    if not cmd.target:
        return 0
    enemy = seat_named(cmd.target)
    team = TEAM_OF[cmd.seat]
    if TEAM_OF[enemy] is team:
        return -50
    if cmd.kind is CommandKind.STRIKE:
        return 100 if cmd.piece in BUILDINGS or cmd.piece in TOKENS else 10
    ours = theirs = prize = 0
    for seat, kinds in state.pieces[cmd.clearing].items():
        if TEAM_OF[seat] is team:
            ours += kinds.get(WARRIOR, 0)
        else:
            theirs += kinds.get(WARRIOR, 0)
            if seat is enemy:
                prize += sum(n for k, n in kinds.items() if k in BUILDINGS or k in TOKENS)
    if ours <= theirs:
        return 0
    return 100 * prize + 10 * min(ours - theirs, 3) + 5


def policy_choice(state: State, legal: list[Command], gen: int) -> tuple[Command, int]:
    """The playout's command among ``legal`` (not empty) and the generator's next state."""
    if len(legal) == 1:
        return legal[0], gen
    draw, gen = rng.below(gen, EXPLORE_ONE_IN * len(legal))
    if draw < len(legal):
        return legal[draw], gen
    return best_ranked(state, legal, gen)


def best_ranked(state: State, legal: list[Command], gen: int) -> tuple[Command, int]:
    """The command of ``legal`` (not empty) that :func:`command_value` ranks highest, ties
    drawn from ``gen``; and the generator's next state."""
    if len(legal) == 1:
        return legal[0], gen
    best: list[Command] = []
    top = -(10**9)
    for cmd in legal:
        value = command_value(state, cmd)
        if value > top:
            top, best = value, [cmd]
        elif value == top:
            best.append(cmd)
    if len(best) == 1:
        return best[0], gen
    index, gen = rng.below(gen, len(best))
    return best[index], gen
