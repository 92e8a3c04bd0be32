"""How good a state is for one team, in victory points: the search bot's leaf evaluation.

The search plays a few commands ahead and then has to judge a position it did not play
out to the end.  The judgement knows the variant:

* **the team score** (R32: the seats' points add up for their team), and the match result
  once it is over;
* **the 6-round horizon**: pieces and cards are worth points only while there are turns
  left to use them, so their weight shrinks with the rounds left (in the last round, only
  points count);
* **contraband in transit** (R16-R21): an own item carried by own warriors (or in the own
  Vagabond's Satchel) is worth a share of the points it scores once carried home, the larger
  the fewer steps its carrier still has to go to a Border Bridge onto the home map
  (:func:`steps_home`): the search's horizon is one turn, and this gradient is what leads a
  carrier home over several turns; an own dropped item is worth less (the rival may seize
  it), and a rival item dropped on the team's home map is a point to seize.  A Vagabond's
  Satchel is safer than a warrior (the pawn is never removed, R20): its contraband is worth
  more at the same distance (:func:`satchel_share`).  In the last round an item still
  abroad is worth almost nothing (:func:`transit_time`): it will not get home;
* **the two item stocks** (R10, R16; :mod:`frontier.bots.supply`): the last items of a kind
  in a team's home stock, and crafting pieces on the rival map while its stock holds what
  the home stock has run out of: the reason to craft on the rival map at all;
* **the Border Bridges** (R6): holding a bridge clearing keeps the way home open;
* the usual Root material: buildings (they score each turn), tokens, warriors, cards.

The weights are few and round on purpose: the search's playouts do the fine work, the
evaluation only has to rank the positions they end in.  Everything read here is in the
seat's view (scores, pieces, hand sizes, contraband, the round), so a determinized state
gives the same value whatever the sample.
"""

from __future__ import annotations

from functools import cache

from frontier.engine.board import BRIDGES, HOME_MAP, board
from frontier.engine.contraband import printed_item_vp
from frontier.engine.model import TEAM_OF, Team, other_team
from frontier.engine.pieces import BUILDINGS, TOKENS, WARRIOR
from frontier.engine.state import State
from frontier.engine.vagabond_state import VagabondState

from .supply import presence_value, stock_value

WIN = 50.0  # a won match, on top of the final score difference
BUILDING = 1.0  # a building on the map, at the start of the match
TOKEN = 0.5
WARRIOR_VALUE = 0.3
CARD = 0.35
CARRIED_ON_BRIDGE = 0.8  # of an own contraband item's points, its carrier one step from home
CARRIED_STEP = 0.1  # ... less for each further step to go
CARRIED_MIN = 0.3  # ... but never less than this
SATCHEL_ON_BRIDGE = 0.9  # the same for an item in the own Vagabond's Satchel (R20)...
SATCHEL_STEP = 0.05
SATCHEL_MIN = 0.6
LAST_ROUND_TRANSIT = 0.1  # what is left of an item's value in transit in the last round
DROPPED = 0.2  # of an own item's points, lying in a clearing
SEIZABLE = 0.4  # a rival item on the own home map: 1 point to seize (R19)
BRIDGE = 0.4  # holding a bridge clearing (more own warriors there than the rival's)

_BRIDGE_CLEARINGS: frozenset[str] = frozenset(c for pair in BRIDGES for c in pair)


def horizon(state: State) -> float:
    """The share of the match still to play, 1.0 at the start and small in the last round."""
    total = max(1, state.options.max_rounds)
    left = total - max(state.round, 1) + 1
    return max(0.1, left / total)


