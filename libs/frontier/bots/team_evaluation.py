"""The leaf evaluation of the searches that look at the team (``search-halving``,
``search-team``): the team's position, items and prospects included.

:func:`frontier.bots.evaluation.evaluate` judges the team score, contraband in transit,
bridges, stocks and material.  What it leaves out, and the search then cannot weigh:

* **a Vagabond's items** (R15, R27-R29): its items are its pieces.  Each one it can use is
  worth something, a damaged one less, an exhausted one a little less again (it waits for
  a refresh).  Without this an intervention (exhausting a sword or boots, R15) and a lost
  item cost the search nothing and gain nothing it can see beyond the one battle.
  Contraband in the Satchel is left out here: its worth is the points it carries home.
* **the Alliance's supporters and officers** (base Root §11, R12): the Alliance spends
  supporters in Birdsong (spreading sympathy, revolting) and gains them in Daylight
  (mobilizing a hand card), so a supporter gained this turn pays only in the next one,
  beyond the search's horizon.  Without a value for it, mobilizing is a card lost from the
  hand and nothing gained, the search never mobilizes, and its Alliance starves: it scored
  about 7 VP a match against greedy's 9.  A supporter is worth more than the card it was
  (it buys sympathy, the Alliance's points), an officer a little less (one more military
  operation each Evening of the rounds left).  With them its Alliance scores about 20.
* **the income of the Eyrie's roosts and the Marquise's sawmills** (base Root §8-9): a
  roost scores on the Roost track every Evening and a sawmill yields a wood every Birdsong
  (the Marquise's buildings, and so its points, are paid in wood), but the search sees
  one Evening and no Birdsong of its own.  A building is worth :data:`evaluation.BUILDING`
  whatever it brings, so a sawmill placed was worth no more than a recruiter and its wood
  was never counted: the search's Marquise scored as greedy's, about 20 VP a match.  Each
  round after this one, a roost is worth half its Evening points (a share of them fall to
  battles first) and a sawmill a quarter point.

Everything read here is in the seat's view (items, scoring tracks, pieces on the map and
the number of supporters are public).
"""

from __future__ import annotations

from frontier.engine.factions.eyrie_board import ROOST_VP, roosts_on_map
from frontier.engine.factions.marquise import placed
from frontier.engine.model import TEAM_OF, Faction, Team
from frontier.engine.pieces import SAWMILL
from frontier.engine.state import State
from frontier.engine.sympathy import AllianceState
from frontier.engine.vagabond_state import VagabondState

from .evaluation import evaluate, horizon

ITEM_READY = 0.45  # an undamaged, ready item of a Vagabond, at the start of the match
ITEM_EXHAUSTED = 0.35  # ... exhausted: it waits for a refresh
ITEM_DAMAGED = 0.15  # ... damaged: it waits for a repair
SUPPORTER = 0.6  # a card on the Alliance's supporters (a card in hand: evaluation.CARD)
OFFICER = 0.5  # an officer in the Alliance's Officers box
ROOST_KEPT = 0.5  # of the roosts' Evening points, for each round after this one
SAWMILL_ROUND = 0.25  # a sawmill on the map, for each round after this one (its wood)


def item_value(state: State, team: Team) -> float:
    """``team``'s Vagabond items less the rival's, weighted by the rounds left."""
    value = 0.0
    for seat, st in state.seats.items():
        if not isinstance(st.extra, VagabondState):
            continue
        sign = 1.0 if TEAM_OF[seat] is team else -1.0
        for item in st.extra.items:
            if item.contraband:
                continue
            if item.damaged:
                value += sign * ITEM_DAMAGED
            elif item.exhausted:
                value += sign * ITEM_EXHAUSTED
            else:
                value += sign * ITEM_READY
    return value * horizon(state)


def alliance_value(state: State, team: Team) -> float:
    """``team``'s Alliance supporters and officers less the rival's, weighted by the rounds
    left (the count of supporters is public; which cards they are is not read)."""
    value = 0.0
    for seat, st in state.seats.items():
        if isinstance(st.extra, AllianceState):
            sign = 1.0 if TEAM_OF[seat] is team else -1.0
            value += sign * (SUPPORTER * len(st.extra.supporters) + OFFICER * st.extra.officers)
    return value * horizon(state)


def income_value(state: State, team: Team) -> float:
    """What ``team``'s roosts and sawmills bring in the rounds after this one, less the
    rival's: the Roost track's Evening points (the track pays by the number of roosts, so
    the next roost is worth its step of the track) and a wood per sawmill."""
    rounds = max(0, state.options.max_rounds - state.round)
    value = 0.0
    for seat, st in state.seats.items():
        sign = 1.0 if TEAM_OF[seat] is team else -1.0
        if st.faction is Faction.EYRIE:
            value += sign * ROOST_KEPT * ROOST_VP[roosts_on_map(state, seat)]
        elif st.faction is Faction.MARQUISE:
            value += sign * SAWMILL_ROUND * placed(state, seat, SAWMILL)
    return value * rounds


def evaluate_team(state: State, team: Team) -> float:
    """``team``'s advantage in victory points, the Vagabonds' items, the Alliance's
    supporters and officers and the roosts' and sawmills' income included."""
    value = evaluate(state, team)
    if state.over:
        return value
    return value + item_value(state, team) + alliance_value(state, team) + income_value(state, team)
