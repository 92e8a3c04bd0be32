"""An in-memory stand-in for a NATS KV bucket: the calls the arena's store makes, with
NATS's revisions and its errors (a create of a present key, an update at a stale
revision, a get of a missing key), so the store's rules are tested without a server."""

from __future__ import annotations

from typing import Any, cast

from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NoKeysError
from nats.js.kv import KeyValue


class MemoryKV:
    def __init__(self) -> None:
        self.values: dict[str, tuple[bytes, int]] = {}
        self.revision = 0
        self.before_update: Any = None  # called once before the next update (a rival writer)

    def as_bucket(self) -> KeyValue:
        return cast(KeyValue, self)

    def _put(self, key: str, value: bytes) -> int:
        self.revision += 1
        self.values[key] = (value, self.revision)
        return self.revision

    async def create(self, key: str, value: bytes) -> int:
        if key in self.values:
            raise KeyWrongLastSequenceError(description="wrong last sequence")
        return self._put(key, value)

    async def put(self, key: str, value: bytes) -> int:
        return self._put(key, value)

    async def update(self, key: str, value: bytes, last: int | None = None) -> int:
        if self.before_update is not None:
            rival, self.before_update = self.before_update, None
            await rival()
        current = self.values.get(key, (b"", 0))[1]
        if last != current:
            raise KeyWrongLastSequenceError(description="wrong last sequence")
        return self._put(key, value)

    async def get(self, key: str) -> KeyValue.Entry:
        if key not in self.values:
            raise KeyNotFoundError()
        value, revision = self.values[key]
        return KeyValue.Entry("arena", key, value, revision, None, None, None)

    async def delete(self, key: str) -> bool:
        if key not in self.values:
            raise KeyNotFoundError()
        del self.values[key]
        return True

    async def keys(self) -> list[str]:
        if not self.values:
            raise NoKeysError()
        return list(self.values)
