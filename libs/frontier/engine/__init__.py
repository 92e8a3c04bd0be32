"""The pure rules core of Frontier: an event-sourced decider.

    decide(state, command) -> [event, ...]   # validates; never mutates
    evolve(state, event)   -> state          # the only way state changes
    state(match) = fold(evolve, initial_state(config), events)

No I/O, no asyncio, no clock, no :mod:`random`: all randomness comes from the generator
stored in the state, so (config, commands) replays bit for bit.

Layers, each importing only those above it (no import cycle; ``lint-imports`` and
tests/unit/engine/test_engine_imports.py check it):

* plain data: ``model``, ``state``, ``board``, ``cards``, ``rng``, ``errors``, ``config``...,
  and the Vagabond's data and queries (``vagabond_state``);
* ``evolve`` (the only writer of a state), then ``ctx`` (the emitter every rule writes
  through);
* the shared rules: ``pieces``, ``contraband``, ``sympathy``, ``movement``, ``removal``,
  ``field_hospitals``, ``battle``, ``crafting``, ``card_effects``, ``turn``, ``scoring``;
  they reach a faction only through ``registry`` (:class:`factions.base.FactionRules`
  and its hooks), never by importing it;
* the factions (``factions/``), built on the shared rules;
* ``roster``, the one module that imports the factions and registers them (imported here);
* the entry points: ``decide``, ``setup``, ``view``.
"""

from . import evolve as _evolve
from . import roster  # noqa: F401 - registers every faction (see registry.py)
from .config import MatchConfig, make_config
from .decide import decide, execute, legal_commands, to_act
from .errors import EngineError, GameOver, IllegalCommand, InvalidConfig, WrongSeat
from .evolve import evolve, fold
from .model import Command, CommandKind, Event, EventKind, Seat, Team
from .setup import initial_state
from .state import State

# True when the rules run as mypyc-compiled extension modules (the default build, see
# setup.py), False in the pure-Python build (FRONTIER_PURE_PYTHON=1 at install time).
COMPILED: bool = not (_evolve.__file__ or "").endswith(".py")

__all__ = [
    "COMPILED",
    "Command",
    "CommandKind",
    "EngineError",
    "Event",
    "EventKind",
    "GameOver",
    "IllegalCommand",
    "InvalidConfig",
    "MatchConfig",
    "Seat",
    "State",
    "Team",
    "WrongSeat",
    "decide",
    "evolve",
    "execute",
    "fold",
    "initial_state",
    "legal_commands",
    "make_config",
    "to_act",
]
