"""The arena's process (``python -m services.arena``, or ``frontier arena run``): its
settings, and the wiring of store, lobby, loop and ArenaService.

One arena runs per server: it is the only writer of its matches in play and the one place
that seats bots (two arenas on one board would still rate every match once, as the board is
written with compare-and-set, but each would seat bots on its own).
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import Field

from frontier.runtime.bus import Bus
from frontier.runtime.server import configure_logging, run_service, serve
from frontier.runtime.settings import DEFAULT_METRICS_PORTS, DEFAULT_PORTS, ServiceSettings
from frontier.runtime.telemetry import setup_tracing
from frontier.runtime.tls import aio_channel
from frontier.store.host_keys import HostKeyStore
from frontier.v1 import arena_pb2, arena_pb2_grpc, match_pb2_grpc

from .lobby import Lobby
from .metrics import watch_arena
from .ratings import RANKED_AFTER
from .runner import Arena, ArenaConfig
from .service import BOTS_PER_KEY, ArenaServicer
from .store import ArenaStore

NAME = "arena"
DEFAULT_PORT = DEFAULT_PORTS[NAME]
DEFAULT_METRICS_PORT = DEFAULT_METRICS_PORTS[NAME]


class ArenaSettings(ServiceSettings):
    """``FRONTIER_*`` settings of the arena, besides those of every service."""

    orchestrator_url: str = Field(
        default="127.0.0.1:50051", description="the server's MatchService (HOST:PORT)"
    )
    arena_orchestrator_advertised: str = Field(
        default="", description="the orchestrator address bots are told (default: the above)"
    )
    arena_host_key: str = Field(
        default="", description="the host key the arena creates matches with"
    )
    access: Literal["keys", "local"] = Field(
        default="keys", description="keys: registering a bot needs a host key; local: not"
    )
    arena_builtins: str = Field(
        default="random,greedy,search",
        description="the server's built-in bots that stand on the board (comma-separated)",
    )
    arena_seed: int = Field(default=0, description="the seed of the schedule and the deals")
    arena_max_rounds: int = Field(default=0, ge=0, description="rounds per match (0: all)")
    arena_max_matches: int = Field(default=2, ge=1, description="matches in play at once")
    arena_min_outside: int = Field(
        default=1, ge=1, description="outside bots with room before a match starts"
    )
    arena_ranked_after: int = Field(
        default=RANKED_AFTER, ge=0, description="rated matches before an entrant is ranked"
    )
    arena_bots_per_key: int = Field(
        default=BOTS_PER_KEY, ge=0, description="bots one host key may register (0: any)"
    )
    arena_decision_budget_ms: int = Field(
        default=5000, ge=1, description="the arena matches' clock: ms per decision"
    )
    arena_reserve_ms: int = Field(default=30000, ge=0, description="each seat's reserve, ms")
    arena_strike_limit: int = Field(
        default=3, ge=1, le=100, description="strikes before the server takes a seat over"
    )
    arena_retry_s: float = Field(default=2.0, gt=0, description="wait after a failed call")

    def listen_port(self, service: str) -> int:
        return self.port or DEFAULT_PORT

    def metrics_listen_port(self, service: str) -> int:
        return DEFAULT_METRICS_PORT if self.metrics_port is None else self.metrics_port

    def arena_config(self) -> ArenaConfig:
        builtins = tuple(b.strip() for b in self.arena_builtins.split(",") if b.strip())
        return ArenaConfig(
            orchestrator_address=self.orchestrator_url,
            advertised_address=self.arena_orchestrator_advertised or self.orchestrator_url,
            host_key=self.arena_host_key,
            builtins=builtins,
            seed=self.arena_seed,
            max_rounds=self.arena_max_rounds,
            max_matches=self.arena_max_matches,
            min_outside=self.arena_min_outside,
            decision_budget_ms=self.arena_decision_budget_ms,
            reserve_ms=self.arena_reserve_ms,
            strike_limit=self.arena_strike_limit,
            retry_s=self.arena_retry_s,
        )


async def run(
    settings: ArenaSettings, ready: asyncio.Event | None = None, stop: asyncio.Event | None = None
) -> None:
    bus = await Bus.for_service(settings, "frontier-arena")
    store = ArenaStore(await bus.arena_bucket())
    host_keys = HostKeyStore(await bus.host_keys_bucket()) if settings.access == "keys" else None
    lobby = Lobby()
    channel = aio_channel(settings.orchestrator_url)
    arena = Arena(settings.arena_config(), store, lobby, match_pb2_grpc.MatchServiceStub(channel))
    await arena.resume()
    unwatch = watch_arena(arena, lobby)
    servicer = ArenaServicer(
        arena, store, lobby, host_keys, settings.arena_ranked_after, settings.arena_bots_per_key
    )
    stopping = stop or asyncio.Event()
    loop_task = asyncio.create_task(arena.run(stopping), name="arena-loop")

    async def on_stop() -> None:
        unwatch()
        lobby.changed.set()
        loop_task.cancel()
        await asyncio.gather(loop_task, return_exceptions=True)
        await arena.close()
        await channel.close()
        await bus.close()

    async def on_drain() -> None:
        stopping.set()
        for presence in lobby.present():
            presence.close()  # the bots' Enter streams end; they enter again elsewhere

    await serve(
        NAME,
        settings,
        lambda server: arena_pb2_grpc.add_ArenaServiceServicer_to_server(servicer, server),
        [arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name],
        on_stop=on_stop,
        ready=ready,
        stop=stopping,
        on_drain=on_drain,
        public=True,
    )


def main() -> None:
    """Run the arena as this process, configured from the environment."""
    settings = ArenaSettings()
    configure_logging(settings, NAME)
    setup_tracing(NAME, settings)
    run_service(run(settings))
