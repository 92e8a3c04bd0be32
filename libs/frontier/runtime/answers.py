"""Requests on one NATS connection, answered on one subscription: the JetStream publish's path.

Every accepted command waits for its batch's JetStream acknowledgement, so this path is
kept short: :func:`publish` writes the message to the socket in the caller's step when it
can (:func:`.nats_internals.write_now`), and :class:`Answers` settles the waiting future as
the answer is parsed (:func:`.nats_internals.settle_on_arrival`) rather than one loop
iteration later in the subscription's task.  Both fall back to nats-py's own path whenever
they cannot, so what a caller sees -- answers, timeouts, errors -- is the same.

:class:`Answers` is what ``Client.request`` does, without a NUID and random token per
request and ``asyncio.wait_for`` around it: the reply subject is a prefix unique to the
connection and a counter.  nats-py subscribes again after a reconnect.

A lost connection: every request still waiting for its answer then fails with
:class:`ConnectionLost` (:meth:`Answers.connection_lost`, called by the bus as nats-py
reports the loss), rather than waiting out its timeout -- its answer, if any, went with the
connection.  Its outcome is unknown, exactly as after a timeout (ConnectionLost *is* a
timeout to every handler), so the caller settles it as it settles a timeout; it only knows
sooner.  A request made once nats-py is reconnecting is not failed: nats-py keeps it and
sends it once connected again, and its answer comes then.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import Header
from nats.js.errors import NoStreamResponseError

from .nats_internals import settle_on_arrival, write_now

NO_RESPONDERS = "503"  # the status NATS answers a request nobody subscribed to with


class ConnectionLost(nats.errors.TimeoutError):
    """The connection to NATS was lost while the request waited for its answer: nothing is
    known of its outcome, as after a timeout, and every handler of a timeout handles it."""

    def __str__(self) -> str:
        return "nats: connection lost before the answer came"


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

    def connection_lost(self) -> int:
        """Fail every request waiting for its answer with :class:`ConnectionLost`; how many."""
        waiting = [answer for answer in self._waiting.values() if not answer.done()]
        for answer in waiting:
            answer.set_exception(ConnectionLost())
        return len(waiting)

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
        settle_on_arrival(subscription, self._settle)  # else _answered gets them
        return subscription

    def _settle(self, msg: Msg) -> None:
        answer = self._waiting.pop(msg.subject, None)
        if answer is not None and not answer.done():
            answer.set_result(msg)

    async def _answered(self, msg: Msg) -> None:  # nats-py's own path (see _subscribed)
        self._settle(msg)


def _give_up(answer: asyncio.Future[Msg]) -> None:
    if not answer.done():
        answer.set_exception(nats.errors.TimeoutError())
