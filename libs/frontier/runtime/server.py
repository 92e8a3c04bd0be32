"""Bootstrap of one gRPC service process: config -> server -> health -> graceful stop.

Every service exposes grpc.health.v1 (SERVING once ready, NOT_SERVING while draining) and
server reflection, and stops on SIGTERM/SIGINT after letting in-flight calls finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

import grpc
import uvloop
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from . import memtrace
from .guard import MAX_REQUEST_BYTES, RequestGuard
from .handler_cache import HandlerCache
from .metrics import RpcMetrics, serve_metrics
from .settings import ServiceSettings
from .telemetry import grpc_server_interceptors
from .tls import add_port

log = logging.getLogger("frontier.server")

Register = Callable[[grpc.aio.Server], None]


async def serve(
    name: str,
    settings: ServiceSettings,
    register: Register,
    service_names: Sequence[str],
    on_stop: Callable[[], Awaitable[None]] | None = None,
    ready: asyncio.Event | None = None,
    stop: asyncio.Event | None = None,
    on_drain: Callable[[], Awaitable[None]] | None = None,
    public: bool = False,
    on_serving: Callable[[health.aio.HealthServicer], Awaitable[None]] | None = None,
) -> None:
    """Run the server until SIGTERM/SIGINT (or ``stop`` is set).

    ``public``: the services take requests from anyone, so their requests are held to the
    limits of :mod:`.guard` (size, strings, decoding).
    ``on_drain`` runs once health says NOT_SERVING and before the grace period: a service
    with long-lived streams ends them there (clients reconnect elsewhere), so that they do
    not hold the shutdown for the whole grace period.
    ``on_serving`` is given the health service once everything says SERVING: a service
    that reports a status of its own there (the orchestrator's write path) sets it then."""
    memtrace.install(name, asyncio.get_running_loop())  # FRONTIER_TRACEMALLOC only
    metrics_port = settings.metrics_listen_port(name)
    per_method: list[grpc.aio.ServerInterceptor] = []  # handlers that depend on the method only
    if metrics_port:
        per_method.append(RpcMetrics())
    options = server_options(settings)
    if public:
        per_method.append(RequestGuard(service_names))
        options.append(("grpc.max_receive_message_length", MAX_REQUEST_BYTES))
    interceptors: list[grpc.aio.ServerInterceptor] = list(grpc_server_interceptors())
    if per_method:
        interceptors.append(HandlerCache(per_method))
    server = grpc.aio.server(interceptors=interceptors, options=options)
    register(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        [
            *service_names,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ],
        server,
    )
    address = f"{settings.host}:{settings.listen_port(name)}"
    port = add_port(server, address, settings)
    if port == 0:
        raise OSError(f"{name}: cannot listen on {address}")
    await server.start()
    stop_metrics = serve_metrics(metrics_port, settings.host) if metrics_port else None
    for svc in ["", *service_names]:
        await health_servicer.set(svc, health_pb2.HealthCheckResponse.SERVING)
    if on_serving is not None:
        await on_serving(health_servicer)
    tls = (
        "mutual TLS" if settings.tls_client_auth else "TLS" if settings.server_tls else "plaintext"
    )
    log.info("%s listening on %s:%d (%s)", name, settings.host, port, tls)
    stop_event = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        # Not possible outside the main thread (services run in-process in tests).
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop_event.set)
    if ready is not None:
        ready.set()
    await stop_event.wait()
    log.info("%s draining", name)
    # every status, ours and any ``on_serving`` set, NOT_SERVING for good (later sets ignored)
    await health_servicer.enter_graceful_shutdown()
    if on_drain is not None:
        await on_drain()
    await server.stop(settings.grace_s)
    if on_stop is not None:
        await on_stop()
    if stop_metrics is not None:
        stop_metrics()
    log.info("%s stopped", name)


def server_options(settings: ServiceSettings) -> list[tuple[str, int]]:
    """No SO_REUSEPORT: a second process must not silently share a service's port (the
    orchestrator's leases rely on "one process per address").  A maximum connection age:
    a client's connection is closed now and then (calls under way finish first, however
    long), so that it resolves the service's name again and, with round_robin, spreads over
    replicas added since it connected."""
    options = [("grpc.so_reuseport", 0)]
    if settings.max_connection_age_s > 0:
        options.append(("grpc.max_connection_age_ms", int(settings.max_connection_age_s * 1000)))
    return options


def run_service(main: Coroutine[Any, Any, None]) -> None:
    """Run a service's ``main`` to its end on a uvloop event loop: its loop spends less CPU
    per wake-up and socket read than the standard library's, and a service's work is mostly
    that."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(main)


def configure_logging(settings: ServiceSettings, name: str) -> None:
    logging.basicConfig(
        level=settings.log_level,
        format=f"%(asctime)s {name} %(levelname)s %(name)s: %(message)s",
    )
