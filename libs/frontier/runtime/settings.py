"""Service configuration from the environment (pydantic-settings), validated at start-up.

Every variable is prefixed ``FRONTIER_``; a bad value stops the process at once with a
readable message instead of failing later in the middle of a match.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_PORTS: dict[str, int] = {
    "orchestrator": 50051,
    "map": 50052,
    "combat": 50053,
    "crafting": 50054,
    "scoring": 50055,
    "turn_order": 50056,
}


class ServiceSettings(BaseSettings):
    """Settings every Frontier service reads."""

    model_config = SettingsConfigDict(env_prefix="FRONTIER_", extra="ignore")

    host: str = Field(default="127.0.0.1", description="address to listen on")
    port: int = Field(default=0, ge=0, le=65535, description="0 = the service's default")
    nats_url: str = Field(default="nats://127.0.0.1:4222", description="NATS server URL")
    stream: str = Field(default="FRONTIER_EVENTS", description="JetStream stream of events")
    call_timeout_s: float = Field(default=5.0, gt=0, le=120, description="gRPC call deadline")
    catch_up_wait_s: float = Field(
        default=0.05, ge=0, le=5, description="how long a lagging projection waits for NATS"
    )
    grace_s: float = Field(default=5.0, ge=0, le=120, description="drain time on SIGTERM")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    otel_exporter: Literal["none", "console", "otlp"] = Field(
        default="none", description="trace exporter; 'otlp' needs FRONTIER_OTEL_ENDPOINT"
    )
    otel_endpoint: str = Field(default="", description="OTLP/gRPC collector endpoint")

    def listen_port(self, service: str) -> int:
        return self.port or DEFAULT_PORTS[service]


class OrchestratorSettings(ServiceSettings):
    """The orchestrator also needs the domain services' addresses."""

    map_url: str = "127.0.0.1:50052"
    combat_url: str = "127.0.0.1:50053"
    crafting_url: str = "127.0.0.1:50054"
    scoring_url: str = "127.0.0.1:50055"
    turn_order_url: str = "127.0.0.1:50056"
    snapshot_every: int = Field(default=50, ge=1, description="commands between snapshots")
    advertise_address: str = Field(
        default="", description="where other orchestrators reach this one (default host:port)"
    )
    lease_ttl_s: float = Field(
        default=3.0, gt=0.2, le=60, description="match lease lifetime; renewed every third"
    )
    finished_ttl_s: float = Field(
        default=300.0,
        ge=0,
        le=86_400,
        description="how long a finished match stays in memory after its last use",
    )
    idle_timeout_s: float = Field(
        default=86_400.0,
        ge=0,
        le=30 * 86_400,
        description="an unfinished match nobody acted in for this long ends abandoned (0: never)",
    )
    max_matches: int = Field(
        default=1000, ge=1, description="unfinished matches one orchestrator hosts at most"
    )
