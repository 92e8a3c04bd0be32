"""A bot that picks uniformly among the legal commands.

It is the cheapest possible player, which makes it the workhorse of the engine benchmark
and of fuzz-style tests: over many seeds it reaches rule paths a human would rarely try.
"""

from __future__ import annotations

from frontier.engine import Command, Seat, State, rng


class RandomBot:
    """Uniform choice driven by its own SplitMix64 generator (never :mod:`random`).

    The generator state is one integer kept in the object, so two bots built with the same
    seed make the same choices when shown the same legal lists.
    """

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        self._rng = rng.seed_state(seed)

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError(f"no legal command to choose from for seat {seat.value}")
        index, self._rng = rng.below(self._rng, len(legal))
        return legal[index]
