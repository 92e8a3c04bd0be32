"""Snapshots of a match: its state and how far into the stream it is.

Pickle because the state is plain engine dataclasses and snapshots are read back only by our
own services from our own KV bucket (never from a client); a version tag guards against
reading a snapshot written by an incompatible build, in which case the match is simply
rebuilt from its event stream.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass

from frontier.engine.state import State

FORMAT = "frontier.snapshot/1"


@dataclass(slots=True)
class Snapshot:
    state: State
    stream_seq: int  # the JetStream sequence of the last batch folded into ``state``
    command_ids: dict[str, tuple[int, int]]  # client command id -> (first seq, last seq)


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
