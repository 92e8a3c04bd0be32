"""Requests on one NATS connection, answered on one subscription: the JetStream publish's path.

Why: every accepted command waits for its batch's JetStream acknowledgement, and nats-py puts
two task hops on that path, each a loop iteration behind everything else ready (on a loaded
orchestrator, a long queue):
- ``Client.publish`` appends the message to a buffer and wakes the client's ``_flusher``
  task, which writes the buffer out on the loop's next iteration;
- an answer to a subscription with a callback is queued for the subscription's own task,
  which then runs the callback on a later iteration.
:func:`write_now` hands the message to the socket in the caller's step when nothing is
buffered before it (so the order of messages is kept), and :class:`Answers` settles the
waiting future as the answer is parsed.  Both fall back to nats-py's own path whenever the
connection is not in the plain connected state (reconnecting: nats-py buffers), so what a
caller sees -- answers, timeouts, errors -- is the same.  They reach into nats-py's
client (``_pending_data_size``, ``_transport``, a subscription's ``_pending_queue``) as
pinned in constraints.txt; ``tests/integration/test_publish_outcomes.py`` checks them
against a real nats-server, and each checks the attributes it needs and otherwise leaves
nats-py's path in place.

:class:`Answers` is what ``Client.request`` does, without a NUID and random token per
request and ``asyncio.wait_for`` around it: the reply subject is a prefix unique to the
connection and a counter.  nats-py subscribes again after a reconnect; an answer lost
meanwhile is a timeout, as for ``Client.request`` (the caller then settles the outcome).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import Header
from nats.js.errors import NoStreamResponseError
from nats.protocol import command as protocol

NO_RESPONDERS = "503"  # the status NATS answers a request nobody subscribed to with


def write_now(
    nc: Client, subject: str, payload: bytes, reply: str = "", headers: dict[str, str] | None = None
) -> bool:
    """Write one message to ``nc``'s socket now, as ``nc.publish`` would queue it; False
    (nothing done) when it cannot be written now -- something is buffered before it, the
    connection is not plainly connected, or a header needs nats-py's checks -- and the
    caller should ``await nc.publish(...)`` instead."""
    transport = getattr(nc, "_transport", None)
    if (
        transport is None
        or getattr(nc, "_pending_data_size", 1) != 0
        or not nc.is_connected
        or nc.is_draining_pubs
        or len(payload) > nc.max_payload
    ):
        return False
    if headers:
        lines = [b"NATS/1.0\r\n"]
        for key, value in headers.items():
            if not _plain(key) or "\r" in value or "\n" in value:
                return False
            lines.append(f"{key}: {value}\r\n".encode())
        lines.append(b"\r\n")
        message = protocol.hpub_cmd(subject, reply, b"".join(lines), payload)
    else:
        message = protocol.pub_cmd(subject, reply, payload)
    try:
        transport.writelines([message])
    except OSError:
        return False  # nats-py's path meets the error and reconnects
    nc.stats["out_msgs"] += 1
    nc.stats["out_bytes"] += len(payload)
    return True


def _plain(key: str) -> bool:
    """Whether ``key`` is a header name nats-py would send as it is (letters, digits, ``-_.``).
    The names are a handful of constants: each is checked once."""
    if key in _PLAIN_KEYS:
        return True
    plain = bool(key) and key.isascii() and all(c.isalnum() or c in "-_." for c in key)
    if plain and len(_PLAIN_KEYS) < 64:
        _PLAIN_KEYS.add(key)
    return plain


_PLAIN_KEYS: set[str] = set()


async def publish(
    nc: Client, subject: str, payload: bytes, reply: str = "", headers: dict[str, str] | None = None
) -> None:
    """``nc.publish``, written out at once when it can be (:func:`write_now`)."""
    if not write_now(nc, subject, payload, reply, headers):
        await nc.publish(subject, payload, reply=reply, headers=headers)


class Answers:
    """Requests on one NATS connection whose answers come to one subscription of its own,
    each answer settling the future waiting under its subject as it is parsed."""

    def __init__(self, nc: Client) -> None:
        self.nc = nc
        self.prefix = f"{nc.new_inbox()}."
        self._count = itertools.count()
        self._waiting: dict[str, asyncio.Future[Msg]] = {}
        self._subscription: Subscription | None = None
        self._subscribing: asyncio.Task[Subscription] | None = None

    async def request(
        self, subject: str, data: bytes, headers: dict[str, str], timeout_s: float
    ) -> dict[str, Any]:
        """Publish ``data`` and return its answer's JSON; nats' TimeoutError after
        ``timeout_s`` without one, NoStreamResponseError when nobody takes ``subject``."""
        if self._subscription is None:
            await self._subscribe()
        reply = f"{self.prefix}{next(self._count)}"
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Msg] = loop.create_future()
        self._waiting[reply] = answer
        timer = loop.call_later(timeout_s, _give_up, answer)
        try:
            await publish(self.nc, subject, data, reply, headers)
            msg = await answer
        finally:
            timer.cancel()
            self._waiting.pop(reply, None)
        if msg.headers and msg.headers.get(Header.STATUS) == NO_RESPONDERS:
            raise NoStreamResponseError
        result: dict[str, Any] = json.loads(msg.data.decode())  # (bytes: detect_encoding)
        return result

    async def _subscribe(self) -> None:
        """Subscribe once, whoever asks first; a failure is raised to every request waiting
        for it, and the next request tries again."""
        subscribing = self._subscribing
        if subscribing is None:
            subscribing = self._subscribing = asyncio.ensure_future(self._subscribed())
        try:
            self._subscription = await asyncio.shield(subscribing)
        except Exception:
            if self._subscribing is subscribing and subscribing.done():
                self._subscribing = None
            raise

    async def _subscribed(self) -> Subscription:
        subscription = await self.nc.subscribe(f"{self.prefix}*", cb=self._answered)
        if hasattr(subscription, "_pending_queue") and hasattr(subscription, "_pending_size"):
            # answers settled as they are parsed; the subscription's task (started for the
            # callback) then waits on a queue nothing fills, until the subscription ends
            subscription._pending_queue = _Settling(subscription, self._settle)  # type: ignore[assignment]
        return subscription

    def _settle(self, msg: Msg) -> None:
        answer = self._waiting.pop(msg.subject, None)
        if answer is not None and not answer.done():
            answer.set_result(msg)

    async def _answered(self, msg: Msg) -> None:  # nats-py's path (see _subscribed)
        self._settle(msg)


class _Settling:
    """Stands for a subscription's queue of pending messages: each message put is handed to
    ``settle`` at once (and no longer counted as pending, as the subscription's task would
    do when it takes one), so the queue is always empty."""

    def __init__(self, subscription: Subscription, settle: Callable[[Msg], None]) -> None:
        self.subscription = subscription
        self.settle = settle

    def put_nowait(self, msg: Msg) -> None:
        self.subscription._pending_size -= len(msg.data)
        self.settle(msg)

    async def get(self) -> Msg:
        """What the subscription's task waits on: nothing ever comes (it is cancelled when
        the subscription ends)."""
        await asyncio.get_running_loop().create_future()
        raise AssertionError("never settled")

    def qsize(self) -> int:
        return 0

    def empty(self) -> bool:
        return True

    def task_done(self) -> None:
        return None

    async def join(self) -> None:
        return None


def _give_up(answer: asyncio.Future[Msg]) -> None:
    if not answer.done():
        answer.set_exception(nats.errors.TimeoutError())
