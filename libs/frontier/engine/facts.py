"""What a legal command costs its seat and surely scores: the values of a preview.

Plain records, apart from :mod:`.score_preview` (which finds them by playing a command on a
copy of the state) so that a faction's rules may state the facts of commands they know
without playing them (``FactionRules.known_facts``) without importing the preview's
machinery.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Item

__all__ = ["NOTHING", "NO_COST", "Cost", "Preview", "cost_of"]


@dataclass(frozen=True, slots=True)
class Cost:
    """What one command takes from its seat (see :mod:`.score_preview`)."""

    cards: tuple[str, ...] = ()  # cards that leave the seat's hand, then its cards in play
    supporters: tuple[str, ...] = ()  # Alliance supporters discarded
    items_exhausted: tuple[Item, ...] = ()  # one entry per item exhausted
    items_lost: tuple[Item, ...] = ()  # one entry per item damaged or removed
    warriors: int = 0  # own warriors removed from the map
    wood: int = 0  # Marquise wood tokens spent


# The cost of a command that takes nothing: one object, so that "costs nothing" is an
# identity test (the orchestrator keeps such commands' wire entries by id alone).
NO_COST = Cost()


@dataclass(frozen=True, slots=True)
class Preview:
    """A command's cost and the VP its team surely scores (None when chance decides)."""

    cost: Cost
    vp: int | None


NOTHING = Preview(NO_COST, 0)  # costs nothing, surely scores nothing


def cost_of(cards: tuple[str, ...] = (), wood: int = 0) -> Cost:
    """A cost of cards and wood, :data:`NO_COST` when it is neither."""
    if not cards and not wood:
        return NO_COST
    return Cost(cards=cards, wood=wood)
