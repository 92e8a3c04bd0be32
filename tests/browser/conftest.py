"""Browser tests: a real stack with the web gateway, driven by Debian's chromium through
Playwright.  Where no browser exists they skip with the reason, unless
``FRONTIER_REQUIRE_BROWSER=1`` (CI) turns the skip into a failure."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from frontier.ops.stack import Stack, StackConfig, free_port
from frontier.web.app import STATIC

CHROMIUM = os.environ.get("FRONTIER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
OUTPUT = Path(__file__).resolve().parents[2] / "build" / "test-output" / "browser"


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    if not (STATIC / "app.js").is_file():
        return "the browser client is not built (make web)"
    return None


@pytest.fixture(scope="package")
def browser_ready() -> None:
    """Skips (or, under FRONTIER_REQUIRE_BROWSER=1, fails) when the browser cannot run."""
    reason = _missing()
    if reason is None:
        return
    if os.environ.get("FRONTIER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"FRONTIER_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="package")
def web_stack(
    browser_ready: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StackConfig]:
    config = StackConfig.ephemeral(
        tmp_path_factory.mktemp("web-stack"),
        web_port=free_port(),
        web_env={"FRONTIER_WEB_BOT_KIND": "random", "FRONTIER_LOG_LEVEL": "INFO"},
    )
    with Stack(config):
        yield config


@pytest.fixture(scope="package")
def browser(browser_ready: None) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def output(request: pytest.FixtureRequest) -> Path:
    """This test's output folder (screenshots), kept after the run for CI's artifacts."""
    folder = OUTPUT / str(request.node.name).replace("/", "_")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder
