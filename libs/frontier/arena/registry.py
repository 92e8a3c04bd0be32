"""Registered bots: their records, their keys, and the checks of a new bot's name.

A bot key reads ``fb_<id>_<secret>`` like a host key (``fk_``): the id names the bot on
the board, the secret proves it.  The key is shown once, when the bot is registered; the
arena keeps only the secret's sha256 (the same hash as host keys and seat tokens,
:func:`frontier.store.matches.token_hash`), so a copy of the arena's bucket enters no bot.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time

import grpc
from pydantic import BaseModel

from frontier.runtime.errors import FIELD, ServiceError
from frontier.store.matches import token_hash

PREFIX = "fb_"
_ID_BYTES = 6  # 12 hex digits: ids are names, not secrets
_SECRET_BYTES = 24
_KEY = re.compile(r"fb_([0-9a-f]{12})_([A-Za-z0-9_-]{16,64})")
ID_PATTERN = re.compile(r"[0-9a-f]{12}")
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
        return hmac.compare_digest(self.secret_sha256, token_hash(secret))


def parse_key(key: str) -> tuple[str, str] | None:
    """``(id, secret)`` of a bot key, or None for anything not shaped like one."""
    found = _KEY.fullmatch(key.strip())
    return None if found is None else (found.group(1), found.group(2))


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
    record = BotRecord(
        bot_id=secrets.token_hex(_ID_BYTES),
        name=checked_name(name),
        description=checked_description(description),
        owner=owner,
        secret_sha256="",
        created_unix=time.time() if now is None else now,
    )
    secret = secrets.token_urlsafe(_SECRET_BYTES)
    record.secret_sha256 = token_hash(secret)
    return record, f"{PREFIX}{record.bot_id}_{secret}"
