"""The NATS side of Frontier: one connection, the event stream and the match buckets (KV).

* the event stream (FRONTIER_EVENTS, ``frontier.match.<id>.events``): one message per
  accepted command, its batch of events -- written and read by :mod:`.event_stream`.
* KV ``frontier-matches``: match id -> record (config with the secret seed, token hashes).
* KV ``frontier-snapshots``: match id -> latest snapshot (state + stream position).
* KV ``frontier-standing``: ``<match id>.<seat>`` -> that seat's standing answers (JSON).
* KV ``frontier-leases``: which orchestrator hosts which match (orchestrator/leases.py).
* KV ``frontier-host-keys``: key id -> host key record, its secret hashed (store/host_keys.py).
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
from collections.abc import Awaitable, Callable, Mapping

import nats
import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import StorageType, StreamConfig
from nats.js.client import JetStreamContext
from nats.js.errors import (
    APIError,
    BucketNotFoundError,
    KeyNotFoundError,
    KeyWrongLastSequenceError,
    NoKeysError,
    NoStreamResponseError,
    NotFoundError,
    ServiceUnavailableError,
)
from nats.js.kv import KeyValue

from .answers import Answers, ConnectionLost
from .event_stream import (
    ALL_EVENTS,
    SUBJECT_PREFIX,
    EventStream,
    StoredBatch,
    WriterConflict,
    events_subject,
    turn_subject,
)
from .failure_log import FailureLog
from .follow import Follower
from .nats_internals import fail_waiting_requests
from .settings import ServiceSettings
from .stream_subjects import ListedKeyValue, stream_subjects

log = logging.getLogger("frontier.bus")


def connection_log() -> dict[str, Callable[..., Awaitable[None]]]:
    """nats-py's callbacks, logging through a :class:`FailureLog`: nats-py's own error
    callback logs a traceback for every failed reconnect attempt (two a second while the
    server is down); these log the first error of each type, summaries, and the
    reconnection once."""
    failures = FailureLog(log)

    async def error_cb(exc: Exception) -> None:
        failures.failed(f"nats {type(exc).__name__}", "the NATS connection", exc)

    async def reconnected_cb() -> None:
        failures.recovered_all("the NATS connection")

    return {
        "error_cb": error_cb,
        "reconnected_cb": reconnected_cb,
    }


LOBBY = "frontier.lobby"
MATCHES_BUCKET = "frontier-matches"
SNAPSHOTS_BUCKET = "frontier-snapshots"
LEASES_BUCKET = "frontier-leases"
HOST_KEYS_BUCKET = "frontier-host-keys"
STANDING_BUCKET = "frontier-standing"
ARENA_BUCKET = "frontier-arena"
PROBE_SUBJECT = "frontier.probe"  # + ".<orchestrator>": the write path's probes
DUPLICATE_WINDOW_S = 120.0  # how long a retried publish is recognised (JetStream's default)
# what JetStream answers (or fails to) while it is still starting: a new cluster has no meta
# leader for a few seconds, and a node just restarted is still catching up
JETSTREAM_NOT_READY = (
    nats.errors.TimeoutError,
    nats.errors.NoRespondersError,
    ServiceUnavailableError,
)


# How the connection heals.  nats-py tries a lost server again every RECONNECT_WAIT_S (a
# refused connection costs nothing), so a restarted nats-server is found within that; and it
# pings every PING_INTERVAL_S, a connection with MAX_OUTSTANDING_PINGS unanswered being given
# up for another server -- nats-py's defaults (2 minutes, 2) left a client on a server that
# vanished without closing its sockets (a dead host, a partition) for four minutes.
RECONNECT_WAIT_S = 0.25
PING_INTERVAL_S = 5.0
MAX_OUTSTANDING_PINGS = 3


def servers_of(url: str) -> list[str]:
    """``nats://a:4222,nats://b:4222`` -> one URL per server (blanks dropped)."""
    servers = [part.strip() for part in url.split(",") if part.strip()]
    if not servers:
        raise ValueError(f"no NATS server in {url!r}")
    return servers


