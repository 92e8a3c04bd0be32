"""Registry of the factions whose rules are implemented."""

from __future__ import annotations

from ..model import Faction
from .base import FactionRules
from .marquise import RULES as MARQUISE

REGISTRY: dict[Faction, FactionRules] = {
    MARQUISE.faction: MARQUISE,
}


def rules_for(faction: Faction) -> FactionRules:
    return REGISTRY[faction]
