"""The subjects a JetStream stream holds, as the server counts them.

Why: a bucket's keys are its stream's subjects, and the server keeps that list itself
(``STREAM.INFO`` with ``subjects_filter``, paged by offset).  nats-py's ``KeyValue.keys()``
walks a watcher instead and stops at the first entry that reports nothing pending, which
under concurrent writes can come before the replay is complete: a listing made while keys
are being written could miss some.
"""

from __future__ import annotations

import json
from typing import Any

from nats.aio.client import Client
from nats.js.client import JetStreamContext
from nats.js.errors import APIError, NoKeysError
from nats.js.kv import KeyValue


async def stream_subjects(nc: Client, stream: str, prefix: str, timeout_s: float) -> list[str]:
    """Every subject of ``stream`` under ``prefix`` (``prefix`` itself cut off), sorted."""
    found: list[str] = []
    while True:
        request = {"subjects_filter": f"{prefix}>", "offset": len(found)}
        reply = await nc.request(
            f"$JS.API.STREAM.INFO.{stream}", json.dumps(request).encode(), timeout=timeout_s
        )
        info = json.loads(reply.data)
        if "error" in info:
            raise APIError.from_error(info["error"])
        subjects = (info.get("state") or {}).get("subjects") or {}
        found.extend(subject[len(prefix) :] for subject in subjects)
        if not subjects or len(found) >= int(info.get("total") or 0):
            return sorted(found)


class ListedKeyValue(KeyValue):
    """A KV bucket whose ``keys()`` is the server's own list of its stream's subjects
    (``stream_subjects``), not nats-py's watcher, which can end its replay early: a key
    listing, an arena's bots or an operator's ``frontier keys list`` would then miss keys.

    One difference from nats-py's ``keys()``: a key whose last entry is a delete is still
    a subject, so it is listed; a ``get`` of it raises ``KeyNotFoundError``, which every
    reader here takes as "no such key"."""

    def __init__(
        self, name: str, nc: Client, js: JetStreamContext, direct: bool, timeout_s: float
    ) -> None:
        super().__init__(name=name, stream=f"KV_{name}", pre=f"$KV.{name}.", js=js, direct=direct)
        self._listing_nc = nc
        self._listing_timeout_s = timeout_s

    @classmethod
    async def open(
        cls, nc: Client, js: JetStreamContext, name: str, timeout_s: float
    ) -> ListedKeyValue:
        """The existing bucket ``name`` (raises ``NotFoundError`` if there is none)."""
        info = await js.stream_info(f"KV_{name}")
        return cls(name, nc, js, bool(info.config.allow_direct), timeout_s)

    async def keys(self, filters: list[str] | None = None, **kwargs: Any) -> list[str]:
        """Every key, sorted (raises ``NoKeysError`` for an empty bucket, as nats-py does);
        ``filters``: only keys containing one of these strings."""
        found = await stream_subjects(
            self._listing_nc, self._stream, self._pre, self._listing_timeout_s
        )
        if filters:
            found = [key for key in found if any(f in key for f in filters)]
        if not found:
            raise NoKeysError
        return found
