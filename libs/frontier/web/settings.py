"""The gateway's settings from the environment (``FRONTIER_WEB_*``), like every service's.

A bad value stops ``python -m services.web`` at start-up with a readable message."""

from __future__ import annotations

from pydantic import Field, field_validator

from frontier.bots import bot_names
from frontier.runtime.settings import ServiceSettings

DEFAULT_WEB_PORT = 8080


class WebSettings(ServiceSettings):
    """Where the gateway listens, which orchestrator it talks to, who plays the lobby's bots."""

    web_port: int = Field(default=DEFAULT_WEB_PORT, ge=0, le=65535, description="HTTP port")
    orchestrator_url: str = Field(
        default="127.0.0.1:50051", description="the orchestrator's public gRPC address"
    )
    web_bot_kind: str = Field(
        default="greedy",
        description="the orchestrator's built-in bot for seats the lobby marks bot",
    )

    @field_validator("web_bot_kind")
    @classmethod
    def _known_bot(cls, value: str) -> str:
        """A bot the orchestrator would refuse would make every lobby match fail: say so now."""
        if value not in bot_names():
            raise ValueError(f"{value!r} is no built-in bot; known: {', '.join(bot_names())}")
        return value
