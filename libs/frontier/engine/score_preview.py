"""What a legal command costs its seat and the points it scores for certain.

Why: a bot that wants "a command that scores" or a UI that shows "+2 VP, 1 wood" should not
have to re-implement the rules to find out.  The engine already knows: the command is
played on a private copy of the state (the owning domain's part, :func:`decide.apply_command`,
exactly what the real command would do) and its events are read.  Nothing is re-typed, so
the preview can never disagree with the rules.

What counts:

* the cost is what leaves the acting seat's hands: cards from its hand, Alliance supporters,
  Vagabond items exhausted, damaged or removed, its own warriors removed from the map, and
  Marquise wood spent;
* the score is the VP the command's own events give the seat's team (a building's track
  points, a craft's points, a quest, a seize, the buildings a Revolt destroys...).  What the
  turn then does on its own (the Eyrie's Evening roosts) is not a command's, and a later
  answer (a rival's Field Hospitals, an Outrage card) is a command of its own.

Why the score is left out (None) when chance takes part, and why that is all it needs to hide
secrets: the copy holds everything, the deck order, every hand, the ruins and the seed, so a
result that read any of them would tell the seat more than it may know.  The events of one
command read secrets only in these ways: dice and random draws (the seed, through ``rng``),
a battle (the defender's hand decides whether an ambush is asked for, the dice the rest), a
reshuffle (the seed), and the identities of cards drawn, ruin items found or quests revealed.
The first three change the generator state or start a battle, and then the score is None;
the last never changes a score (a ruin item scores 1 VP whatever it is, a quest scores by
the quests done, drawn cards score nothing in the command that draws them).  Whether a
command is a battle or rolls dice follows from its kind and the public state, so even the
"None" says nothing secret.  The cost is read from the same events and the acting seat knows
its own hand, items and pieces, so the cost tells it nothing new either.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ctx import Ctx
from .decide import apply_command
from .model import Command, Event, EventKind, Item
from .pieces import WARRIOR
from .state import State

__all__ = ["NO_COST", "Cost", "Preview", "certain_vp", "preview"]

# Events that mean chance (or a rival's hidden hand) decides what the command scores.
_CHANCE = frozenset({EventKind.BATTLE_STARTED, EventKind.DICE_ROLLED, EventKind.DIE_REROLLED})


@dataclass(frozen=True, slots=True)
class Cost:
    """What one command takes from its seat (see the module docstring)."""

    cards: tuple[str, ...] = ()  # cards that leave the seat's hand, in hand order
    supporters: tuple[str, ...] = ()  # Alliance supporters discarded
    items_exhausted: tuple[Item, ...] = ()  # one entry per item exhausted
    items_lost: tuple[Item, ...] = ()  # one entry per item damaged or removed
    warriors: int = 0  # own warriors removed from the map
    wood: int = 0  # Marquise wood tokens spent


NO_COST = Cost()


@dataclass(frozen=True, slots=True)
class Preview:
    """A command's cost and the VP its team surely scores (None when chance decides)."""

    cost: Cost
    vp: int | None


def _item(key: str) -> Item:
    """The item of an item key such as ``"sword/exhausted/damaged"``."""
    return Item(key.split("/", 1)[0])


def preview(state: State, cmd: Command) -> Preview:
    """The cost and certain VP of ``cmd``, a legal command of ``state`` (left unchanged)."""
    # An answer inside a battle: dice still to roll, or whether a rival is asked next (a foil,
    # an ambush) depends on its hand; no score is certain, though the cost still is.
    certain = state.battle is None
    ctx = Ctx(state.clone())
    apply_command(ctx, cmd)
    if ctx.state.rng != state.rng:
        certain = False
    hand = state.seats[cmd.seat].hand
    kept = set(ctx.state.seats[cmd.seat].hand)
    cards = tuple(c for c in hand if c not in kept)
    vp, cost = _read(ctx.events, cmd, cards)
    return Preview(cost, vp if certain else None)


def _read(events: list[Event], cmd: Command, cards: tuple[str, ...]) -> tuple[int | None, Cost]:
    """The team's VP (None after a chance event) and the seat's cost in ``events``."""
    seat = cmd.seat.value
    team = cmd.seat.team.value
    vp: int | None = 0
    supporters: list[str] = []
    exhausted: list[Item] = []
    lost: list[Item] = []
    warriors = 0
    wood = 0
    for e in events:
        kind = e.kind
        if kind in _CHANCE:
            vp = None
        elif kind is EventKind.SCORED:
            if vp is not None and e.target == team:
                vp += e.amount
        elif e.seat != seat:
            continue
        elif kind is EventKind.SUPPORTERS_DISCARDED:
            supporters.extend(e.cards)
        elif kind is EventKind.ITEMS_EXHAUSTED:
            exhausted.extend([Item(e.piece)] * e.count)
        elif kind is EventKind.ITEM_DAMAGED or kind is EventKind.ITEM_REMOVED:
            lost.append(_item(e.piece))
        elif kind is EventKind.PIECES_REMOVED and e.piece == WARRIOR:
            warriors += e.count
        elif kind is EventKind.WOOD_SPENT:
            wood += len(e.clearings)
    if not (cards or supporters or exhausted or lost or warriors or wood):
        return vp, NO_COST
    cost = Cost(cards, tuple(supporters), tuple(exhausted), tuple(lost), warriors, wood)
    return vp, cost


def certain_vp(state: State, cmd: Command) -> int | None:
    """The VP ``cmd`` surely scores for its seat's team, or None when chance decides."""
    return preview(state, cmd).vp