def evaluate(state: State, team: Team) -> float:
    """``team``'s advantage in victory points (positive: ahead)."""
    rival = other_team(team)
    value = float(state.scores.get(team, 0) - state.scores.get(rival, 0))
    if state.over:
        if state.winner == team.value:
            return value + WIN
        if state.winner == rival.value:
            return value - WIN
        return value
    h = horizon(state)
    material = 0.0
    bridges = 0.0
    for cid, per_seat in state.pieces.items():
        ours = theirs = 0
        for seat, kinds in per_seat.items():
            sign = 1.0 if TEAM_OF[seat] is team else -1.0
            for kind, n in kinds.items():
                if not n:
                    continue
                if kind == WARRIOR:
                    material += sign * WARRIOR_VALUE * n
                    if sign > 0:
                        ours += n
                    else:
                        theirs += n
                elif kind in BUILDINGS:
                    material += sign * BUILDING * n
                elif kind in TOKENS:
                    material += sign * TOKEN * n
        if cid in _BRIDGE_CLEARINGS and ours != theirs:
            bridges += BRIDGE if ours > theirs else -BRIDGE
    for seat, st in state.seats.items():
        sign = 1.0 if TEAM_OF[seat] is team else -1.0
        material += sign * CARD * len(st.hand)
    supply = stock_value(state, team) + presence_value(state, team)
    return value + h * (material + bridges + supply) + _contraband(state, team)


@cache
def steps_home(team: Team) -> dict[str, int]:
    """Each place's distance, in moves, to a crossing onto ``team``'s home map: 0 on the
    rival map's end of a Border Bridge, a forest one more than its nearest clearing (a
    Vagabond's pawn), the home map's clearings via the bridges (a rival item carried there
    still has to leave and come back: it is rare and far)."""
    b = board()
    home = HOME_MAP[team]
    starts = [end for pair in BRIDGES for end in pair if b.map_of(end) != home]
    dist = dict.fromkeys(starts, 0)
    frontier = list(starts)
    while frontier:
        nxt = []
        for cid in frontier:
            for other in b.adjacent[cid]:
                if other not in dist:
                    dist[other] = dist[cid] + 1
                    nxt.append(other)
        frontier = nxt
    for forest, around in b.forests.items():
        dist[forest] = 1 + min(dist[c] for c in around)
    return dist


def carried_share(team: Team, place: str) -> float:
    """The share of an own item's points that the item is worth where its carrier stands."""
    return _share_home(team, place, CARRIED_ON_BRIDGE, CARRIED_STEP, CARRIED_MIN)


def satchel_share(team: Team, place: str) -> float:
    """The share of an own item's points that it is worth in the own Vagabond's Satchel."""
    return _share_home(team, place, SATCHEL_ON_BRIDGE, SATCHEL_STEP, SATCHEL_MIN)


def _share_home(team: Team, place: str, on_bridge: float, step: float, least: float) -> float:
    """``on_bridge`` one step from home, ``step`` less for each further step, never below
    ``least``: the one curve both carriers follow, with their own constants."""
    steps = steps_home(team).get(place, 0)
    return max(least, on_bridge - step * steps)


def transit_time(state: State) -> float:
    """How much an item still on its way is worth for the time left: in full before the
    last round; in the last round almost nothing, since a carrier left abroad when its turn
    ends gets no other turn to cross home (the search sees a crossing within the turn)."""
    return 1.0 if state.round < state.options.max_rounds else LAST_ROUND_TRANSIT


def _contraband(state: State, team: Team) -> float:
    """Points on the way: own items carried or dropped, rival items to seize (R16-R21)."""
    vp = printed_item_vp()
    value = 0.0
    time_left = transit_time(state)
    for cid, per_seat in state.carried.items():
        for seat, items in per_seat.items():
            for d in items:
                share = carried_share(d.team, cid)
                if TEAM_OF[seat] is not d.team:
                    share = DROPPED  # a rival carries it: it drops when that carrier falls
                sign = 1.0 if d.team is team else -1.0
                value += sign * time_left * share * vp[d.item]
    for seat, st in state.seats.items():  # a Vagabond's own contraband in its Satchel (R20)
        if isinstance(st.extra, VagabondState):
            own = TEAM_OF[seat]
            sign = 1.0 if own is team else -1.0
            share = satchel_share(own, st.extra.location)
            value += (
                sign * time_left * share * sum(vp[i.item] for i in st.extra.items if i.contraband)
            )
    home = HOME_MAP
    b = board()
    for cid, items in state.dropped.items():
        for d in items:
            sign = 1.0 if d.team is team else -1.0
            value += sign * time_left * DROPPED * vp[d.item]
            seizer = other_team(d.team)
            if b.map_of(cid) == home[seizer]:
                value += SEIZABLE if seizer is team else -SEIZABLE
    return value
