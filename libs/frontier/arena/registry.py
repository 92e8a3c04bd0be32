"""Registered bots: their records, their keys, and the checks of a new bot's name.

A bot key reads ``fb_<id>_<secret>`` like a host key (``fk_``): the id names the bot on
the board, the secret proves it.  The key is shown once, when the bot is registered; the
arena keeps only the secret's sha256 (the same hash as host keys and seat tokens,
:func:`frontier.store.matches.token_hash`), so a copy of the arena's bucket enters no bot.
"""

from __future__ import annotations

import re
import time

import grpc
from pydantic import BaseModel

from frontier.runtime.errors import FIELD, ServiceError
from frontier.store.credentials import KeyScheme, secret_matches

PREFIX = "fb_"
BOT_KEYS = KeyScheme(PREFIX)
NAME_CHARS = 40
DESCRIPTION_CHARS = 200
_NAME = re.compile(rf"[A-Za-z0-9._-]{{1,{NAME_CHARS}}}")


class BotRecord(BaseModel):
    """One registered bot (never its key): who owns it (the host key id that registered
    it, "" on a server without host keys) and the hash of its secret."""

    bot_id: str
    name: str
    description: str
    owner: str
    secret_sha256: str
    created_unix: float

    def matches(self, secret: str) -> bool:
        """Whether ``secret`` is this bot's (compared in constant time)."""
        return secret_matches(self.secret_sha256, secret)


def parse_key(key: str) -> tuple[str, str] | None:
    """``(id, secret)`` of a bot key, or None for anything not shaped like one."""
    return BOT_KEYS.parse(key)


def checked_name(name: str) -> str:
    """The name, stripped; INVALID_BOT_NAME for an empty, long or oddly spelled one (the
    board shows it, so it has no spaces, no markup, no control characters)."""
    name = name.strip()
    if _NAME.fullmatch(name) is None:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"a bot's name has 1 to {NAME_CHARS} letters, digits, '-', '_' or '.'",
            "INVALID_BOT_NAME",
            {FIELD: "name"},
        )
    return name


def checked_description(description: str) -> str:
    """The description, stripped; INVALID_BOT_NAME (about ``description``) when too long."""
    description = description.strip()
    if len(description) > DESCRIPTION_CHARS or not description.isprintable():
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"a bot's description has at most {DESCRIPTION_CHARS} printable characters",
            "INVALID_BOT_NAME",
            {FIELD: "description"},
        )
    return description


def new_bot(
    name: str, description: str, owner: str, now: float | None = None
) -> tuple[BotRecord, str]:
    """A new bot's record and its key (to be shown once); the name and description are
    checked first (ServiceError)."""
    bot_id, secret_sha256, key = BOT_KEYS.mint()
    record = BotRecord(
        bot_id=bot_id,
        name=checked_name(name),
        description=checked_description(description),
        owner=owner,
        secret_sha256=secret_sha256,
        created_unix=time.time() if now is None else now,
    )
    return record, key
