"""A tiny seeded generator whose whole state is one integer, so it lives inside the game state.

Why not :mod:`random`: its algorithms (notably ``shuffle``) are not promised to be stable
across Python versions, and its state is an opaque object.  SplitMix64 is a few lines,
well studied, and bit-for-bit reproducible anywhere.  Every function is pure: it takes the
generator state and returns the result together with the next state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")

# Final: the compiled engine (setup.py) reads constants rather than module globals; every
# value here is past a machine word's small-int range, so each lookup saved counts.
_SPAN: Final = 1 << 64
_MASK: Final = _SPAN - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15


def seed_state(seed: int) -> int:
    """Spread any integer seed over the 64-bit state space."""
    value, _ = next_u64(seed & _MASK)
    return value


def next_u64(state: int) -> tuple[int, int]:
    """One SplitMix64 step: ``(value, next_state)``."""
    state = (state + _GOLDEN) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31), state


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in ``[0, n)`` by rejection sampling (no modulo bias)."""
    if n <= 0:
        raise ValueError("below() needs n >= 1")
    limit = _SPAN - (_SPAN % n)
    while True:
        value, state = next_u64(state)
        if value < limit:
            return value % n, state


def shuffled(items: Sequence[T], state: int) -> tuple[list[T], int]:
    """Fisher-Yates shuffle of a copy of ``items``."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j, state = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return out, state


def roll_dice(state: int) -> tuple[tuple[int, int], int]:
    """Two Root dice (0-3 each), returned high first."""
    a, state = below(state, 4)
    b, state = below(state, 4)
    return (max(a, b), min(a, b)), state
