"""Prometheus metrics of every Frontier process (prometheus-client), and the endpoint.

Every service serves ``/metrics`` on ``FRONTIER_METRICS_PORT`` (a default per service, see
``DEFAULT_METRICS_PORTS``; 0 turns it off) from a thread of prometheus-client's own, so a
scrape never waits for the event loop.  What each process exports:

* every service: ``frontier_rpc_duration_seconds{method,code}`` (a histogram per RPC, from
  a gRPC server interceptor; its ``_count`` is the calls by result code) and
  ``frontier_rpc_errors_total{method,code,reason}`` (the calls that failed, by the
  machine-readable reason their status carries: the code says who should act, the reason
  why; both label sets are bounded, by the methods served and the ``ErrorReason`` enum);
* the orchestrator: ``frontier_commands_total{kind,result,answered_by}`` (each command that
  reaches the commit path, whoever answered it; requests refused before it -- a bad token, a
  stale version -- show in the RPC histogram's codes), ``frontier_matches_hosted``,
  ``frontier_matches_active``, ``frontier_matches_finished_total``,
  ``frontier_open_decisions``, ``frontier_match_loads_in_flight``,
  ``frontier_strikes_total``, ``frontier_takeovers_total``, ``frontier_lease_takeovers_total``,
  ``frontier_jetstream_publish_seconds``,
  ``frontier_write_path_up`` (1 while JetStream takes its writes, 0 while it does not) and
  ``frontier_write_path_failures_total{reason}`` (see orchestrator/write_path.py),
  ``frontier_watch_streams{kind}`` (open WatchEvents streams: ``spectator`` or ``seat``; a web
  gateway shares one spectator stream per watched match among all its watchers);
* the domain services: ``frontier_projection_catch_ups_total`` (a request found its
  projection behind and read the stream itself, as NATS had not delivered yet).

Why these hooks are decorators and one-line calls: the commit path and the hosting code
change often, and instrumentation that is not woven through their bodies survives that.
The gauges of hosted matches are read when scraped, from the orchestrator's own table, so
nothing has to keep them up to date.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeVar

import grpc
from prometheus_client import REGISTRY, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from frontier.engine import to_act
from frontier.v1 import events_pb2

from .errors import classify, reason_in, status_for

# gRPC calls take from well under a millisecond (a domain call) to seconds (a queue)
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)

RPC_SECONDS = Histogram(
    "frontier_rpc_duration_seconds",
    "gRPC calls served, by full method name and status code",
    ["method", "code"],
    buckets=LATENCY_BUCKETS,
)
RPC_ERRORS = Counter(
    "frontier_rpc_errors_total",
    "gRPC calls served that failed, by full method name, status code and ErrorInfo reason",
    ["method", "code", "reason"],
)
COMMANDS = Counter(
    "frontier_commands_total",
    "commands through the commit path, by command kind, result code and who answered",
    ["kind", "result", "answered_by"],
)
MATCHES_FINISHED = Counter("frontier_matches_finished_total", "matches this process ended")
STRIKES = Counter("frontier_strikes_total", "deadlines missed (the default command played)")
TAKEOVERS = Counter("frontier_takeovers_total", "seats handed to the built-in bot")
LEASE_TAKEOVERS = Counter(
    "frontier_lease_takeovers_total", "matches taken over from another orchestrator's lease"
)
PUBLISH_SECONDS = Histogram(
    "frontier_jetstream_publish_seconds",
    "JetStream publish of one command's batch, until acknowledged",
    buckets=LATENCY_BUCKETS,
)
WRITE_PATH_UP = Gauge(
    "frontier_write_path_up",
    "1 while this orchestrator can write its event stream, 0 while JetStream refuses or does "
    "not answer its writes (store full, JetStream disabled, no quorum)",
)
WRITE_PATH_FAILURES = Counter(
    "frontier_write_path_failures_total",
    "JetStream writes (batches and probes) that failed, by reason: storage_full, no_answer, "
    "jetstream_unavailable, jetstream_disabled, disconnected, refused, other",
    ["reason"],
)
BOT_CPU_SECONDS = Counter(
    "frontier_bot_cpu_seconds_total",
    "CPU seconds the built-in bots spent choosing, in their worker processes, by bot",
    ["bot"],
)
# by host key id (never its secret): keys are issued one by one by an operator, so the
# series stay as few as the keys; every anonymous caller is the one label "anonymous"
HOST_BOT_CPU_SECONDS = Counter(
    "frontier_host_bot_cpu_seconds_total",
    "CPU seconds the built-in bots of each host key's matches spent choosing (the bot_cpu "
    "quota's count), by key id; anonymous callers together as 'anonymous'",
    ["key"],
)
# by quota only: a label per host key would grow with every key an operator issues
QUOTA_REJECTIONS = Counter(
    "frontier_quota_rejections_total",
    "host calls refused QUOTA_EXCEEDED, by quota: matches_hosted, creates_per_minute, "
    "bot_seats, bot_cpu",
    ["quota"],
)
BOT_CPU_FALLBACKS = Counter(
    "frontier_bot_cpu_fallbacks_total",
    "bot decisions made by the cheapest bot because the match's host key spent its bot CPU "
    "seconds of the hour",
)
REPLAY_EXPORTS = Counter(
    "frontier_replay_exports_total",
    "ExportReplay answers, by where the replay came from: computed (read from the stream and "
    "filtered), joined (waited for a computation already running) or cache (an ended match's "
    "replay kept in memory)",
    ["source"],
)
CATCH_UPS = Counter(
    "frontier_projection_catch_ups_total",
    "requests whose projection lagged and read the event stream itself",
)

PROJECTION_STARTS = Counter(
    "frontier_projection_starts_total",
    "match projections a domain service started, by what from: the request's start "
    "(request), the match's record alone (record) or its snapshot and stream (stream)",
    ["source"],
)

R = TypeVar("R")
log = logging.getLogger("frontier.metrics")


def serve_metrics(port: int, host: str) -> Callable[[], None]:
    """Start the ``/metrics`` endpoint; returns how to stop it.

    Metrics are best effort, like traces: a port that is taken is logged as an error and the
    service runs on without the endpoint, rather than a game server going down for it."""
    try:
        server, thread = start_http_server(port, addr=host)
    except OSError as exc:
        log.error("no /metrics endpoint: cannot listen on %s:%d (%s)", host, port, exc)
        return lambda: None

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(5)

    return stop


# ----- the gRPC server interceptor ---------------------------------------------------------------
def _code_of(context: Any, exc: BaseException | None) -> str:
    """The status a call ended with: the one its handler set (abort sets it too), else OK,
    or what an escaping exception maps to."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code.name
    if exc is None:
        return "OK"
    if isinstance(exc, (asyncio.CancelledError, GeneratorExit)):  # the client went away
        return "CANCELLED"
    if isinstance(exc, grpc.aio.AbortError):
        return "UNKNOWN"
    return status_for(exc)[0].name


