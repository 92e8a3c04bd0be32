"""Registry of the factions whose rules are implemented."""

from __future__ import annotations

from ..model import Faction
from .alliance import RULES as ALLIANCE
from .base import FactionRules
from .eyrie import RULES as EYRIE
from .marquise import RULES as MARQUISE
from .vagabond import RULES as VAGABOND

REGISTRY: dict[Faction, FactionRules] = {
    MARQUISE.faction: MARQUISE,
    EYRIE.faction: EYRIE,
    ALLIANCE.faction: ALLIANCE,
    VAGABOND.faction: VAGABOND,
}


def rules_for(faction: Faction) -> FactionRules:
    return REGISTRY[faction]
