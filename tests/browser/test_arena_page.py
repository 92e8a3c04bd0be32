"""The arena as a bot author meets it, end to end: a real stack with the arena and the web
gateway (FRONTIER_ARENA_URL), the bot registered with the real ``frontier arena register``
and played by ``python -m frontier.arena.player`` in processes of their own, exactly as
docs/arena.md says; then the ``/arena`` page in headless Chromium finds the bot with its
matches counted, opens its row (per-faction ratings, rating over time), follows a recent
match's link to its replay, fits a phone, and axe-core finds no serious or critical
violation.

Matches are one round long and the player stops after :data:`SEATS` seats, so the test
ends in a bounded time; waits are for events (a process exiting, the board listing the
matches) with a deadline only as a guard against a hung arena."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from frontier.ops.stack import Stack, StackConfig, free_port
from frontier.web.app import STATIC
from tests.browser.gateway import AT_LEAST, PHONE
from tests.browser.test_board import AXE, FITS, _axe
from tests.browser.test_web_client import csp_refusals

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.timeout(400)]

GUARD_S = 240.0  # a hung arena fails the test instead of hanging the suite
SEATS = 2  # seats the bot plays before its process stops
NAME = "my-bot"


@dataclass
class ArenaSite:
    config: StackConfig
    arena: str  # the ArenaService's HOST:PORT
    workdir: Path

    def leaderboard(self) -> dict[str, Any]:
        url = f"{self.config.web_url}api/arena/leaderboard"
        with urllib.request.urlopen(url, timeout=10) as reply:
            body: dict[str, Any] = json.loads(reply.read())
        return body


@pytest.fixture(scope="module")
def site(browser_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaSite]:
    if not (STATIC / "arena.js").is_file():  # built with app.js: a partial build
        reason = "the arena page is not built (make web)"
        if os.environ.get("FRONTIER_REQUIRE_BROWSER") == "1":
            pytest.fail(f"FRONTIER_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    workdir = tmp_path_factory.mktemp("arena-site")
    config = StackConfig.ephemeral(
        workdir,
        web_port=free_port(),
        arena=True,
        arena_env={
            "FRONTIER_ARENA_BUILTINS": "random,greedy",
            "FRONTIER_ARENA_MAX_ROUNDS": "1",
            "FRONTIER_ARENA_SEED": "11",
        },
        log_level="INFO",
    )
    with Stack(config):
        yield ArenaSite(config, config.address("arena"), workdir)


def wait_for(what: str, check: Callable[[], bool]) -> None:
    """Poll ``check`` until it holds (the guard deadline only stops a hung arena)."""
    deadline = time.monotonic() + GUARD_S
    while not check():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.5)


def frontier(*args: str) -> str:
    """The ``frontier`` command line, as installed, in a process of its own."""
    command = Path(sys.executable).with_name("frontier")
    argv = [str(command)] if command.is_file() else [sys.executable, "-m", "frontier.cli.main"]
    done = subprocess.run([*argv, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def play_as_a_bot_author(site: ArenaSite) -> str:
    """Register (the CLI prints the bot's id and its key once), keep the key in a file, run
    the player with it until it has played its seats; the bot's id."""
    printed = frontier("arena", "register", "--name", NAME, "--description", "greedy, v1",
                       "--url", site.arena).splitlines()  # fmt: skip
    key = printed[-1].strip()
    assert key.startswith("fb_") and printed[0].startswith("bot id ")
    bot_id = printed[0].split()[2]
    key_file = site.workdir / f"{NAME}.key"
    key_file.write_text(key + "\n")
    log = site.workdir / f"{NAME}.log"
    with log.open("wb") as out:
        player = subprocess.Popen(
            [sys.executable, "-m", "frontier.arena.player", "--arena", site.arena,
             "--key-file", str(key_file), "--capacity", "1", "--seats", str(SEATS)],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            assert player.wait(GUARD_S) == 0, log.read_text()[-2000:]
        finally:
            if player.poll() is None:
                player.kill()
                player.wait()
    return bot_id


@pytest.fixture(scope="module")
def bot_id(site: ArenaSite) -> str:
    """The bot, registered and played as docs/arena.md says, once its matches are counted."""
    played = play_as_a_bot_author(site)

    def counted() -> bool:
        entries = site.leaderboard()["entries"]
        return any(e["bot_id"] == played and e["matches_played"] >= SEATS for e in entries)

    wait_for("the bot's matches on the board", counted)
    return played


def test_a_bot_author_finds_their_bot_and_its_replays_on_the_arena_page(
    site: ArenaSite, bot_id: str, browser: Any, output: Path
) -> None:
    board = site.leaderboard()
    entry = next(e for e in board["entries"] if e["bot_id"] == bot_id)
    played = int(entry["matches_played"])
    assert entry["name"] == NAME and not entry["ranked"]
    mine = [m for m in board["recent_matches"] if any(s["bot_id"] == bot_id for s in m["seats"])]
    assert len(mine) == played
    assert [p["match_id"] for p in entry["history"]] == [m["match_id"] for m in reversed(mine)]
    assert entry["history"][-1]["mu"] == entry["rating"]["mu"]

    phone = browser.new_context(**PHONE)
    page = phone.new_page()
    refused = csp_refusals(page)
    page.goto(site.config.web_url)
    page.click("#arena-link")  # the lobby links the leaderboard
    page.wait_for_url("**/arena")
    row = page.wait_for_selector(f"tr.entry[data-bot='{bot_id}']")
    assert row.query_selector("th").text_content().startswith(NAME)
    matches = row.query_selector("td.matches").text_content()
    assert matches.startswith(str(played))
    assert f"{board['ranked_after'] - played} more matches" in matches
    assert page.evaluate(FITS), "the page scrolls sideways on a phone"
    row.query_selector("button.bot-name").click()
    details = page.wait_for_selector("tr.details:not([hidden]) table.factions")
    factions = details.text_content()
    assert any(name in factions for name in ("Marquise de Cat", "Eyrie Dynasties",
                                             "Woodland Alliance", "Vagabond"))  # fmt: skip
    assert page.query_selector("tr.details:not([hidden]) figure.history svg.chart polyline")
    assert page.evaluate(FITS), "the opened row scrolls sideways on a phone"
    page.screenshot(path=str(output / "arena-phone.png"), full_page=True)
    assert refused == [], "the page's policy refused some of it"

    newest = mine[0]["match_id"]
    listed = page.wait_for_selector(f"li.recent-match[data-match='{newest}']")
    text = listed.text_content() or ""
    # its whole team is one entry: the name once, then the team's factions
    assert text.count(NAME) == 1, text
    assert re.search(f"{NAME}( \\(left\\))? as Marquise de Cat, ", text), text
    listed.query_selector("a.replay").click()
    page.wait_for_url(f"**/match?match={newest}")
    page.wait_for_selector("#board .clearing")
    page.wait_for_function(AT_LEAST, arg=1)  # the match's events arrived
    phone.close()


def test_axe_finds_no_serious_violation_on_the_arena_page(
    site: ArenaSite, bot_id: str, browser: Any, output: Path
) -> None:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: make web installs axe-core")
    # the test injects axe as an inline script, which the gateway's policy would refuse
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{site.config.web_url}arena#bot={NAME}")  # opens the bot's row
    page.wait_for_selector("tr.details:not([hidden]) svg.chart")
    assert _axe(page) == [], "the arena page"
    page.screenshot(path=str(output / "arena-desktop.png"), full_page=True)
    context.close()


def test_a_server_without_an_arena_says_so_on_the_page(
    web_stack: StackConfig, browser: Any
) -> None:
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{web_stack.web_url}arena")
    alert = page.wait_for_selector("#arena .error[role=alert]")
    assert alert.text_content() == "This server runs no arena."
    assert page.query_selector("#arena a[href='/']")  # back to the lobby
    context.close()
