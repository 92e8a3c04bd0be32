"""What the two crafting item stocks are worth (R10, R16): the search's reason to craft abroad.

A craft on the rival map scores the same printed points as one at home, later and at a risk
(the item must be carried home, R17), so on points alone a home craft always wins and the
search would craft abroad only by accident.  What makes the rival map worth crafting on is
the *supply*:

* **Each map has its own stock** (R10: 12 items, one coin pair, one crossbow, one hammer...)
  while the one shared deck holds more cards of almost every item (4 bag cards for 2 bags, 3
  coins cards for 2 coins, 2 crossbows for 1).  Measured in search self-play, a team crafts
  5 to 8 of its 12 home items in 6 rounds, and the team with the Eyrie runs out of some item
  of its home stock in most matches.  The *last* item of a kind in a team's home stock is therefore
  worth something to that team: once it is gone, every card of that item it draws can be
  crafted only on the rival map.  :func:`stock_value` counts it (and, less, the one before
  it), so a home craft of the last coins costs a little of the team's future, and a craft
  on the rival map that takes the rival's last coins denies the rival team that future.
* **Presence** on the rival map (a crafting piece there: a workshop, a roost, a sympathy
  token, or a Vagabond with a ready hammer standing there, R16) is the option to use that
  other stock.  It is worth only what the rival stock offers that the home stock no longer
  does: :func:`presence_value` pays for up to two pieces by the points of the best item that
  only the rival stock still holds, so early in the match (both stocks full) it is worth
  nothing, and the search is not drawn abroad before the home supply runs short.

Both terms read only public information (the stocks, the pieces, a Vagabond's items and
place), so a determinized state gives the same value whatever the sample, and both shrink
with the rounds left, as every other material term of :mod:`frontier.bots.evaluation`.
"""

from __future__ import annotations

from functools import cache

from frontier.engine.board import HOME_MAP, board
from frontier.engine.contraband import printed_item_vp
from frontier.engine.model import TEAM_OF, Faction, Item, Team, other_team
from frontier.engine.registry import rules_for
from frontier.engine.state import State
from frontier.engine.vagabond_state import VagabondState

LAST_ITEM = 0.3  # of an item's points: the last one of its kind in a team's home stock
SECOND_ITEM = 0.1  # ... the one before it
PRESENCE = 0.15  # of the best rival-only item's points, per crafting piece on the rival map
PRESENCE_CAP = 2  # pieces counted: a turn rarely crafts more than two cards


@cache
def _crafting_piece(faction: Faction) -> str:
    return rules_for(faction).crafting_piece


def stock_value(state: State, team: Team) -> float:
    """``team``'s advantage in what the two home stocks still offer (not yet weighted by the
    rounds left): the last and next-to-last item of each kind, by the item's points."""
    vp = printed_item_vp()
    value = 0.0
    for own in (team, other_team(team)):
        sign = 1.0 if own is team else -1.0
        for item, n in state.stock[HOME_MAP[own]].items():
            if n >= 1:
                value += sign * LAST_ITEM * vp[item]
            if n >= 2:
                value += sign * SECOND_ITEM * vp[item]
    return value


def rival_only_points(state: State, team: Team) -> int:
    """The points of the best item that the rival map's stock holds and ``team``'s home stock
    has run out of (0 when the home stock still offers every item the rival's does)."""
    home = state.stock[HOME_MAP[team]]
    rival = state.stock[HOME_MAP[other_team(team)]]
    vp = printed_item_vp()
    return max((vp[i] for i, n in rival.items() if n > 0 and home.get(i, 0) == 0), default=0)


def presence(state: State, team: Team) -> int:
    """``team``'s crafting pieces on the rival map, a Vagabond's ready hammers standing there
    included (each hammer crafts as one piece of its clearing, R16)."""
    rival_map = HOME_MAP[other_team(team)]
    b = board()
    count = 0
    for cid in b.on_map(rival_map):
        for seat, kinds in state.pieces[cid].items():
            if TEAM_OF[seat] is team:
                piece = _crafting_piece(state.lineup[seat].faction)
                if piece:
                    count += kinds.get(piece, 0)
    for seat, st in state.seats.items():
        extra = st.extra
        if TEAM_OF[seat] is team and isinstance(extra, VagabondState):
            here = extra.location
            if here in b.clearings and b.map_of(here) == rival_map:
                count += sum(1 for it in extra.items if it.item is Item.HAMMER and it.ready)
    return count


def presence_value(state: State, team: Team) -> float:
    """``team``'s advantage in the option to craft from the rival stock (not yet weighted by
    the rounds left): see the module docstring."""
    value = 0.0
    for own in (team, other_team(team)):
        points = rival_only_points(state, own)
        if points:
            sign = 1.0 if own is team else -1.0
            value += sign * PRESENCE * points * min(PRESENCE_CAP, presence(state, own))
    return value