class RpcMetrics(grpc.aio.ServerInterceptor):
    """Times every call and records its status code, for all four kinds of RPC."""

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:  # an unknown method: gRPC answers UNIMPLEMENTED itself
            return None
        method = handler_call_details.method
        serializers = (handler.request_deserializer, handler.response_serializer)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                _timed_unary(method, handler.unary_unary), *serializers
            )
        if handler.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(
                _timed_unary(method, handler.stream_unary), *serializers
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                _timed_stream(method, handler.unary_stream), *serializers
            )
        assert handler.stream_stream is not None
        return grpc.stream_stream_rpc_method_handler(
            _timed_stream(method, handler.stream_stream), *serializers
        )


# The histogram's child per (method, code): prometheus-client's labels() validates and locks
# on every call.  Bounded: only methods some service registered reach it, and 17 codes.
_rpc_child = functools.cache(RPC_SECONDS.labels)


def observe_rpc(method: str, code: str, seconds: float) -> None:
    """Record one call that reached its handler some other way than as its own RPC (a
    domain call on a DomainCallService stream) under the same method and code labels."""
    _rpc_child(method, code).observe(seconds)


class _Recorded:
    """Observes one call's duration under its method and final status code.  A class
    rather than a ``contextlib.contextmanager`` generator: it wraps every call of every
    service, and a generator-based one costs a generator and its manager per call."""

    __slots__ = ("context", "method", "started")

    def __init__(self, method: str, context: Any) -> None:
        self.method = method
        self.context = context
        self.started = time.perf_counter()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, failure: BaseException | None, tb: object) -> None:
        code = _code_of(self.context, failure)
        _rpc_child(self.method, code).observe(time.perf_counter() - self.started)
        if code != "OK":
            _error_child(self.method, code, _reason_of(self.context, failure, code)).inc()


