"""Process entry point of the orchestrator (``python -m services.orchestrator``)."""

from __future__ import annotations

import asyncio
import functools
import uuid

import grpc

from frontier.runtime import gc_policy
from frontier.runtime.bus import Bus
from frontier.runtime.metrics import watch_matches, watch_streams
from frontier.runtime.server import configure_logging, run_service, serve
from frontier.runtime.settings import OrchestratorSettings
from frontier.runtime.telemetry import setup_tracing
from frontier.store.host_keys import HostKeyStore
from frontier.v1 import bot_pb2, bot_pb2_grpc, match_pb2, match_pb2_grpc

from .bot_pool import BotPool
from .bot_service import BotServicer
from .clients import DomainClients
from .core import Orchestrator
from .host_keys import HostAccess, Limits
from .leases import Leases
from .peers import Peers
from .servicer import MatchServicer
from .spectators import WatchLimits, trusted_networks
from .write_path import WritePath

SERVICE_NAME = match_pb2.DESCRIPTOR.services_by_name["MatchService"].full_name
BOT_SERVICE_NAME = bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name


async def run(
    settings: OrchestratorSettings,
    ready: asyncio.Event | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    bus = await Bus.for_service(settings, "frontier-orchestrator")
    # local: no checks and nothing counted, so no cost on any call
    access = await host_access(settings, bus) if settings.access == "keys" else None
    clients = DomainClients(settings)
    address = (
        settings.advertise_address or f"{settings.host}:{settings.listen_port('orchestrator')}"
    )
    leases = Leases(await bus.leases_bucket(), uuid.uuid4().hex, address, settings.lease_ttl_s)
    # the probe's subject names this process: one message per orchestrator is kept
    write_path = WritePath(functools.partial(bus.probe_write, uuid.uuid4().hex))
    core = Orchestrator(
        bus,
        clients,
        settings.snapshot_every,
        leases,
        settings.finished_ttl_s,
        settle_wait_s=settings.call_timeout_s,
        idle_timeout_s=settings.idle_timeout_s,
        max_matches=settings.max_matches,
        bots=BotPool(settings.bot_processes),
        write_path=write_path,
        watch_limits=WatchLimits(
            per_match=settings.watchers_per_match,
            per_address=settings.watchers_per_address,
            max_lag=settings.watch_max_lag,
            trusted=trusted_networks(settings.watch_trusted_addresses),
        ),
        access=access,
    )
    unwatch = watch_matches(core.matches, core.host.loading)  # gauges (metrics.py)
    unwatch_streams = watch_streams(core.watchers)
    peers = Peers(settings.call_timeout_s, settings)

    def register(server: grpc.aio.Server) -> None:
        match_pb2_grpc.add_MatchServiceServicer_to_server(MatchServicer(core, peers), server)
        bot_pb2_grpc.add_BotServiceServicer_to_server(BotServicer(core, peers), server)

    async def on_stop() -> None:
        unwatch()
        unwatch_streams()
        resuming.cancel()
        renewing.cancel()
        unloading.cancel()
        probing.cancel()
        await core.close()
        await peers.close()
        await clients.close()
        await bus.close()

    # matches with a clock keep their deadlines across a restart (see Orchestrator.resume)
    resuming = asyncio.ensure_future(core.resume())
    renewing = asyncio.ensure_future(core.keep_leases())
    unloading = asyncio.ensure_future(core.unload_finished())
    probing = asyncio.ensure_future(write_path.run())
    gc_policy.tune()  # start-up is over: what it built stays
    await serve(
        "orchestrator",
        settings,
        register,
        [SERVICE_NAME, BOT_SERVICE_NAME],
        on_stop,
        ready,
        stop,
        on_drain=core.drain,
        public=True,
        on_serving=write_path.attach,
    )


async def host_access(settings: OrchestratorSettings, bus: Bus) -> HostAccess:
    """Who may host, from the settings (the key bucket is made here in ``keys`` mode)."""
    defaults = Limits(
        settings.quota_matches_hosted,
        settings.quota_creates_per_minute,
        settings.quota_bot_seats,
        settings.quota_bot_cpu_s_per_hour,
    )
    anonymous = (
        Limits(
            settings.anonymous_matches,
            settings.anonymous_creates_per_minute,
            settings.anonymous_bot_seats,
            settings.anonymous_bot_cpu_s_per_hour,
        )
        if settings.anonymous_matches
        else None
    )
    store = HostKeyStore(await bus.host_keys_bucket()) if settings.access == "keys" else None
    return HostAccess(settings.access, store, defaults, anonymous, settings.host_key_cache_s)


def main() -> None:
    settings = OrchestratorSettings()
    configure_logging(settings, "orchestrator")
    setup_tracing("orchestrator", settings)
    run_service(run(settings))
