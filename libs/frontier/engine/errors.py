"""Errors the engine raises.  Each kind maps to one gRPC status at the service edge."""

from __future__ import annotations


class EngineError(Exception):
    """Base class: the command was refused and the state is unchanged."""


class InvalidConfig(EngineError):
    """A match configuration (lineup, options) is malformed or not playable."""


class WrongSeat(EngineError):
    """The seat is not the one that must act now (not its turn, not its decision)."""


class IllegalCommand(EngineError):
    """The seat may act, but this command is not legal in the current state."""


class GameOver(EngineError):
    """The match has ended; no command is accepted."""


class CorruptEvent(RuntimeError):
    """An event does not fit the state it is applied to (a broken stream, never a bad move).

    Defined here rather than in evolve.py (which re-exports it): mypyc compiles evolve.py and
    cannot compile a subclass of RuntimeError; this module stays interpreted (see setup.py).
    """
