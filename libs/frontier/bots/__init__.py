"""In-process players: the :class:`Bot` protocol, the bots themselves and a name registry."""

from .base import Bot
from .random_bot import RandomBot
from .registry import BOTS, BotFactory, UnknownBot, bot_names, make_bot

__all__ = ["BOTS", "Bot", "BotFactory", "RandomBot", "UnknownBot", "bot_names", "make_bot"]
