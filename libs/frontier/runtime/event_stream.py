"""The event stream: one JetStream message per accepted command, and who reads it back.

``frontier.match.<id>.events`` (stream FRONTIER_EVENTS) holds one :class:`EventBatch` per
accepted command, all its events.  ``Nats-Msg-Id`` = ``<id>:<first seq>`` so a retried
publish is dropped as a duplicate, and ``Nats-Expected-Last-Subject-Sequence`` makes a second
writer's publish fail instead of interleaving.  :class:`EventStream` is the part of
:class:`.bus.Bus` that writes batches and reads them back (by match, through a short-lived
consumer for a catch-up, or every match's as they come: :mod:`.follow`); the KV buckets and
the connection are the rest of the bus (:mod:`.bus`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from nats.aio.client import Client
from nats.js.api import Header
from nats.js.client import JetStreamContext
from nats.js.errors import APIError, NotFoundError

from frontier.v1 import events_pb2

from .answers import Answers
from .follow import Follower, unacked_consumer
from .metrics import timed_publish
from .telemetry import inject_headers

SUBJECT_PREFIX = "frontier.match"
ALL_EVENTS = f"{SUBJECT_PREFIX}.*.events"
CATCH_UP_FETCH = 256  # batches per request of a catch-up (batches_after)
CATCH_UP_INACTIVE_S = 2.0  # how long the server keeps a catch-up's consumer once unused
WRONG_LAST_SEQUENCE = 10071  # JetStream error code: expected last subject sequence mismatch


def events_subject(match_id: str) -> str:
    return f"{SUBJECT_PREFIX}.{match_id}.events"


def turn_subject(match_id: str) -> str:
    return f"{SUBJECT_PREFIX}.{match_id}.turn"


class WriterConflict(Exception):
    """Another writer appended to this match's stream first (we are no longer its owner)."""


@dataclass(frozen=True, slots=True)
class StoredBatch:
    stream_seq: int
    batch: events_pb2.EventBatch


