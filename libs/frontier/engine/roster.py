"""The factions whose rules are implemented, registered with :mod:`frontier.engine.registry`.

This is the only engine module that imports every faction, and no rule module imports it:
the engine package imports it once, so the registry is complete before any rule runs.
Adding a faction is its module(s) under ``factions/`` plus one line here.
"""

from __future__ import annotations

from .factions.alliance import RULES as ALLIANCE
from .factions.eyrie import RULES as EYRIE
from .factions.marquise import RULES as MARQUISE
from .factions.vagabond import RULES as VAGABOND
from .registry import register

FACTIONS = (MARQUISE, EYRIE, ALLIANCE, VAGABOND)

for _rules in FACTIONS:
    register(_rules)
