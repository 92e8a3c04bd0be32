"""The type of an ``evolve`` handler, shared by the core and the factions' own events."""

from __future__ import annotations

from collections.abc import Callable

from .model import Event
from .state import State

EvolveHandler = Callable[[State, Event], None]
