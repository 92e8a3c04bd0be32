"""Service configuration from the environment (pydantic-settings), validated at start-up.

Every variable is prefixed ``FRONTIER_``; a bad value stops the process at once with a
readable message instead of failing later in the middle of a match.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Literal

from pydantic import Field, FilePath, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Prometheus /metrics, one port per service so that a single host runs them all side by side
DEFAULT_METRICS_PORTS: dict[str, int] = {
    "orchestrator": 9151,
    "map": 9152,
    "combat": 9153,
    "crafting": 9154,
    "scoring": 9155,
    "turn_order": 9156,
    "otel_collector": 9157,
    "arena": 9158,
}

DEFAULT_PORTS: dict[str, int] = {
    "orchestrator": 50051,
    "map": 50052,
    "combat": 50053,
    "crafting": 50054,
    "scoring": 50055,
    "turn_order": 50056,
    "arena": 50057,
}


# The gRPC request metadata carrying a host key (errors.proto; orchestrator/host_keys.py).
HOST_KEY_METADATA = "x-frontier-host-key"


# The trailing metadata of a WatchEvents stream that ended because its match did: the
# match's MatchStatus name (MATCH_STATUS_FINISHED or MATCH_STATUS_ABANDONED).  An abandoned
# match ends with no event, so a watcher learns how it ended from this, without asking again.
MATCH_STATUS_TRAILER = "x-frontier-match-status"


def host_key_metadata(key: str | None = None) -> tuple[tuple[str, str], ...]:
    """The metadata of a host call: ``key`` (default: FRONTIER_HOST_KEY), none without one.
    The clients that create matches send it; a server in ``local`` access mode ignores it."""
    key = (os.environ.get("FRONTIER_HOST_KEY", "") if key is None else key).strip()
    return ((HOST_KEY_METADATA, key),) if key else ()


class TlsSettings(BaseSettings):
    """TLS of every gRPC server and client (see runtime/tls.py); all empty = plaintext.

    Also read alone by the clients that are not services (CLI, bot SDK, load client)."""

    # an empty variable counts as unset (compose files pass ${VAR:-} through)
    model_config = SettingsConfigDict(env_prefix="FRONTIER_", extra="ignore", env_ignore_empty=True)

    tls_cert: FilePath | None = Field(default=None, description="certificate chain (PEM)")
    tls_key: FilePath | None = Field(default=None, description="private key (PEM)")
    tls_ca: FilePath | None = Field(default=None, description="CA bundle to check peers with")
    tls_client_auth: bool = Field(
        default=False, description="servers require a client certificate (mutual TLS)"
    )
    tls_server_name: str = Field(
        default="", description="name expected in the server's certificate (clients)"
    )

    @model_validator(mode="after")
    def _consistent(self) -> TlsSettings:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("FRONTIER_TLS_CERT and FRONTIER_TLS_KEY go together: set both")
        if self.tls_client_auth and (self.tls_ca is None or self.tls_cert is None):
            raise ValueError(
                "FRONTIER_TLS_CLIENT_AUTH needs FRONTIER_TLS_CA (to check clients) and "
                "FRONTIER_TLS_CERT/KEY (the servers' own certificate)"
            )
        return self

    @property
    def server_tls(self) -> bool:
        return self.tls_cert is not None

    @property
    def client_tls(self) -> bool:
        return self.tls_ca is not None or self.tls_cert is not None


class ServiceSettings(TlsSettings):
    """Settings every Frontier service reads."""

    host: str = Field(default="127.0.0.1", description="address to listen on")
    port: int = Field(default=0, ge=0, le=65535, description="0 = the service's default")
    nats_url: str = Field(
        default="nats://127.0.0.1:4222",
        description="NATS server URL; several servers of one cluster comma-separated",
    )
    nats_replicas: int = Field(
        default=1,
        ge=1,
        le=5,
        description="copies of the event stream and KV buckets (3 on a 3-node cluster)",
    )
    stream: str = Field(default="FRONTIER_EVENTS", description="JetStream stream of events")
    stream_max_age_s: float = Field(
        default=0.0,
        ge=0,
        description="retention: the event stream's and the match buckets' entries expire "
        "this long after they were written (0: kept for ever); every service must agree",
    )
    call_timeout_s: float = Field(default=5.0, gt=0, le=120, description="gRPC call deadline")
    nats_startup_wait_s: float = Field(
        default=60.0,
        gt=0,
        le=600,
        description="how long a starting service waits for JetStream to answer (a new "
        "cluster elects its leader seconds after its nodes are up) before it gives up",
    )
    catch_up_wait_s: float = Field(
        default=0.05,
        ge=0,
        le=5,
        description="scoring (the one service that follows NATS): how long a lagging "
        "projection waits for NATS before it reads the stream itself",
    )
    grace_s: float = Field(default=5.0, ge=0, le=120, description="drain time on SIGTERM")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    otel_exporter: Literal["none", "console", "otlp"] = Field(
        default="none", description="trace exporter; 'otlp' needs FRONTIER_OTEL_ENDPOINT"
    )
    otel_endpoint: str = Field(default="", description="OTLP/gRPC collector endpoint")
    max_connection_age_s: float = Field(
        default=300.0,
        ge=0,
        le=86_400,
        description="servers close a client connection after this long (0 = never), so "
        "that clients resolve the service's name again and find new replicas",
    )
    metrics_port: int | None = Field(
        default=None,
        ge=0,
        le=65535,
        description="Prometheus /metrics port; unset = the service's default, 0 = none",
    )

    def listen_port(self, service: str) -> int:
        return self.port or DEFAULT_PORTS[service]

    def metrics_listen_port(self, service: str) -> int:
        """Where /metrics is served (0: nowhere)."""
        if self.metrics_port is not None:
            return self.metrics_port
        return DEFAULT_METRICS_PORTS.get(service, 0)


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
    domain_streams_per_service: int = Field(
        default=2,
        ge=1,
        le=64,
        description="streams open to each domain service; calls go round over them, and "
        "each stream lands on one replica, so at least the replicas of the busiest service",
    )
    domain_stream_max_age_s: float = Field(
        default=60.0,
        ge=0,
        le=86_400,
        description="a stream takes no new calls after this long and is replaced, so that "
        "calls are balanced again over the replicas (also new ones); 0 = never",
    )
    bot_processes: int = Field(
        default=2,
        ge=1,
        le=64,
        description="worker processes the built-in bots (bot seats, takeovers) think in, off "
        "the orchestrator's process; more matches' bots wait their turn",
    )
    watchers_per_match: int = Field(
        default=100,
        ge=1,
        description="spectator streams (WatchEvents without a seat token) one match may have "
        "on this orchestrator; more are refused (watch through the web gateway instead)",
    )
    watchers_per_address: int = Field(
        default=256,
        ge=1,
        description="watch streams one client address may hold open on this orchestrator "
        "(addresses in FRONTIER_WATCH_TRUSTED_ADDRESSES are not counted)",
    )
    watch_max_lag: int = Field(
        default=512,
        ge=16,
        le=100_000,
        description="events a live spectator may fall behind the match before its stream is "
        "cut with the version to resume from",
    )
    watch_trusted_addresses: str = Field(
        default="",
        description="comma-separated client addresses or networks (the web gateways, e.g. "
        "'10.0.0.7,172.16.0.0/12') exempt from FRONTIER_WATCHERS_PER_ADDRESS",
    )

    access: Literal["keys", "local"] = Field(
        default="keys",
        description="'keys': CreateMatch, AssignSeatBot and AbandonMatch need a host key "
        "(x-frontier-host-key metadata; `frontier keys create`); 'local': everyone may host, "
        "nothing is counted (one person's machine, never a published server)",
    )
    host_key_cache_s: float = Field(
        default=2.0,
        ge=0,
        le=60,
        description="how long a host key lookup is reused: a revoked key stops working "
        "within this time",
    )
    quota_matches_hosted: int = Field(
        default=20, ge=0, description="default per key: unfinished matches it hosts at most"
    )
    quota_creates_per_minute: int = Field(
        default=10, ge=0, description="default per key: matches it creates in any minute"
    )
    quota_bot_seats: int = Field(
        default=12,
        ge=0,
        description="default per key: built-in bot seats over its unfinished matches",
    )
    quota_bot_cpu_s_per_hour: float = Field(
        default=600.0,
        ge=0,
        description="default per key: CPU seconds its matches' built-in bots think in an hour; "
        "past it they play the cheapest bot until the hour frees",
    )
    anonymous_matches: int = Field(
        default=0,
        ge=0,
        description="with FRONTIER_ACCESS=keys, unfinished matches a caller without a key "
        "may host, per client address (0: no anonymous tier, a key is required)",
    )
    anonymous_creates_per_minute: int = Field(
        default=2, ge=0, description="anonymous tier: matches one address creates per minute"
    )
    anonymous_bot_seats: int = Field(
        default=0, ge=0, description="anonymous tier: bot seats per address"
    )
    anonymous_bot_cpu_s_per_hour: float = Field(
        default=60.0, ge=0, description="anonymous tier: bot CPU seconds per address and hour"
    )

    @field_validator("watch_trusted_addresses")
    @classmethod
    def _trusted_addresses_parse(cls, value: str) -> str:
        for entry in (e.strip() for e in value.split(",")):
            if entry:
                ipaddress.ip_network(entry, strict=False)  # ValueError names the entry
        return value

    @model_validator(mode="after")
    def _retention_outlives_idle_matches(self) -> OrchestratorSettings:
        # an unfinished match must end (abandoned at worst) long before its record expires
        if self.stream_max_age_s > 0 and not 0 < self.idle_timeout_s < self.stream_max_age_s:
            raise ValueError(
                f"FRONTIER_STREAM_MAX_AGE_S={self.stream_max_age_s:g} needs a shorter "
                f"FRONTIER_IDLE_TIMEOUT_S (now {self.idle_timeout_s:g}, 0 = never), or "
                "unfinished matches would expire under their players: choose a max age "
                "much longer than the idle timeout and the longest match"
            )
        return self
