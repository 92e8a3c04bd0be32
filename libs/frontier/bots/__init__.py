"""In-process players: the :class:`Bot` protocol, the bots themselves and a name registry."""

from .base import Bot
from .default_command import default_command
from .greedy import GreedyBot, GreedyViewBot
from .random_bot import RandomBot
from .registry import BOTS, BotFactory, UnknownBot, bot_names, make_bot
from .search import SearchBot

__all__ = [
    "BOTS",
    "Bot",
    "BotFactory",
    "GreedyBot",
    "GreedyViewBot",
    "RandomBot",
    "SearchBot",
    "UnknownBot",
    "bot_names",
    "default_command",
    "make_bot",
]
