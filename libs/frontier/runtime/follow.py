"""Following every batch of the event stream in rounds, not one wake-up per batch.

Who follows: scoring (its scoreboard counts every match, and its projection folds every
batch), and every domain service run with ``FRONTIER_FOLLOW_BATCHES=true``.  None of them
needs a batch within milliseconds of its commit: a request that finds its projection behind
gets the batches with it (``committed_tail``) or reads them from the stream.

Why rounds: an ordered push consumer delivers each batch as its own NATS message, so an
idle follower wakes up once per command, and at a paced 85 commands/s that wake-up (socket
read, the NATS client's per-message machinery, flow control) cost scoring more than folding
the batch itself.  A pull consumer asked every ``interval_s`` for everything pending gets
the batches of that interval in one burst: one request and one wake-up for many batches,
and no acknowledgements (``AckPolicy.NONE``).

Never missing or double-counting a batch: each delivery's consumer sequence must follow the
last one; on a gap, or any failure (NATS restarted and lost the consumer, a reconnect), the
consumer is created again from the stream position after the last batch handed on, so the
handler sees every batch in stream order, at most once.  ``poke()`` starts a round at once,
for a caller that waits for a batch; ``sync()`` runs one and returns once every batch stored
before it was handed on (the scoreboard answers after one, so it is never behind a match
its caller saw end).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import nats.errors
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from frontier.v1 import events_pb2

log = logging.getLogger("frontier.follow")

Handler = Callable[[int, events_pb2.EventBatch], Awaitable[None]]

FOLLOW_INTERVAL_S = 0.1  # between rounds (a poke starts one sooner)
FETCH_BATCH = 512  # at most this many batches per request (a full round asks again at once)
FETCH_WAIT_S = 0.02  # how long one request lingers for batches still arriving
INACTIVE_S = 60.0  # the server drops the consumer of a follower gone this long


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
    ) -> None:
        self.js = js
        self.stream = stream
        self.subject = subject
        self.handler = handler
        self.interval_s = interval_s
        self.last_stream_seq = 0  # of the last batch handed on (0: none yet)
        self._sub: JetStreamContext.PullSubscription | None = None
        self._consumer_seq = 0  # of the last delivery on the current consumer
        self._poked = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._fetching = asyncio.Lock()  # one fetch at a time on the subscription

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
        except Exception:
            log.warning("could not catch up with the stream", exc_info=True)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._drop_subscription()

    async def _subscribe(self) -> None:
        await self._drop_subscription()
        config = unacked_consumer(self.last_stream_seq + 1 if self.last_stream_seq else 0)
        self._sub = await self.js.pull_subscribe(
            self.subject, durable=None, stream=self.stream, config=config
        )
        self._consumer_seq = 0

    async def _drop_subscription(self) -> None:
        sub, self._sub = self._sub, None
        if sub is not None:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()

    async def _run(self) -> None:
        while True:
            try:
                full = await self.round()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("following the stream failed; subscribing again", exc_info=True)
                full = False
                with contextlib.suppress(Exception):
                    await self._subscribe()
            if full:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poked.wait(), self.interval_s)
            self._poked.clear()

    async def round(self) -> bool:
        """Fetch what is pending and hand it on; True when the fetch came back full (or
        followed again after a lost delivery): more may be pending."""
        async with self._fetching:
            return await self._round()

    async def _round(self) -> bool:
        if self._sub is None:
            await self._subscribe()
        assert self._sub is not None
        try:
            msgs = await self._sub.fetch(FETCH_BATCH, timeout=FETCH_WAIT_S)
        except (nats.errors.TimeoutError, TimeoutError):
            return False
        for msg in msgs:
            sequence = msg.metadata.sequence
            if sequence.consumer != self._consumer_seq + 1:
                # a delivery was lost: start again after the last batch handed on
                log.warning(
                    "stream delivery %d after %d; following again from %d",
                    sequence.consumer,
                    self._consumer_seq,
                    self.last_stream_seq + 1,
                )
                await self._subscribe()
                return True
            self._consumer_seq = sequence.consumer
            stream_seq = int(sequence.stream)
            try:
                await self.handler(stream_seq, events_pb2.EventBatch.FromString(msg.data))
            except Exception:  # one bad batch must not stop the others (as a push callback)
                log.exception("handling stream message %d failed", stream_seq)
            self.last_stream_seq = stream_seq
        return len(msgs) >= FETCH_BATCH
