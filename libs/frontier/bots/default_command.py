"""The default command: what the server plays for a seat that missed its deadline.

One pure function, shared by the orchestrator's clock, the ``default`` standing answer and
the documentation, so "what happens when I time out" has exactly one answer:

1. ``DECLINE`` when it is legal: an optional decision (ambush, foil, battle effects, Field
   Hospitals, a persistent card's offer...) is simply not taken;
2. else ``END_PHASE`` when it is legal: the seat stops acting in its current step and play
   moves on, without spending cards or pieces;
3. else the legal command with the smallest id (:meth:`Command.key`), a deterministic choice
   that needs no knowledge of the game.

Why so plain: a timeout must be predictable for the player who timed out and reproducible
for anyone re-running the match, and it must never need information the seat lacks.  It is
"least harmful", not "good": a seat that keeps timing out is handed to the built-in bot.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.engine import Command, CommandKind

_PREFERRED: tuple[CommandKind, ...] = (CommandKind.DECLINE, CommandKind.END_PHASE)


def default_command(legal: Sequence[Command]) -> Command:
    """The default among ``legal`` (see the module docstring); ``legal`` must not be empty."""
    if not legal:
        raise ValueError("a decision always has at least one legal command")
    for kind in _PREFERRED:
        for cmd in legal:
            if cmd.kind is kind:
                return cmd
    return min(legal, key=Command.key)
