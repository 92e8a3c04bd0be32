"""Following every batch of the event stream in rounds, not one wake-up per batch.

Who follows: scoring (its scoreboard counts every match, and its projection folds every
batch); the other domain services get the batches they lack with the requests.  Scoring
needs no batch within milliseconds of its commit: a request that finds its projection
behind gets the batches with it (``committed_tail``) or reads them from the stream.

Why rounds: an ordered push consumer delivers each batch as its own NATS message, so an
idle follower wakes up once per command, and that wake-up (socket read, the NATS client's
per-message machinery, flow control) costs more than folding the batch itself.  A pull
consumer asked every ``interval_s`` for everything pending gets the batches of that interval
in one burst: one request and one wake-up for many batches, and no acknowledgements
(``AckPolicy.NONE``).  A round that finds nothing doubles the interval (up to
``IDLE_INTERVAL_S``); one that finds a batch goes back to ``interval_s``.  Nothing waits on
a round: callers that need a batch now poke or sync (below).

Why not nats-py's ``PullSubscription.fetch``: it takes each message with ``next_msg``, which
creates two tasks, a uuid and a ``wait_for`` per message, which would be most of scoring's
CPU per batch (and scoring sees a batch for every command).  The follower asks the consumer
itself (one ``no_wait`` pull request per round, on a subscription of its own whose callback
hands each batch on) and the round ends with the server's "no messages" status or a full
batch.

Never missing or double-counting a batch: each delivery's consumer sequence must follow the
last one; on a gap, or any failure (NATS restarted and lost the consumer, a reconnect, a
round unanswered), the consumer is created again from the stream position after the last
batch handed on, so the handler sees every batch in stream order, at most once.  ``poke()``
starts a round at once, for a caller that waits for a batch; ``sync()`` runs one and returns
once every batch stored before it was handed on (the scoreboard answers after one, so it is
never behind a match its caller saw end).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
from collections.abc import Awaitable, Callable

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import DEFAULT_PREFIX, AckPolicy, ConsumerConfig, DeliverPolicy, Header
from nats.js.client import JetStreamContext

from frontier.runtime.failure_log import FailureLog
from frontier.v1 import events_pb2

log = logging.getLogger("frontier.follow")

Handler = Callable[[int, events_pb2.EventBatch], Awaitable[None]]

FOLLOW_INTERVAL_S = 0.1  # between rounds (a poke starts one sooner)
IDLE_INTERVAL_S = 1.6  # the longest wait after rounds that found nothing
FETCH_BATCH = 512  # at most this many batches per request (a full round asks again at once)
ROUND_TIMEOUT_S = 5.0  # a round unanswered this long: the consumer is made again
INACTIVE_S = 60.0  # the server drops the consumer of a follower gone this long
# the statuses that end a round: "no messages" (404) and the request's own timeout (408)
ROUND_OVER = frozenset({"404", "408"})
PULL_REQUEST = json.dumps({"batch": FETCH_BATCH, "no_wait": True}).encode()

_FULL, _DONE, _LOST = "full", "done", "lost"  # how a round ended


def unacked_consumer(start_stream_seq: int, inactive_s: float = INACTIVE_S) -> ConsumerConfig:
    """An ephemeral consumer's settings: from ``start_stream_seq`` (0: only new messages),
    no acknowledgements, in memory, one replica, dropped by the server once unused."""
    if start_stream_seq:
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=start_stream_seq
        )
    else:
        config = ConsumerConfig(deliver_policy=DeliverPolicy.NEW)
    config.ack_policy = AckPolicy.NONE
    config.inactive_threshold = inactive_s
    config.mem_storage = True
    config.num_replicas = 1
    return config


class Follower:
    """Hands every batch published on ``subject`` after it started to ``handler``."""

    def __init__(
        self,
        js: JetStreamContext,
        stream: str,
        subject: str,
        handler: Handler,
        interval_s: float = FOLLOW_INTERVAL_S,
        *,
        nc: Client,
    ) -> None:
        self.js = js
        self.nc = nc  # the connection ``js`` was made on
        self.stream = stream
        self.subject = subject
        self.handler = handler
        self.interval_s = interval_s
        self.last_stream_seq = 0  # of the last batch handed on (0: none yet)
        self._sub: Subscription | None = None
        self._consumer = ""  # the current consumer's name
        self._inbox = ""  # where it delivers
        self._next = ""  # where it is asked for the next batches
        self._consumer_seq = 0  # of the last delivery on the current consumer
        self._round: asyncio.Future[str] | None = None  # the round under way
        self._delivered = 0  # batches handed on in the round under way
        self._poked = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._fetching = asyncio.Lock()  # one round at a time on the consumer
        self._failures = FailureLog(log)  # one line per outage, not one per round

    async def start(self) -> None:
        """Subscribe (from the next batch published) and start the rounds."""
        if self._sub is None:
            await self._subscribe()
        self._task = asyncio.ensure_future(self._run())

    def poke(self) -> None:
        """Start the next round now rather than at the end of the interval."""
        self._poked.set()

    async def sync(self) -> None:
        """Hand on every batch stored before this call (rounds until one is not full).
        Should NATS fail meanwhile, it returns with what was handed on so far (the rounds
        go on subscribing again); the caller answers from that, as without a sync."""
        try:
            while await self.round():
                pass
        except Exception as exc:
            self._failures.failed("sync", f"catching up with {self.subject}", exc)
        else:
            self._failures.recovered("sync", f"catching up with {self.subject}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._drop_subscription()

    async def _subscribe(self) -> None:
        """A new consumer from the batch after the last one handed on, delivering to an
        inbox of its own (so nothing from an earlier consumer is taken for its own)."""
        await self._drop_subscription()
        inbox = self.nc.new_inbox()
        sub = await self.nc.subscribe(inbox, cb=functools.partial(self._on_msg, inbox))
        try:
            config = unacked_consumer(self.last_stream_seq + 1 if self.last_stream_seq else 0)
            config.filter_subject = self.subject
            info = await self.js.add_consumer(self.stream, config)
        except BaseException:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
            raise
        self._sub, self._consumer, self._consumer_seq = sub, info.name, 0
        self._inbox = inbox
        self._next = f"{DEFAULT_PREFIX}.CONSUMER.MSG.NEXT.{self.stream}.{info.name}"

    async def _drop_subscription(self) -> None:
        sub, self._sub = self._sub, None
        consumer, self._consumer, self._inbox = self._consumer, "", ""
        if sub is not None:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
        if consumer and self.nc.is_connected:  # else the server drops it once inactive
            with contextlib.suppress(Exception):
                await self.js.delete_consumer(self.stream, consumer)

    async def _run(self) -> None:
        wait_s = self.interval_s
        while True:
            delivered = 0
            try:
                full = await self.round()
                delivered = self._delivered
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                what = f"following {self.subject} (subscribing again)"
                self._failures.failed("round", what, exc)
                full = False
                with contextlib.suppress(Exception):
                    await self._subscribe()
            else:
                self._failures.recovered("round", f"following {self.subject}")
            if full:
                continue
            wait_s = next_wait(wait_s, delivered, self.interval_s)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poked.wait(), wait_s)
            self._poked.clear()

    async def round(self) -> bool:
        """Ask for what is pending and hand it on; True when the round came back full (or
        followed again after a lost delivery): more may be pending."""
        async with self._fetching:
            return await self._round_once()

    async def _round_once(self) -> bool:
        if self._sub is None:
            await self._subscribe()
        loop = asyncio.get_running_loop()
        over: asyncio.Future[str] = loop.create_future()
        self._round, self._delivered = over, 0
        timer = loop.call_later(ROUND_TIMEOUT_S, _settle, over, "")
        try:
            await self.nc.publish(self._next, PULL_REQUEST, reply=self._inbox)
            outcome = await over
        finally:
            timer.cancel()
            self._round = None
        if not outcome:
            raise TimeoutError(f"no answer to a pull request within {ROUND_TIMEOUT_S} s")
        if outcome == _LOST:
            await self._subscribe()
            return True
        return outcome == _FULL

    async def _on_msg(self, inbox: str, msg: Msg) -> None:
        """One delivery to ``inbox`` (the subscription's callback, so in order): a batch
        handed on, or the status that ends the round."""
        over = self._round
        if over is None or over.done() or inbox != self._inbox:
            return  # nothing asked for it (an answer after its round gave up)
        status = msg.headers.get(Header.STATUS) if msg.headers else None
        if status is not None:
            _settle(over, _DONE if status in ROUND_OVER else _LOST)
            return
        sequence = msg.metadata.sequence
        if sequence.consumer != self._consumer_seq + 1:
            # a delivery was lost: start again after the last batch handed on
            log.warning(
                "stream delivery %d after %d; following again from %d",
                sequence.consumer,
                self._consumer_seq,
                self.last_stream_seq + 1,
            )
            _settle(over, _LOST)
            return
        self._consumer_seq = sequence.consumer
        stream_seq = int(sequence.stream)
        try:
            await self.handler(stream_seq, events_pb2.EventBatch.FromString(msg.data))
        except Exception:  # one bad batch must not stop the others (as a push callback)
            log.exception("handling stream message %d failed", stream_seq)
        self.last_stream_seq = stream_seq
        self._delivered += 1
        if self._delivered >= FETCH_BATCH:
            _settle(over, _FULL)


def next_wait(wait_s: float, delivered: int, interval_s: float) -> float:
    """The wait before the next round: ``interval_s`` after a round that handed batches
    on, twice the last wait (at most ``IDLE_INTERVAL_S``) after one that found nothing.
    Nothing is late for it: whoever needs a batch now pokes or syncs."""
    return interval_s if delivered else min(max(wait_s, interval_s) * 2, IDLE_INTERVAL_S)


def _settle(future: asyncio.Future[str], outcome: str) -> None:
    if not future.done():
        future.set_result(outcome)