_error_child = functools.cache(RPC_ERRORS.labels)


def _reason_of(context: Any, failure: BaseException | None, code: str) -> str:
    """The reason a failed call's status carries (what the client reads in its ErrorInfo):
    from the trailer an abort set, else what an escaping exception maps to, else the code's
    name (a status set without a reason, a client that went away)."""
    trailer = getattr(context, "trailing_metadata", None)  # none on some test doubles
    reason = reason_in(trailer()) if trailer is not None else ""
    if reason:
        return reason
    if failure is not None and not isinstance(
        failure, (grpc.aio.AbortError, asyncio.CancelledError, GeneratorExit)
    ):
        return classify(failure)[2]
    return code


def _timed_unary(method: str, behavior: Callable[..., Any]) -> Callable[..., Any]:
    async def timed(request: Any, context: Any) -> Any:
        with _Recorded(method, context):
            return await behavior(request, context)

    return timed


def _timed_stream(method: str, behavior: Callable[..., Any]) -> Callable[..., Any]:
    """A streaming handler is an async generator, or a coroutine that writes its replies
    with ``context.write`` (grpc-health's Watch): the wrapper is of the same kind."""
    if not inspect.isasyncgenfunction(behavior):
        return _timed_unary(method, behavior)

    async def timed(request: Any, context: Any) -> Any:
        with _Recorded(method, context):
            async for reply in behavior(request, context):
                yield reply

    return timed


