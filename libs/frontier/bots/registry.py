"""Bots by name, for the CLI and the benchmark.

Adding a bot is one line in :data:`BOTS`: a name and a factory taking the bot's seed.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot
from .greedy import GreedyBot, GreedyViewBot
from .halving import HalvingSearchBot
from .random_bot import RandomBot
from .search import TEAM, TEAM_ITERATIONS, SearchBot

BotFactory = Callable[[int], Bot]

BOTS: dict[str, BotFactory] = {
    "random": RandomBot,
    "greedy": GreedyBot,  # plays each command's turn out with the playout policy, judged
    "greedy-view": GreedyViewBot,  # the remote greedy bot's policy, on the seat's view only
    "search": SearchBot,  # ISMCTS on determinizations of the seat's view (iteration budget)
    # the search with widening, the rival's turn in its horizon and the team evaluation:
    # rated against "search" until it shows an edge (docs/bots.md)
    "search-team": lambda seed: SearchBot(seed, TEAM_ITERATIONS, style=TEAM),
    # sequential halving over the legal commands on shared samples, the rival's answer in
    # the horizon: the strongest bot measured (docs/bots.md)
    "search-halving": HalvingSearchBot,
}


class UnknownBot(ValueError):
    """A bot name that is not in the registry (a user error, reported with the choices)."""


def bot_names() -> list[str]:
    return sorted(BOTS)


def make_bot(name: str, seed: int) -> Bot:
    """Build a fresh bot; each seat gets its own instance so generators never interleave."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise UnknownBot(f"unknown bot {name!r}; known bots: {', '.join(bot_names())}") from None
    return factory(seed)
