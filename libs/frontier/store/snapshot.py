"""Snapshots of a match: its state and how far into the stream it is.

Pickle because the state is plain engine dataclasses and snapshots are read back only by our
own services from our own KV bucket (never from a client); a version tag guards against
reading a snapshot written by an incompatible build, in which case the match is simply
rebuilt from its event stream.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field

from frontier.engine import COMPILED
from frontier.engine.state import State

# /2 added the seats' clocks; /3 the engine State's carried contraband and crate (R16-R19);
# /4 keys command ids by seat and keeps each one's first result (CommandResult).
# An older snapshot is ignored and the match rebuilt from its stream.  A mypyc-compiled
# engine (setup.py) pickles the faction states, native classes there, in another shape than
# the pure-Python build, and neither reads the other's reliably (a pure-Python pickle even
# loads into broken objects): each build tags its snapshots and ignores the other's.
FORMAT = "frontier.snapshot/4" + ("+mypyc" if COMPILED else "")


@dataclass(slots=True)
class SeatClock:
    """One seat's match clock and discipline: what the orchestrator's timers need to resume
    a match exactly (also restored from the stream's decision records)."""

    reserve_ms: int
    strikes: int = 0
    taken_over: bool = False  # the built-in bot plays the seat for the rest of the match


# A seat's own name for one of its commands: (seat, command id).  Command ids belong to the
# seat that sent them, so two seats may use the same id for different commands.
CommandKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What an accepted command led to, kept under its (seat, command id): enough to answer
    a retry with the first response, and to tell a retry from another command reusing the
    id (``command`` is the command's legal id, ``Command.key()``)."""

    first: int  # the first and last event seq of its batch
    last: int
    command: str
    to_act: str  # the seat to act after it ("" when the match ended)
    winner: str


@dataclass(slots=True)
class Snapshot:
    state: State
    stream_seq: int  # the JetStream sequence of the last batch folded into ``state``
    command_ids: dict[CommandKey, CommandResult]
    clocks: dict[str, SeatClock] = field(default_factory=dict)  # seat -> clock, once used


def encode(snapshot: Snapshot) -> bytes:
    return pickle.dumps((FORMAT, snapshot), protocol=pickle.HIGHEST_PROTOCOL)


def decode(blob: bytes) -> Snapshot | None:
    try:
        tag, snapshot = pickle.loads(blob)
    except Exception:
        return None
    if tag != FORMAT or not isinstance(snapshot, Snapshot):
        return None
    return snapshot
