"""The NATS side of Frontier: JetStream event stream, match registry and snapshots (KV).

* ``frontier.match.<id>.events`` (stream FRONTIER_EVENTS): one message per accepted command,
  an :class:`EventBatch` holding all its events.  ``Nats-Msg-Id`` = ``<id>:<first seq>`` so
  a retried publish is dropped as a duplicate, and ``Nats-Expected-Last-Subject-Sequence``
  makes a second writer's publish fail instead of interleaving.
* KV ``frontier-matches``: match id -> record (config with the secret seed, token hashes).
* KV ``frontier-snapshots``: match id -> latest snapshot (state + stream position).
* KV ``frontier-standing``: ``<match id>.<seat>`` -> that seat's standing answers (JSON).
* ``frontier.lobby``: match created / ended notices (plain subscribers).

On a JetStream cluster the stream and the buckets are created with ``replicas`` copies
(``FRONTIER_NATS_REPLICAS``: 3 on a three-node cluster), so that an acknowledged write is on
a majority of the nodes.  The replica count is fixed when a stream or bucket is created: one
that already exists keeps its own (``nats stream edit`` changes it).

Retention (``FRONTIER_STREAM_MAX_AGE_S``, 0 = keep for ever) is the one setting that is
applied to an existing stream too: every service sets the event stream's and the match
buckets' (matches, snapshots, standing answers) maximum age on start-up, so changing it
takes effect with the next start instead of failing.  Each entry then expires that long
after it was written.  A match's record is the first thing written for it, so it is the
first to expire: from then on the match is unknown (NOT_FOUND), never half loaded, and its
remaining batches and snapshot follow within the match's own duration.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass

import nats
import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import Header, StorageType, StreamConfig
from nats.js.client import JetStreamContext
from nats.js.errors import (
    APIError,
    BucketNotFoundError,
    KeyNotFoundError,
    KeyWrongLastSequenceError,
    NotFoundError,
    ServiceUnavailableError,
)
from nats.js.kv import KeyValue

from frontier.v1 import events_pb2

from .answers import Answers
from .follow import Follower, unacked_consumer
from .metrics import timed_publish
from .telemetry import inject_headers

log = logging.getLogger("frontier.bus")

SUBJECT_PREFIX = "frontier.match"
ALL_EVENTS = f"{SUBJECT_PREFIX}.*.events"
LOBBY = "frontier.lobby"
MATCHES_BUCKET = "frontier-matches"
SNAPSHOTS_BUCKET = "frontier-snapshots"
LEASES_BUCKET = "frontier-leases"
STANDING_BUCKET = "frontier-standing"
DUPLICATE_WINDOW_S = 120.0  # how long a retried publish is recognised (JetStream's default)
CATCH_UP_FETCH = 256  # batches per request of a catch-up (batches_after)
CATCH_UP_INACTIVE_S = 2.0  # how long the server keeps a catch-up's consumer once unused
WRONG_LAST_SEQUENCE = 10071  # JetStream error code: expected last subject sequence mismatch
# what JetStream answers (or fails to) while it is still starting: a new cluster has no meta
# leader for a few seconds, and a node just restarted is still catching up
JETSTREAM_NOT_READY = (
    nats.errors.TimeoutError,
    nats.errors.NoRespondersError,
    ServiceUnavailableError,
)


def servers_of(url: str) -> list[str]:
    """``nats://a:4222,nats://b:4222`` -> one URL per server (blanks dropped)."""
    servers = [part.strip() for part in url.split(",") if part.strip()]
    if not servers:
        raise ValueError(f"no NATS server in {url!r}")
    return servers


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


