"""The gateway's settings from the environment (``FRONTIER_WEB_*``), like every service's.

A bad value stops ``python -m services.web`` at start-up with a readable message."""

from __future__ import annotations

from pydantic import Field, field_validator

from frontier.bots import bot_names
from frontier.runtime.settings import ServiceSettings

DEFAULT_WEB_PORT = 8080


class WebSettings(ServiceSettings):
    """Where the gateway listens, which orchestrator it talks to, who plays the lobby's bots,
    and what it accepts from the public internet (see ``frontier.web.protect``)."""

    web_port: int = Field(default=DEFAULT_WEB_PORT, ge=0, le=65535, description="HTTP port")
    orchestrator_url: str = Field(
        default="127.0.0.1:50051", description="the orchestrator's public gRPC address"
    )
    arena_url: str = Field(
        default="",
        description="the arena's gRPC address (HOST:PORT) the /arena page's leaderboard is "
        "read from; empty: the server runs no arena",
    )
    web_bot_kind: str = Field(
        default="greedy",
        description="the orchestrator's built-in bot for seats the lobby marks bot",
    )
    web_max_body_bytes: int = Field(
        default=64 * 1024,
        ge=1024,
        le=16 * 1024 * 1024,
        description="the largest request body read; a longer one is refused with 413",
    )
    web_allowed_hosts: str = Field(
        default="",
        description="comma-separated Host names served besides localhost names and the bind "
        "address ('*' = any)",
    )
    web_allowed_origins: str = Field(
        default="",
        description="comma-separated origins (scheme://host[:port]) whose pages may call the "
        "state-changing API besides the gateway's own",
    )
    web_host_key: str = Field(
        default="",
        description="a host key the gateway sends on host calls when the browser sends none: "
        "a single-user gateway's lobby then needs no key (never set it on a public gateway)",
    )
    web_processes: int = Field(
        default=1,
        ge=1,
        le=64,
        description="gateway processes sharing the port: each holds one orchestrator stream "
        "per watched match and its own share of the watchers (a process is about one core's "
        "worth of server-sent events)",
    )
    web_sse_per_match: int = Field(
        default=500, ge=1, description="live event-stream watchers of one match at once"
    )
    web_sse_per_address: int = Field(
        default=16, ge=1, description="live event-stream watchers from one client address"
    )

    @field_validator("web_bot_kind")
    @classmethod
    def _known_bot(cls, value: str) -> str:
        """A bot the orchestrator would refuse would make every lobby match fail: say so now."""
        if value not in bot_names():
            raise ValueError(f"{value!r} is no built-in bot; known: {', '.join(bot_names())}")
        return value

    @field_validator("web_allowed_origins")
    @classmethod
    def _origins(cls, value: str) -> str:
        """An origin is what a browser sends: scheme and host, no path; say so at start-up
        rather than refuse every request from a mistyped one."""
        for origin in split_list(value):
            scheme, sep, rest = origin.partition("://")
            if scheme not in ("http", "https") or not sep or not rest or "/" in rest:
                raise ValueError(f"{origin!r} is no origin: write scheme://host[:port]")
        return value


def split_list(value: str) -> tuple[str, ...]:
    """A comma-separated setting as its lower-cased, non-empty items."""
    return tuple(item.strip().lower() for item in value.split(",") if item.strip())
