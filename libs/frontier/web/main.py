"""Start-up of the gateway process: settings, logging, uvicorn.

uvicorn's own access log is off, and its logger disabled so that no handler attached to it
later brings it back: ``frontier.web.app.AccessLog`` writes the request lines, so one place
decides what a logged URL may hold."""

from __future__ import annotations

import logging
import sys

import uvicorn
from starlette.types import ASGIApp

from frontier.runtime.server import configure_logging
from frontier.web.app import create_app
from frontier.web.protect import Protection
from frontier.web.settings import WebSettings


def server_config(app: ASGIApp, settings: WebSettings) -> uvicorn.Config:
    """uvicorn's configuration of the gateway (also what the real-server tests run)."""
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.web_port,
        # uvloop and httptools, not the pure-Python fallbacks "auto" would settle for if
        # either were missing: each server-sent event is written to every watcher, and these
        # make that write several times cheaper (docs/performance.md)
        loop="uvloop",
        http="httptools",
        access_log=False,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=int(settings.grace_s) or None,
    )
    logging.getLogger("uvicorn.access").disabled = True  # after uvicorn configured its loggers
    return config


def main() -> None:
    settings = WebSettings()
    configure_logging(settings, "web")
    app = create_app(
        settings.orchestrator_url,
        bot_kind=settings.web_bot_kind,
        timeout_s=settings.call_timeout_s,
        host_key=settings.web_host_key,
        protection=Protection.from_settings(settings),
    )
    server = uvicorn.Server(server_config(app, settings))
    server.run()
    if not server.started:  # the port was taken, say: uvicorn logged why
        sys.exit(3)