class Bus(EventStream):
    """One NATS connection with the JetStream objects Frontier uses: the event stream's
    reads and writes (:class:`.event_stream.EventStream`), the match buckets, the lobby."""

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
    async def for_service(cls, settings: ServiceSettings, name: str) -> Bus:
        """:meth:`connect` as a service's settings configure it (``name`` names the
        connection in nats-server's monitoring: ``frontier-orchestrator``...)."""
        return await cls.connect(
            settings.nats_url,
            settings.stream,
            name=name,
            replicas=settings.nats_replicas,
            timeout_s=settings.call_timeout_s,
            startup_wait_s=settings.nats_startup_wait_s,
            max_age_s=settings.stream_max_age_s,
        )

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
        the module).  A request waiting for its answer when the connection is lost fails
        then (see :meth:`connection_lost`)."""
        buses: list[Bus] = []

        async def disconnected() -> None:
            for bus in buses:
                bus.connection_lost()

        nc = await nats.connect(
            servers_of(url),
            name=name or "frontier",
            max_reconnect_attempts=-1,
            reconnect_time_wait=RECONNECT_WAIT_S,
            ping_interval=PING_INTERVAL_S,
            max_outstanding_pings=MAX_OUTSTANDING_PINGS,
            connect_timeout=5,
            disconnected_cb=disconnected,
            **connection_log(),
        )
        bus = cls(nc, nc.jetstream(timeout=timeout_s), stream, replicas, max_age_s, timeout_s)
        buses.append(bus)
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
        """The bucket, created if missing; ``retained``: its entries expire after max age.
        Its ``keys()`` is the server's list of subjects (``ListedKeyValue``)."""
        try:
            await self.js.key_value(name)
        except (BucketNotFoundError, NotFoundError):
            try:
                await self.js.create_key_value(bucket=name, history=1, replicas=self.replicas)
            except APIError as exc:
                try:
                    await self.js.key_value(name)
                except (BucketNotFoundError, NotFoundError):
                    raise RuntimeError(
                        f"cannot create the KV bucket {name} with {self.replicas} "
                        f"replica(s): {exc.description}"
                    ) from exc
        if retained:
            await self._retain(f"KV_{name}")
        return await ListedKeyValue.open(self.nc, self.js, name, self.timeout_s)

    def connection_lost(self) -> None:
        """The connection is lost: every request still waiting for its answer -- a batch's
        publish, nats-py's own (JetStream API, KV) -- fails now with ConnectionLost rather
        than waiting out ``timeout_s`` (its answer went with the connection).  ConnectionLost
        is a timeout: the commit path publishes the batch again, which nats-py sends as soon
        as it is connected again, and a read is answered UNAVAILABLE."""
        failed = fail_waiting_requests(self.nc, ConnectionLost)
        if self._answers is not None:
            failed += self._answers.connection_lost()
        if not self.nc.is_closed:
            log.warning(
                "the connection to NATS is lost; %d request(s) waiting for an answer are "
                "settled again once it is back",
                failed,
            )

    async def close(self) -> None:
        for follower in self._followers:
            await follower.stop()
        self._followers.clear()
        if not self.nc.is_closed:
            await self.nc.drain()

    # ----- the match buckets: registry, snapshots, standing answers, leases ---------------
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
        """Every match id of the matches bucket, sorted, from the server's own list of the
        bucket stream's subjects (see stream_subjects.py for why not ``keys()``).  The
        bucket's keys are never deleted (they age out with the stream, which removes their
        subjects), so every subject is a match."""
        prefix = f"$KV.{MATCHES_BUCKET}."
        return await stream_subjects(self.nc, f"KV_{MATCHES_BUCKET}", prefix, self.timeout_s)

    async def leases_bucket(self) -> KeyValue:
        """The KV bucket of match leases (many orchestrators; see orchestrator/leases.py)."""
        return await self._bucket(LEASES_BUCKET)

    async def host_keys_bucket(self) -> KeyValue:
        """The KV bucket of host keys (store/host_keys.py): kept for ever, whatever the
        matches' retention, since a key outlives every match it hosts."""
        return await self._bucket(HOST_KEYS_BUCKET)

    async def arena_bucket(self) -> KeyValue:
        """The KV bucket of the bot arena (frontier/arena/store.py): its bots, board and
        matches in play, kept for ever like the host keys (a board outlives its matches)."""
        return await self._bucket(ARENA_BUCKET)

    async def probe_write(self, who: str) -> None:
        """Store one tiny message in the probe stream (``<stream>_PROBE``, created here if
        missing, one message kept per writer) and wait for its acknowledgement: raises
        what a batch's publish would while JetStream cannot store (a store disk full, no
        quorum, JetStream disabled).  Why a stream of its own: a probe in the event stream
        would reach every follower of it.  It shares the event stream's store, and
        nats-server refuses writes to every stream of a store that failed to write until
        JetStream is enabled again, so it answers for the event stream too."""
        timeout = min(self.timeout_s, 2.0)
        subject = f"{PROBE_SUBJECT}.{who}"
        try:
            await self.js.publish(subject, b"", timeout=timeout)
        except (nats.errors.NoRespondersError, NoStreamResponseError):
            # no stream takes the subject (first probe, or the stream was removed): create
            # it; a JetStream that is down raises here as well
            await self.js.add_stream(
                StreamConfig(
                    name=f"{self.stream}_PROBE",
                    subjects=[f"{PROBE_SUBJECT}.>"],
                    storage=StorageType.FILE,
                    num_replicas=self.replicas,
                    max_msgs_per_subject=1,
                )
            )
            await self.js.publish(subject, b"", timeout=timeout)

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
        except NoKeysError:  # an empty bucket
            return []
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


__all__ = [
    "ALL_EVENTS",
    "LEASES_BUCKET",
    "LOBBY",
    "MATCHES_BUCKET",
    "SNAPSHOTS_BUCKET",
    "STANDING_BUCKET",
    "SUBJECT_PREFIX",
    "Bus",
    "StoredBatch",
    "WriterConflict",
    "events_subject",
    "servers_of",
    "turn_subject",
]
