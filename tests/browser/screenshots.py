"""Regenerates the screenshots in docs/ (``make screenshots``): a real stack, Debian's
chromium, a seeded match with the default lineup (both Vagabonds start in forests) whose
seat A1 this script plays through the API while the page shows it.

The pictures: the lobby (web-lobby), A1's first turn at 1280 px wide (web-play), the same
turn on a 390x844 phone with the board zoomed in (web-phone), A1's page right after A1 has
started its first battle (web-battle; none if it never can), and the finished
match one step back in the replay scrubber (web-spectate).  Each is checked not blank
(``shots.shoot``).

``--arena-from DIR`` takes the arena's leaderboard instead (web-arena): the stack is started
again on the store a ``frontier arena campaign --workdir DIR`` left, with its web gateway,
so the picture is the board of that run (the arena schedules nothing: no bot dials in).
"""

from __future__ import annotations

import argparse
import tempfile
import urllib.error
from pathlib import Path
from typing import Any

from frontier.ops.stack import Stack, StackConfig, free_port
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.browser.gateway import AT_LEAST, PHONE, SEAT_READY, call, play_one, seeded_match
from tests.browser.shots import shoot

SEED = 7


def shoot_all(config: StackConfig, browser: Any, out: Path) -> list[str]:
    """Every picture; the names of those taken (the battle only if one was reached)."""
    taken: list[str] = []
    match_id, token = seeded_match(config, rounds=2, seed=SEED)
    wide = browser.new_context(viewport={"width": 1280, "height": 900})
    page = wide.new_page()
    page.goto(config.web_url)
    page.wait_for_selector(f"tr[data-match='{match_id}']")
    taken.append(shoot(page, out, "web-lobby").name)
    for _ in range(2000):  # A1 plays through setup up to its first turn
        view = call(config, f"/api/matches/{match_id}/view", token=token)["view"]
        legal = call(config, f"/api/matches/{match_id}/legal", token=token)["commands"]
        if view["round"] >= 1 and view["turn_seat"] == "SEAT_A1" and legal:
            break
        play_one(config, match_id, token)
    play = f"{config.web_url}play?match={match_id}#seat={token}"
    page.goto(play)
    page.wait_for_selector(SEAT_READY)
    taken.append(shoot(page, out, "web-play").name)
    phone = browser.new_context(**PHONE)
    small = phone.new_page()
    small.goto(play)
    small.wait_for_selector(SEAT_READY)
    small.click("button[aria-label='zoom in']")
    taken.append(shoot(small, out, "web-phone", full_page=False).name)
    phone.close()
    for _ in range(3000):
        if "web-battle.png" not in taken and _battle(config, match_id, token, page):
            taken.append(shoot(page, out, "web-battle").name)
        if play_one(config, match_id, token)["winner"]:
            break
    page.wait_for_selector("#winner", timeout=20_000)
    page.goto(f"{config.web_url}match?match={match_id}")
    page.wait_for_selector("#winner")
    page.click("#prev")
    taken.append(shoot(page, out, "web-spectate").name)
    wide.close()
    return taken


def _battle(config: StackConfig, match_id: str, token: str, page: Any) -> bool:
    """Whether A1 could start a battle and did, its page having caught up with it."""
    base = f"/api/matches/{match_id}"
    legal = call(config, f"{base}/legal", token=token)["commands"]
    battles = [c for c in legal if c["label"].lower().startswith("battle")]
    if not battles:
        return False
    version = int(call(config, f"{base}/view", token=token)["view"]["version"])
    body = {"legal_id": battles[0]["id"], "expected_version": version}
    try:
        call(config, f"{base}/commands", body, token)
    except urllib.error.HTTPError:  # moved on meanwhile
        return False
    page.wait_for_function(AT_LEAST, arg=version + 1)
    page.wait_for_timeout(300)  # the view read that follows the events
    return True


def shoot_arena(config: StackConfig, browser: Any, out: Path) -> str:
    """The top of the arena's leaderboard at 1280 px (the ranking, the leader's row opened
    with its factions and rating over time, the chart of the leaders); the list of recent
    matches below it runs to hundreds of lines and is left out."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{config.web_url}arena")
    leader = page.wait_for_selector("tr.entry button.bot-name")
    leader.click()
    page.wait_for_selector("tr.details:not([hidden]) svg.chart")
    name = shoot(page, out, "web-arena", full_page=False).name
    page.close()
    return name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument("--arena-from", type=Path, help="a campaign's workdir: its leaderboard")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as work:
        if args.arena_from:
            config = StackConfig.ephemeral(args.arena_from, web_port=free_port(), arena=True)
        else:
            config = StackConfig.ephemeral(
                Path(work), web_port=free_port(), web_env={"FRONTIER_WEB_BOT_KIND": "greedy"}
            )
        with Stack(config), sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                if args.arena_from:
                    names = [shoot_arena(config, browser, args.out)]
                else:
                    names = shoot_all(config, browser, args.out)
            finally:
                browser.close()
    print("wrote", ", ".join(str(args.out / n) for n in names))


if __name__ == "__main__":
    main()
