"""The board in a real Chromium against a real stack: a phone plays a seat's whole first
turn with no horizontal scroll and pans and zooms the board; the keyboard alone opens a
clearing's commands and submits one, and a re-render keeps the focus on its clearing; every
Vagabond pawn is drawn where its seat board says it stands, forest or clearing, live and in
the replay; axe-core finds no serious or critical violation on the lobby, a seat's page and
the replay page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from frontier.ops.stack import StackConfig
from tests.browser.gateway import (
    AT_LEAST,
    PHONE,
    SEAT_READY,
    SHOWN,
    call,
    play_one,
    seeded_match,
    tap_to_play_on,
)
from tests.browser.shots import shoot

pytestmark = [pytest.mark.browser, pytest.mark.integration]

AXE = Path(__file__).resolve().parents[2] / "web" / "node_modules" / "axe-core" / "axe.min.js"
ON_A_TARGET = "() => !!document.activeElement.closest('.clearing')?.querySelector('.target')"
FITS = "() => document.scrollingElement.scrollWidth <= window.innerWidth"
VIEW_BOX = "() => document.querySelector('#board').getAttribute('viewBox').split(' ').map(Number)"


def _version(page: Any) -> int:
    text = str(page.text_content("#version") or "")
    digits = "".join(ch if ch.isdigit() else " " for ch in text).split()
    return int(digits[0]) if digits else -1


def test_a_phone_plays_a_whole_turn_without_horizontal_scroll_and_zooms_the_board(
    web_stack: StackConfig, browser: Any, output: Path
) -> None:
    match_id, token = seeded_match(web_stack, rounds=1, seed=11)
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{web_stack.web_url}play?match={match_id}#seat={token}")
    page.wait_for_selector(SEAT_READY)
    assert page.evaluate(FITS), "the page is wider than the phone"
    # the board: + zooms in, a drag pans, the whole-board button shows it all again
    full = page.evaluate(VIEW_BOX)
    page.click("button[aria-label='zoom in']")
    zoomed = page.evaluate(VIEW_BOX)
    assert zoomed[2] < full[2]
    box = page.locator("#board").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 80, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    assert page.evaluate(VIEW_BOX)[0] < zoomed[0], "dragging right shows what lies left"
    page.click("button[aria-label='show the whole board']")
    assert page.evaluate(VIEW_BOX) == full
    # A1 plays by taps on the bottom sheet until its first turn of round 1 is over
    had_turn = False
    for _ in range(400):
        view = call(web_stack, f"/api/matches/{match_id}/view", token=token)["view"]
        mine = view["turn_seat"] == "SEAT_A1" and view["round"] >= 1
        had_turn = had_turn or mine
        if view["winner"] or (had_turn and not mine):
            break
        tap_to_play_on(page, tap=True)
        page.wait_for_timeout(50)
        assert page.evaluate(FITS), "the page grew wider than the phone"
    assert had_turn, "A1 never had its turn"
    shoot(page, output, "phone-turn")
    page.goto(web_stack.web_url)  # the lobby's list of matches scrolls inside itself
    page.wait_for_selector(f"tr[data-match='{match_id}']")
    assert page.evaluate(FITS), "the lobby is wider than the phone"
    context.close()


def test_the_keyboard_alone_opens_a_clearing_and_submits_a_command(
    web_stack: StackConfig, browser: Any
) -> None:
    match_id, token = seeded_match(web_stack, rounds=1, seed=12)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{web_stack.web_url}play?match={match_id}#seat={token}")
    page.wait_for_selector("#board .box.target")
    before = int(call(web_stack, f"/api/matches/{match_id}/view", token=token)["view"]["version"])
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate(ON_A_TARGET):
            break
    else:
        pytest.fail("Tab never reached a clearing with a command")
    name = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert "has commands" in name and page.evaluate(
        "() => document.activeElement.getAttribute('role')"
    ) == ("button")
    page.keyboard.press("Enter")
    # a clearing whose one command says only "here" plays it; else its menu opens, focused
    if page.evaluate("() => document.activeElement.closest('#act-menu') !== null"):
        page.keyboard.press("Enter")
    page.wait_for_function(AT_LEAST, arg=before + 1)
    # focus on a clearing survives the board's re-render when the match moves on
    page.wait_for_selector(SEAT_READY)
    page.focus("#board [data-clearing='autumn.hill'] .hit")
    shown = _version(page)
    for _ in range(50):
        play_one(web_stack, match_id, token)  # A1 answers through the API, not the page
        if _version(page) > shown:
            break
        page.wait_for_timeout(50)
    page.wait_for_function(AT_LEAST, arg=shown + 1)
    focused = "() => document.activeElement.closest('[data-clearing]').dataset.clearing"
    assert page.evaluate(focused) == "autumn.hill"
    context.close()


def _pawns_where_the_seat_boards_say(page: Any, view: dict[str, Any]) -> list[str]:
    vagabonds = [s for s in view["seats"] if s.get("vagabond")]
    assert vagabonds, "the lineup has Vagabonds"
    missing = []
    for s in vagabonds:
        seat, at = s["seat"].removeprefix("SEAT_"), s["vagabond"]["location"]
        where = ", ".join(
            f"#board [data-{place}='{at}'] [data-pawn='{seat}']" for place in ("clearing", "forest")
        )
        if not page.query_selector(where):
            missing.append(f"{seat} at {at}")
    return missing


def test_every_vagabond_pawn_is_drawn_in_its_forest_or_clearing(
    web_stack: StackConfig, browser: Any, output: Path
) -> None:
    match_id, token = seeded_match(web_stack, rounds=1, seed=13)
    view: dict[str, Any] = {}
    for _ in range(300):  # through setup, where each Vagabond slips into a forest
        view = play_one(web_stack, match_id, token)
        if view["round"] >= 1:
            break
    places = [s.get("vagabond", {}).get("location", "") for s in view["seats"]]
    assert [at for at in places if ".forest." in at], "a Vagabond starts in a forest"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{web_stack.web_url}match?match={match_id}")
    page.wait_for_function(AT_LEAST, arg=int(view["version"]))
    live = call(web_stack, f"/api/matches/{match_id}/view")["view"]
    if int(live["version"]) == int(view["version"]):
        assert _pawns_where_the_seat_boards_say(page, live) == []
    # the replay rebuilds the pawns from the events alone: the same places at that version
    page.goto(f"{web_stack.web_url}match?match={match_id}&version={view['version']}")
    page.wait_for_function(  # the events up to that version have all arrived
        f"v => {{ const m = /version (\\d+) of (\\d+)/.exec({SHOWN});"
        " return m && Number(m[1]) === v && Number(m[2]) >= v; }",
        arg=int(view["version"]),
    )
    assert _pawns_where_the_seat_boards_say(page, view) == []
    shoot(page, output, "pawns")
    page.close()


AXE_RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ['violations'] });
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}"""


def _axe(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE))
    return list(page.evaluate(AXE_RUN))


def test_axe_finds_no_serious_violation_on_the_lobby_a_seat_and_the_replay(
    web_stack: StackConfig, browser: Any
) -> None:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: make web installs axe-core")
    match_id, token = seeded_match(web_stack, rounds=1, seed=14)
    # the test injects axe as an inline script, which the gateway's policy would refuse
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.goto(web_stack.web_url)
    page.wait_for_selector(f"tr[data-match='{match_id}']")
    assert _axe(page) == [], "lobby"
    page.goto(f"{web_stack.web_url}play?match={match_id}#seat={token}")
    page.wait_for_selector(SEAT_READY)
    assert _axe(page) == [], "a seat's page"
    for _ in range(40):
        play_one(web_stack, match_id, token)
    page.goto(f"{web_stack.web_url}match?match={match_id}&version=5")
    page.wait_for_selector("#board .clearing")
    assert _axe(page) == [], "the replay"
    context.close()