# ----- the orchestrator --------------------------------------------------------------------------
def counted_commit(commit: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Decorates ``CommitPath.commit(hosted, seat, cmd, command_id, by)``: one command
    counted by kind and result, and the strikes, takeovers and match ends it caused."""

    @functools.wraps(commit)
    async def wrapper(self: Any, hosted: Any, seat: Any, cmd: Any, command_id: str, by: int) -> R:
        before = hosted.clock_of(seat)
        was_over = bool(hosted.state.over)
        answered_by = _answered_by(by)
        try:
            result = await commit(self, hosted, seat, cmd, command_id, by)
        except Exception as exc:
            _command_child(cmd.kind.value, status_for(exc)[0].name, answered_by).inc()
            raise
        _command_child(cmd.kind.value, "OK", answered_by).inc()
        after = hosted.clock_of(seat)
        if after.strikes > before.strikes:
            STRIKES.inc(after.strikes - before.strikes)
        if after.taken_over and not before.taken_over:
            TAKEOVERS.inc()
        if hosted.state.over and not was_over:
            MATCHES_FINISHED.inc()
        return result

    return wrapper


# Cached like _rpc_child: command kinds, result codes and answerers are few.
_command_child = functools.cache(COMMANDS.labels)


@functools.cache
def _answered_by(by: int) -> str:
    return events_pb2.AnsweredBy.Name(by).removeprefix("ANSWERED_BY_")  # type: ignore[arg-type]


def timed_publish(publish: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Decorates ``Bus.publish_batch``: the time until JetStream acknowledged the batch."""

    @functools.wraps(publish)
    async def wrapper(*args: Any, **kwargs: Any) -> R:
        # timed by hand: ``Histogram.time()`` builds a context-manager object per call
        started = time.perf_counter()
        try:
            return await publish(*args, **kwargs)
        finally:
            PUBLISH_SECONDS.observe(time.perf_counter() - started)

    return wrapper


class HostedMatches(Collector):
    """The gauges of the matches the orchestrators of this process hold (one, except in
    tests), read from their tables when scraped.

    A table is an orchestrator's ``match id -> HostedMatch`` dict; copying its values is one
    C call under the GIL, so the scrape thread never sees it half-changed."""

    def __init__(self) -> None:
        self.tables: list[Mapping[str, Any]] = []
        self.loading: list[Mapping[str, Any]] = []  # each orchestrator's loads in flight

    def collect(self) -> Iterable[GaugeMetricFamily]:
        hosted = [h for table in list(self.tables) for h in list(table.values())]
        loads = sum(len(table) for table in list(self.loading))
        active = [h for h in hosted if not h.state.over]
        waiting = [h for h in active if to_act(h.state) is not None]
        yield _gauge("frontier_matches_hosted", "matches held in memory", len(hosted))
        yield _gauge("frontier_matches_active", "hosted matches not over yet", len(active))
        yield _gauge(
            "frontier_open_decisions", "hosted matches waiting for a seat's answer", len(waiting)
        )
        yield _gauge(
            "frontier_match_loads_in_flight",
            "match ids being looked up or loaded now (none stays once the lookups end)",
            loads,
        )


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


HOSTED = HostedMatches()
REGISTRY.register(HOSTED)


def watch_matches(
    matches: Mapping[str, Any], loading: Mapping[str, Any] | None = None
) -> Callable[[], None]:
    """Export the gauges of ``matches`` (and of the ids being ``loading``) until the
    returned function is called."""
    HOSTED.tables.append(matches)
    loads = loading if loading is not None else {}
    HOSTED.loading.append(loads)

    def unwatch() -> None:
        HOSTED.tables.remove(matches)
        HOSTED.loading.remove(loads)

    return unwatch


class WatchStreams(Collector):
    """``frontier_watch_streams{kind}``: the watch streams open on the orchestrators of this
    process, and how the spectators spread over matches, read when scraped from each one's
    watcher table (anything with ``streams()`` giving counts by kind and
    ``spectators_per_match()`` giving one count per watched match, so this module needs no
    orchestrator import).  Per match, not by a match label: a label per match would grow a
    series for every match ever watched."""

    def __init__(self) -> None:
        self.sources: list[Any] = []

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "frontier_watch_streams",
            "open WatchEvents streams, by kind: spectator or seat",
            labels=["kind"],
        )
        totals: dict[str, int] = {"spectator": 0, "seat": 0}
        per_match: list[int] = []
        for source in list(self.sources):
            for kind, count in source.streams().items():
                totals[kind] = totals.get(kind, 0) + count
            per_match.extend(source.spectators_per_match())
        for kind, count in sorted(totals.items()):
            family.add_metric([kind], count)
        yield family
        yield GaugeMetricFamily(
            "frontier_watched_matches",
            "matches with at least one spectator stream open (a web gateway's watched match "
            "is one stream)",
            value=len(per_match),
        )
        yield GaugeMetricFamily(
            "frontier_spectators_busiest_match",
            "spectator streams of the most watched match (FRONTIER_WATCHERS_PER_MATCH caps it)",
            value=max(per_match, default=0),
        )


WATCH_STREAMS = WatchStreams()
REGISTRY.register(WATCH_STREAMS)


def watch_streams(watchers: Any) -> Callable[[], None]:
    """Export ``watchers``' open streams (``frontier_watch_streams``) until the returned
    function is called."""
    WATCH_STREAMS.sources.append(watchers)

    def unwatch() -> None:
        WATCH_STREAMS.sources.remove(watchers)

    return unwatch