class EventStream:
    """The event stream's reads and writes, on the bus's connection (mixed into Bus, which
    sets these attributes)."""

    nc: Client
    js: JetStreamContext
    stream: str
    timeout_s: float  # for each JetStream request (as ``js``'s own)
    _followers: list[Follower]
    _answers: Answers | None  # JetStream's answers to publishes

    @timed_publish
    async def publish_batch(self, batch: events_pb2.EventBatch, expected_last_seq: int) -> int:
        """Append one batch; returns its stream sequence.  Raises WriterConflict.

        Safe to call again with the same batch after an unknown outcome (a timeout, a lost
        connection): the same ``Nats-Msg-Id`` and expected sequence make a second copy
        impossible, and whichever copy got in is recognised as this batch by its bytes.  A
        duplicate acknowledgement or a sequence mismatch is only a success when the message
        in the stream is this very batch; anything else there is another writer's."""
        first = batch.envelopes[0].seq if batch.envelopes else 0
        data = batch.SerializeToString()
        position = "abandoned" if batch.abandoned else str(first)
        headers = inject_headers(
            {
                "Nats-Msg-Id": f"{batch.match_id}:{position}",
                "Nats-Expected-Last-Subject-Sequence": str(expected_last_seq),
            }
        )
        headers[Header.EXPECTED_STREAM] = self.stream  # as js.publish(stream=...) sets it
        subject = events_subject(batch.match_id)
        try:
            seq, duplicate = await self._js_publish(subject, data, headers)
        except APIError as exc:
            if exc.err_code != WRONG_LAST_SEQUENCE:
                raise
            # Something follows expected_last_seq: our own earlier attempt, or another writer.
            landed = await self._next_on_subject(subject, expected_last_seq)
            if landed is not None and landed[1] == data:
                return landed[0]
            raise WriterConflict(str(exc)) from exc
        if duplicate:
            landed = await self._next_on_subject(subject, expected_last_seq)
            if landed is None or landed[0] != seq or landed[1] != data:
                raise WriterConflict(
                    f"message id {position} of {batch.match_id} holds another batch"
                )
        return seq

    async def _js_publish(
        self, subject: str, data: bytes, headers: dict[str, str]
    ) -> tuple[int, bool]:
        """A JetStream publish, as ``JetStreamContext.publish`` makes it (the message with a
        reply subject; JetStream answers there), read for the two fields the commit path
        uses: the stream sequence and whether it was a duplicate.  Raises what that method
        raises: APIError (of the error's class) for an error answer, NoStreamResponseError
        when no stream takes the subject, nats' TimeoutError when no answer came in time.

        Why not that method: around each answer it spends Python on things the commit path
        does not need -- a new NUID and random token for the reply subject,
        ``asyncio.wait_for``, a ``PubAck`` dataclass built field by field -- a noticeable
        share of the client's CPU per publish next to the socket, the protocol parser and
        nats-py's publish.  The answers come to one subscription of this connection
        (:class:`.answers.Answers`)."""
        answers = self._answers
        if answers is None:
            answers = self._answers = Answers(self.nc)
        answer = await answers.request(subject, data, headers, self.timeout_s)
        error = answer.get("error")
        if error is not None:
            raise APIError.from_error(error)
        return int(answer["seq"]), bool(answer.get("duplicate", False))

    async def _next_on_subject(self, subject: str, after_seq: int) -> tuple[int, bytes] | None:
        """The first message of ``subject`` after stream position ``after_seq``, if any."""
        try:
            raw = await self.js.get_msg(self.stream, seq=after_seq + 1, subject=subject, next=True)
        except NotFoundError:
            return None
        return int(raw.seq or 0), raw.data or b""

    async def read_batches(self, match_id: str, after_stream_seq: int = 0) -> list[StoredBatch]:
        """Every committed batch of a match after a stream position, in order."""
        out: list[StoredBatch] = []
        async for stored in self.iter_batches(match_id, after_stream_seq):
            out.append(stored)
        return out

    async def iter_batches(
        self, match_id: str, after_stream_seq: int = 0
    ) -> AsyncIterator[StoredBatch]:
        subject = events_subject(match_id)
        seq = after_stream_seq + 1
        while True:
            try:
                raw = await self.js.get_msg(self.stream, seq=seq, subject=subject, next=True)
            except NotFoundError:
                return
            batch = events_pb2.EventBatch.FromString(raw.data or b"")
            yield StoredBatch(int(raw.seq or 0), batch)
            seq = int(raw.seq or 0) + 1

    async def batches_after(
        self, match_id: str, after_stream_seq: int = 0
    ) -> AsyncGenerator[StoredBatch, None]:
        """Like :meth:`iter_batches`, through one short-lived consumer: one request and a
        burst of messages rather than one request (JSON, base64, parsed headers) per batch.
        Why: a domain service called for one command in fifty lags by dozens of batches,
        and reading them one request each made catch-ups most of a rarely called
        service's CPU."""
        config = unacked_consumer(after_stream_seq + 1, CATCH_UP_INACTIVE_S)
        config.filter_subject = events_subject(match_id)
        config.name = self.nc.new_inbox().rsplit(".", 1)[-1]
        info = await self.js.add_consumer(self.stream, config)
        left = int(info.num_pending or 0)
        if not left:
            return
        sub = await self.js.pull_subscribe_bind(consumer=config.name, stream=self.stream)
        try:
            while left > 0:
                msgs = await sub.fetch(min(left, CATCH_UP_FETCH), timeout=self.timeout_s)
                for msg in msgs:
                    yield StoredBatch(
                        int(msg.metadata.sequence.stream),
                        events_pb2.EventBatch.FromString(msg.data),
                    )
                left -= len(msgs)
        finally:
            await sub.unsubscribe()  # the server drops the consumer itself, soon after

    async def last_write_unix_ms(self, match_id: str) -> int:
        """When the match's last batch was stored (0: it has none)."""
        try:
            raw = await self.js.get_msg(self.stream, subject=events_subject(match_id))
        except NotFoundError:
            return 0
        return int(raw.time.timestamp() * 1000) if raw.time else 0

    async def last_stream_seq(self, match_id: str) -> int:
        try:
            raw = await self.js.get_msg(self.stream, subject=events_subject(match_id))
        except NotFoundError:
            return 0
        return int(raw.seq or 0)

    async def follow_all(
        self, handler: Callable[[int, events_pb2.EventBatch], Awaitable[None]]
    ) -> Follower:
        """Deliver every new batch of every match to ``handler``, in stream order, in
        rounds (see follow.py); stopped by :meth:`close`."""
        follower = Follower(self.js, self.stream, ALL_EVENTS, handler, nc=self.nc)
        await follower.start()
        self._followers.append(follower)
        return follower
