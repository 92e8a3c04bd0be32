"""A stable fingerprint of a whole game state, for replays and equivalence checks.

It covers every field (secret ones included), serialised canonically, so two states hash
equal exactly when they are equal.  The hash is one-way: it reveals nothing of the state.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

from .state import State


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {
            str(_plain(k)): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))
        }
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def state_hash(state: State) -> str:
    data = json.dumps(_plain(state), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode()).hexdigest()
