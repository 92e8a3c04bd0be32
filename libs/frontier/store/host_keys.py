"""Host keys: who may create and manage matches on a public server, and their quotas.

A key reads ``fk_<id>_<secret>``: the id names the key (lists, logs and metrics show it),
the secret proves it.  The key is shown once, when it is made; the bucket keeps only the
secret's sha256, so a copy of the bucket hosts nothing.  A record holds the key's name,
quota overrides (``None``: the server's default), when it was made and whether it was
revoked.  Revoked keys stay listed (an operator sees what was revoked and when).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, replace

from nats.js.errors import KeyNotFoundError, NoKeysError, NotFoundError
from nats.js.kv import KeyValue

from .credentials import ID_PATTERN, KeyScheme, secret_matches

PREFIX = "fk_"
HOST_KEYS = KeyScheme(PREFIX)
NAME_CHARS = 64

# the quotas a key may override (see orchestrator/host_keys.py for what each counts)
QUOTAS = ("matches_hosted", "creates_per_minute", "bot_seats", "bot_cpu_s_per_hour")


class InvalidHostKey(ValueError):
    """A string that is not a host key's shape, or a bad key record."""


def parse(key: str) -> tuple[str, str]:
    """``(id, secret)`` of a key; InvalidHostKey for anything not shaped like one."""
    found = HOST_KEYS.parse(key)
    if found is None:
        raise InvalidHostKey("not a host key (fk_<id>_<secret>)")
    return found


@dataclass(frozen=True, slots=True)
class Quotas:
    """A key's quota overrides: ``None`` takes the server's default."""

    matches_hosted: int | None = None
    creates_per_minute: int | None = None
    bot_seats: int | None = None
    bot_cpu_s_per_hour: float | None = None


@dataclass(frozen=True, slots=True)
class HostKey:
    """One key's record (never its secret)."""

    key_id: str
    name: str
    secret_sha256: str
    created_unix: float
    quotas: Quotas = field(default_factory=Quotas)
    revoked: bool = False
    revoked_unix: float = 0.0

    def matches(self, secret: str) -> bool:
        """Whether ``secret`` is this key's (compared in constant time)."""
        return secret_matches(self.secret_sha256, secret)

    def as_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> HostKey:
        try:
            record = json.loads(raw)
            quotas = Quotas(**record.pop("quotas", {}))
            return cls(quotas=quotas, **record)
        except (ValueError, TypeError) as exc:
            raise InvalidHostKey(f"a host key record does not decode: {exc}") from None

    def listed(self) -> dict[str, object]:
        """What ``frontier keys list`` shows: everything but the secret's hash."""
        shown = asdict(self)
        del shown["secret_sha256"]
        return shown


def new_key(name: str, quotas: Quotas, now: float | None = None) -> tuple[HostKey, str]:
    """A new key's record and the key itself (to be shown once)."""
    name = name.strip()
    if not name or len(name) > NAME_CHARS:
        raise InvalidHostKey(f"a key's name has 1 to {NAME_CHARS} characters")
    key_id, secret_sha256, key = HOST_KEYS.mint()
    record = HostKey(key_id, name, secret_sha256, time.time() if now is None else now, quotas)
    return record, key


class HostKeyStore:
    """The keys in their KV bucket (``Bus.host_keys_bucket``)."""

    def __init__(self, bucket: KeyValue) -> None:
        self.bucket = bucket

    async def create(self, name: str, quotas: Quotas) -> tuple[HostKey, str]:
        record, key = new_key(name, quotas)
        await self.bucket.create(record.key_id, record.as_json())
        return record, key

    async def get(self, key_id: str) -> HostKey | None:
        if ID_PATTERN.fullmatch(key_id) is None:  # no such key (and no KV subject to build)
            return None
        try:
            entry = await self.bucket.get(key_id)
        except (KeyNotFoundError, NotFoundError):
            return None
        return None if entry.value is None else HostKey.from_json(entry.value)

    async def all(self) -> list[HostKey]:
        try:
            ids = await self.bucket.keys()
        except NoKeysError:
            return []
        found = [await self.get(key_id) for key_id in sorted(ids)]
        return [k for k in found if k is not None]

    async def revoke(self, key_id: str) -> HostKey | None:
        """Mark the key revoked (None: no such key); revoking twice changes nothing."""
        record = await self.get(key_id)
        if record is None or record.revoked:
            return record
        record = replace(record, revoked=True, revoked_unix=time.time())
        await self.bucket.put(key_id, record.as_json())
        return record

    async def check(self, key: str) -> HostKey | None:
        """The live key ``key`` is (None: malformed, unknown, wrong secret or revoked)."""
        try:
            key_id, secret = parse(key)
        except InvalidHostKey:
            return None
        record = await self.get(key_id)
        if record is None or record.revoked or not record.matches(secret):
            return None
        return record
