"""Keys handed to people once and kept only as hashes: host keys (``fk_``) and arena bot
keys (``fb_``).

A key reads ``<prefix><id>_<secret>``: the id (12 hex digits) names the key in lists, logs
and metrics and is no secret; the secret (URL-safe, 32 characters) is shown once and stored
only as its SHA-256 (:func:`frontier.store.matches.token_hash`), so a leaked store leaks no
key.  Checking compares the hashes in constant time.
"""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import dataclass

from .matches import token_hash

_ID_BYTES = 6  # 12 hex digits: ids are names, not secrets
_SECRET_BYTES = 24
ID_PATTERN = re.compile(r"[0-9a-f]{12}")


@dataclass(frozen=True)
class KeyScheme:
    """The keys of one kind, told apart by their ``prefix``."""

    prefix: str

    def mint(self) -> tuple[str, str, str]:
        """A new ``(id, secret hash, key)``: the key is for its holder, the rest to store."""
        key_id = secrets.token_hex(_ID_BYTES)
        secret = secrets.token_urlsafe(_SECRET_BYTES)
        return key_id, token_hash(secret), f"{self.prefix}{key_id}_{secret}"

    def parse(self, key: str) -> tuple[str, str] | None:
        """``(id, secret)`` of a key of this kind, None for anything not shaped like one."""
        found = re.fullmatch(
            rf"{re.escape(self.prefix)}([0-9a-f]{{12}})_([A-Za-z0-9_-]{{16,64}})", key.strip()
        )
        return None if found is None else (found.group(1), found.group(2))


def secret_matches(secret_sha256: str, secret: str) -> bool:
    """Whether ``secret`` is the one whose hash was stored (compared in constant time)."""
    return hmac.compare_digest(secret_sha256, token_hash(secret))
