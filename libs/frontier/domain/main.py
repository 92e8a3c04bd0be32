"""Process entry point shared by the five domain services (``python -m services.<name>``
runs :func:`main` with its own service, e.g. :data:`.map_service.SERVICE`)."""

from __future__ import annotations

import asyncio

from frontier.runtime import gc_policy
from frontier.runtime.bus import Bus
from frontier.runtime.server import configure_logging, run_service, serve
from frontier.runtime.settings import ServiceSettings
from frontier.runtime.telemetry import setup_tracing
from frontier.v1 import events_pb2
from frontier.wire.domain_rpc import CALLS_SERVICE, full_name

from .core import DomainCore
from .projection import Projections
from .scoreboard import Scoreboard
from .service import DomainService


async def run(
    service: DomainService,
    settings: ServiceSettings,
    ready: asyncio.Event | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    domain = service.domain
    bus = await Bus.for_service(settings, f"frontier-{domain.value}")
    scoreboard = Scoreboard() if service.keeps_scoreboard else None
    # only the service with a scoreboard follows every batch on NATS; the others get the
    # batches they lack with the requests (see projection.py)
    projections = Projections(bus, settings.catch_up_wait_s, follows=scoreboard is not None)
    if scoreboard is not None:
        # one subscription feeds both: each NATS delivery costs a decode, so not two of them
        board = scoreboard

        async def both(stream_seq: int, batch: events_pb2.EventBatch) -> None:
            await projections.on_batch(stream_seq, batch)
            await board.on_batch(stream_seq, batch)

        follower = await bus.follow_all(both)
        projections.wake = follower.poke
        board.catch_up = follower.sync
    await bus.follow_lobby(projections.on_lobby)
    core = DomainCore(domain, projections)
    # start-up is over: what it built stays frozen, and each call's cyclic garbage (asyncio
    # futures, protobuf wrappers) is swept in fewer passes, as in the orchestrator
    gc_policy.tune()
    timed = settings.metrics_listen_port(domain.value) != 0  # as the unary calls are
    add_servicers, calls = service.register(core, scoreboard, timed)
    await serve(
        domain.value,
        settings,
        add_servicers,
        [full_name(domain), CALLS_SERVICE],
        on_stop=bus.close,
        ready=ready,
        stop=stop,
        on_drain=calls.drain,  # the callers' streams end, so they reconnect elsewhere
    )


def main(service: DomainService) -> None:
    """Run ``service`` as this process, configured from the environment."""
    settings = ServiceSettings()
    name = service.domain.value
    configure_logging(settings, name)
    setup_tracing(name, settings)
    run_service(run(service, settings))
