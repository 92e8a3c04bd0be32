"""The subjects a JetStream stream holds, as the server counts them.

Why: a bucket's keys are its stream's subjects, and the server keeps that list itself
(``STREAM.INFO`` with ``subjects_filter``, paged by offset).  nats-py's ``KeyValue.keys()``
walks a watcher instead and stops at the first entry that reports nothing pending, which
under concurrent writes can come before the replay is complete: a listing made while keys
are being written could miss some.
"""

from __future__ import annotations

import json

from nats.aio.client import Client
from nats.js.errors import APIError


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
