"""Start-up of the gateway process: settings, logging, uvicorn.

uvicorn's own access log is off: ``frontier.web.app.AccessLog`` writes the request lines, so
one place decides what a logged URL may hold."""

from __future__ import annotations

import uvicorn

from frontier.runtime.server import configure_logging
from frontier.web.app import create_app
from frontier.web.protect import Protection
from frontier.web.settings import WebSettings


def main() -> None:
    settings = WebSettings()
    configure_logging(settings, "web")
    app = create_app(
        settings.orchestrator_url,
        bot_kind=settings.web_bot_kind,
        timeout_s=settings.call_timeout_s,
        protection=Protection.from_settings(settings),
    )
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.web_port,
        access_log=False,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=int(settings.grace_s) or None,
    )