class Bus:
    """One NATS connection with the JetStream objects Frontier uses."""

    def __init__(
        self,
        nc: Client,
        js: JetStreamContext,
        stream: str,
        replicas: int = 1,
        max_age_s: float | None = None,
        timeout_s: float = 5.0,
    ) -> None:
        self.nc = nc
        self.js = js
        self.stream = stream
        self.replicas = replicas
        # retention of the stream and match buckets (0: for ever); None: a reader that
        # leaves whatever the services set alone
        self.max_age_s = max_age_s
        self.timeout_s = timeout_s  # for each JetStream request (as ``js``'s own)
        self._matches: KeyValue | None = None
        self._snapshots: KeyValue | None = None
        self._standing: KeyValue | None = None
        self._followers: list[Follower] = []
        self._answers: Answers | None = None  # JetStream's answers to publishes

    @classmethod
    async def connect(
        cls,
        url: str,
        stream: str = "FRONTIER_EVENTS",
        name: str = "",
        timeout_s: float = 5.0,
        replicas: int = 1,
        max_age_s: float | None = None,
        startup_wait_s: float = 60.0,
    ) -> Bus:
        """Connect (reconnecting for ever after a loss); every JetStream and KV request
        then waits at most ``timeout_s`` for its answer, and the stream and buckets are made
        ready within ``startup_wait_s`` (see :meth:`ensure_when_ready`).  ``url`` may list
        several servers of one cluster, comma-separated: the client starts with any that
        answers and learns the others from the cluster.  ``max_age_s`` is the retention (see
        the module)."""
        nc = await nats.connect(
            servers_of(url),
            name=name or "frontier",
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.5,
            connect_timeout=5,
        )
        bus = cls(nc, nc.jetstream(timeout=timeout_s), stream, replicas, max_age_s, timeout_s)
        try:
            await bus.ensure_when_ready(startup_wait_s)
        except BaseException:
            await nc.close()
            raise
        return bus

    async def ensure_when_ready(self, wait_s: float) -> None:
        """:meth:`ensure`, retried while JetStream is not answering yet, for ``wait_s`` at most.

        Why: services start alongside NATS (compose, Kubernetes), and a JetStream cluster
        answers its API only once it has elected a meta leader, seconds after its nodes are
        up and pass their health checks.  A service that gave up at the first timeout would
        exit and fail the whole deployment's start.  Anything else (a configuration the
        cluster cannot hold, a refused request) is not a matter of waiting and is raised at
        once; so is the last "not ready" once ``wait_s`` has passed."""
        deadline = time.monotonic() + wait_s
        delay = 0.25
        while True:
            try:
                await self.ensure()
                return
            except JETSTREAM_NOT_READY as exc:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(
                        f"JetStream did not answer within {wait_s:g} s "
                        f"({type(exc).__name__}); is it enabled and does the cluster have "
                        "a leader?"
                    ) from exc
                log.warning("JetStream not ready (%s); retrying", type(exc).__name__)
                await asyncio.sleep(min(delay, left))
                delay = min(delay * 2, 2.0)

    async def ensure(self) -> None:
        """Create the stream and buckets if missing (idempotent; every service may call it)."""
        try:
            await self.js.stream_info(self.stream)
        except NotFoundError:
            try:
                await self.js.add_stream(
                    StreamConfig(
                        name=self.stream,
                        subjects=[ALL_EVENTS],
                        storage=StorageType.FILE,
                        duplicate_window=DUPLICATE_WINDOW_S,
                        num_replicas=self.replicas,
                    )
                )
            except APIError as exc:
                # created concurrently by another service, or impossible (more replicas
                # than JetStream nodes): only the second stops the process
                log.debug("add_stream: %s", exc)
                try:
                    await self.js.stream_info(self.stream)
                except NotFoundError:
                    raise RuntimeError(
                        f"cannot create the JetStream stream {self.stream} with "
                        f"{self.replicas} replica(s): {exc.description}"
                    ) from exc
        await self._retain(self.stream)
        self._matches = await self._bucket(MATCHES_BUCKET, retained=True)
        self._snapshots = await self._bucket(SNAPSHOTS_BUCKET, retained=True)
        self._standing = await self._bucket(STANDING_BUCKET, retained=True)

    async def _retain(self, stream: str) -> None:
        """Give an existing stream (or a bucket's ``KV_<name>`` stream) this bus's max age."""
        if self.max_age_s is None:
            return
        info = await self.js.stream_info(stream)
        current = info.config.max_age or 0.0
        if abs(current - self.max_age_s) < 0.001:
            return
        info.config.max_age = self.max_age_s
        # JetStream wants the duplicate window within the max age (only tests go that low)
        info.config.duplicate_window = min(DUPLICATE_WINDOW_S, self.max_age_s or DUPLICATE_WINDOW_S)
        await self.js.update_stream(info.config)
        log.info("stream %s: max age %g s -> %g s (0: for ever)", stream, current, self.max_age_s)

    async def _bucket(self, name: str, retained: bool = False) -> KeyValue:
        """The bucket, created if missing; ``retained``: its entries expire after max age."""
        try:
            bucket = await self.js.key_value(name)
        except (BucketNotFoundError, NotFoundError):
            try:
                bucket = await self.js.create_key_value(
                    bucket=name, history=1, replicas=self.replicas
                )
            except APIError as exc:
                try:
                    bucket = await self.js.key_value(name)
                except (BucketNotFoundError, NotFoundError):
                    raise RuntimeError(
                        f"cannot create the KV bucket {name} with {self.replicas} "
                        f"replica(s): {exc.description}"
                    ) from exc
        if retained:
            await self._retain(f"KV_{name}")
        return bucket

    async def close(self) -> None:
        for follower in self._followers:
            await follower.stop()
        self._followers.clear()
        if not self.nc.is_closed:
            await self.nc.drain()

    # ----- the event stream -----------------------------------------------------------------
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

        Why not that method: per command it spent ~40-50 µs of Python around the answer --
        a new NUID and random token for the reply subject, ``asyncio.wait_for``, a
        ``PubAck`` dataclass built field by field -- measured with uvloop against a real
        nats-server, 210-230 -> 175-180 µs of client CPU per publish (the rest is the
        socket, the protocol parser and nats-py's publish).  The answers come to one
        subscription of this connection (:class:`answers.Answers`)."""
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
        Why: a domain service called for one command in fifty lags by dozens of batches
        (measured: crafting's and combat's catch-ups were most of their CPU)."""
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
        follower = Follower(self.js, self.stream, ALL_EVENTS, handler)
        await follower.start()
        self._followers.append(follower)
        return follower

    # ----- the match registry and snapshots ---------------------------------------------------
    @property
    def matches(self) -> KeyValue:
        assert self._matches is not None, "call ensure() first"
        return self._matches

    @property
    def snapshots(self) -> KeyValue:
        assert self._snapshots is not None, "call ensure() first"
        return self._snapshots

    async def put_match(self, match_id: str, record: Mapping[str, object]) -> None:
        await self.matches.create(match_id, json.dumps(record).encode())

    async def get_match(self, match_id: str) -> dict[str, object] | None:
        try:
            entry = await self.matches.get(match_id)
        except (KeyNotFoundError, NotFoundError):
            return None
        if entry.value is None:
            return None
        record: dict[str, object] = json.loads(entry.value)
        return record

    async def update_match(
        self, match_id: str, change: Callable[[dict[str, object]], None]
    ) -> dict[str, object]:
        """Apply ``change`` to the match record and store it only if nobody wrote the
        record meanwhile (compare-and-set on its revision), trying again otherwise; returns
        the stored record.  ``change`` may raise to refuse, leaving the record as it was."""
        while True:
            entry = await self.matches.get(match_id)
            assert entry.value is not None and entry.revision is not None
            record: dict[str, object] = json.loads(entry.value)
            change(record)
            try:
                await self.matches.update(
                    match_id, json.dumps(record).encode(), last=entry.revision
                )
            except KeyWrongLastSequenceError:
                continue
            return record

    async def match_ids(self) -> list[str]:
        try:
            return sorted(await self.matches.keys())
        except Exception as exc:  # nats-py raises NoKeysError on an empty bucket
            if type(exc).__name__ == "NoKeysError":
                return []
            raise

    async def leases_bucket(self) -> KeyValue:
        """The KV bucket of match leases (many orchestrators; see orchestrator/leases.py)."""
        return await self._bucket(LEASES_BUCKET)

    async def put_snapshot(self, match_id: str, blob: bytes) -> None:
        await self.snapshots.put(match_id, blob)

    async def get_snapshot(self, match_id: str) -> bytes | None:
        try:
            entry = await self.snapshots.get(match_id)
        except (KeyNotFoundError, NotFoundError):
            return None
        return entry.value

    @property
    def standing(self) -> KeyValue:
        assert self._standing is not None, "call ensure() first"
        return self._standing

    async def put_standing(self, match_id: str, seat: str, answers: Mapping[str, str]) -> None:
        """Store one seat's standing answers (kind -> policy); they are private to the seat."""
        await self.standing.put(f"{match_id}.{seat}", json.dumps(dict(answers)).encode())

    async def get_standing(self, match_id: str, seat: str) -> dict[str, str]:
        try:
            entry = await self.standing.get(f"{match_id}.{seat}")
        except (KeyNotFoundError, NotFoundError):
            return {}
        if not entry.value:
            return {}
        answers: dict[str, str] = json.loads(entry.value)
        return answers

    async def standing_match_ids(self) -> list[str]:
        """Matches in which some seat has standing answers."""
        try:
            keys = await self.standing.keys()
        except Exception as exc:  # nats-py raises NoKeysError on an empty bucket
            if type(exc).__name__ == "NoKeysError":
                return []
            raise
        return sorted({key.split(".", 1)[0] for key in keys})

    async def lobby(self, notice: dict[str, object]) -> None:
        await self.nc.publish(LOBBY, json.dumps(notice).encode())

    async def follow_lobby(self, handler: Callable[[dict[str, object]], None]) -> None:
        """Call ``handler`` with each lobby notice (core NATS: live notices only)."""

        async def on_msg(msg: Msg) -> None:
            try:
                notice = json.loads(msg.data)
            except ValueError:
                return
            if isinstance(notice, dict):
                handler(notice)

        await self.nc.subscribe(LOBBY, cb=on_msg)
