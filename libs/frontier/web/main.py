"""Start-up of the gateway: settings, logging, uvicorn, in one process or several.

uvicorn's own access log is off, and its logger disabled so that no handler attached to it
later brings it back: ``frontier.web.app.AccessLog`` writes the request lines, so one place
decides what a logged URL may hold.

With ``FRONTIER_WEB_PROCESSES`` > 1 uvicorn's supervisor binds the port once and starts that
many processes serving it, each building the app anew from the environment
(:func:`app_from_settings`): writing server-sent events to thousands of watchers is the
gateway's heaviest work and one process does it on one core (docs/performance.md)."""

from __future__ import annotations

import logging
import sys

import uvicorn
from starlette.types import ASGIApp
from uvicorn.supervisors import Multiprocess

from frontier.runtime.server import configure_logging
from frontier.web.app import create_app
from frontier.web.protect import Protection
from frontier.web.settings import WebSettings

APP_FACTORY = "frontier.web.main:app_from_settings"  # what each of several processes builds


def server_config(app: ASGIApp | str, settings: WebSettings) -> uvicorn.Config:
    """uvicorn's configuration of the gateway (also what the real-server tests run): ``app``
    itself, or the import path of its factory when several processes each build one."""
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.web_port,
        factory=isinstance(app, str),
        workers=settings.web_processes if isinstance(app, str) else None,
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


def app_from_settings() -> ASGIApp:
    """The gateway's app as the environment configures it (also each worker process's)."""
    settings = WebSettings()
    configure_logging(settings, "web")
    logging.getLogger("uvicorn.access").disabled = True
    return create_app(
        settings.orchestrator_url,
        bot_kind=settings.web_bot_kind,
        timeout_s=settings.call_timeout_s,
        host_key=settings.web_host_key,
        protection=Protection.from_settings(settings),
        arena_url=settings.arena_url,
    )


def main() -> None:
    settings = WebSettings()
    configure_logging(settings, "web")
    if settings.web_processes > 1:
        config = server_config(APP_FACTORY, settings)
        Multiprocess(config, sockets=[config.bind_socket()]).run()
        return
    server = uvicorn.Server(server_config(app_from_settings(), settings))
    server.run()
    if not server.started:  # the port was taken, say: uvicorn logged why
        sys.exit(3)
