"""The faction registry: how the shared rules reach a faction's own rules by its name.

Why a registry rather than imports: the shared rules (battle, movement, crafting, the turn
machinery...) run every faction, and every faction builds on them.  If the shared rules
imported the factions, each module would import every other through them, and nobody could
change one without reading them all.  So the dependency points one way only: a faction
module imports the shared rules, and a shared rule that needs something of a faction (the
Eyrie's Commander bonus, the Vagabond taking hits as damaged items, the Alliance losing a
base...) asks ``rules_for(faction)`` for a hook of :class:`FactionRules` and calls it when
the faction has one.

The table is filled once, while the engine package is imported, by
:mod:`frontier.engine.roster` (the one module that imports every faction), and only read
afterwards: it holds functions, never game state, so the rules stay deterministic
functions of the state.
"""

from __future__ import annotations

from . import evolve
from .factions.base import FactionRules
from .model import Faction

# faction -> its rules.  Written only by :func:`register` (called by the roster at import).
REGISTRY: dict[Faction, FactionRules] = {}


def register(rules: FactionRules) -> None:
    """Add a faction's rules, and its own event kinds to ``evolve`` (once per faction)."""
    if rules.faction in REGISTRY:
        raise ValueError(f"the rules of {rules.faction.value} are registered already")
    REGISTRY[rules.faction] = rules
    evolve.add_faction_handlers(rules.evolve)


def rules_for(faction: Faction) -> FactionRules:
    return REGISTRY[faction]
