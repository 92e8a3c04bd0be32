"""The interface every in-process bot implements.

Why a :class:`~typing.Protocol` rather than a base class: a bot is any object with a
``choose`` method, so a test double, a scripted bot or a wrapper around a remote player fits
without inheriting from anything.
"""

from __future__ import annotations

from typing import Protocol

from frontier.engine import Command, Seat, State


class Bot(Protocol):
    """Chooses one of the legal commands for the seat that must act.

    In-process bots receive the full :class:`State` because building a per-seat view
    (``frontier.engine.view``) for every command would dominate a benchmark; a bot must
    treat the state as read-only and, to play fair, read only what ``seat`` may see.
    Any randomness must come from :mod:`frontier.engine.rng` with the bot's own seeded
    generator, so a match is reproducible from (config, bot seeds).
    """

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        """Return one element of ``legal`` (never empty when called by the runner)."""
        ...
