"""Playing a seat in a real Chromium against a real stack: two people and four bots play a
whole match by clicks only (from the map, the grouped choices, the answers, E and T), with
no list of more than fifteen choices and every legal command reachable, the log, the panel
and the text view in words without ids; the clicks per turn and the bytes per command are
printed.  A march is made from the map with the count stepper, Escape and E; a march's two
moves take one tap on the far clearing.  A refused command's error stays
until the next action, a deep link to a version that is none is refused politely, and the
bundle is minified and served compressed."""

from __future__ import annotations

import gzip
import re
import statistics
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from frontier.ops.stack import StackConfig
from tests.browser.gateway import (
    AT_LEAST,
    call,
    check_the_march,
    ready_to_end_the_step,
    ready_to_march,
    tap_a_far_march,
    warriors_at,
)
from tests.browser.seat_player import RAW_ID, SeatPlayer, drag, turns
from tests.browser.shots import shoot
from tests.browser.test_web_client import api, csp_refusals, seat_api

pytestmark = [pytest.mark.browser, pytest.mark.integration]

FOUR_BOTS = ["A2", "B2", "A3", "B3"]
SNAKE_ID = re.compile(r"\b[a-z]+_[a-z_]+\b")


def _two_seats(
    web_stack: StackConfig, rounds: int, people: tuple[str, str] = ("A1", "B1")
) -> tuple[str, dict[str, str]]:
    """A match with people at two seats (their seat tokens) and bots elsewhere."""
    bots = [seat for seat in ("A1", "B1", "A2", "B2", "A3", "B3") if seat not in people]
    created = api(web_stack, "/api/matches", {"max_rounds": rounds, "bots": bots})
    match_id = created["match_id"]
    tokens = {}
    for invite in created["invites"]:
        claim = {"invite_code": invite["invite_code"], "allow_host_claim": True}
        tokens[invite["seat"]] = api(web_stack, f"/api/matches/{match_id}/claim", claim)["token"]
    return match_id, tokens


def _open_seat(browser: Any, web_stack: StackConfig, match_id: str, token: str) -> Any:
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.goto(f"{web_stack.web_url}play?match={match_id}#token={token}", wait_until="commit")
    page.wait_for_selector("#act", state="attached")
    return page


# the two Marquises; then the Alliance and a Vagabond (moves from and into forests, slips,
# quests, aid, items)
@pytest.mark.parametrize("people", [("A1", "B1"), ("B2", "A3")])
def test_two_people_and_four_bots_play_a_match_by_clicks(
    web_stack: StackConfig, browser: Any, output: Path, people: tuple[str, str]
) -> None:
    match_id, tokens = _two_seats(web_stack, rounds=2, people=people)
    first = people[0]
    pages = {seat: _open_seat(browser, web_stack, match_id, t) for seat, t in tokens.items()}
    refused = {seat: csp_refusals(page) for seat, page in pages.items()}
    # the first person marches both moves with one tap whenever the map offers it; the other
    # taps any destination offered, near or far
    players = {
        seat: SeatPlayer(page, seed=i, full_marches=seat == first)
        for i, (seat, page) in enumerate(pages.items())
    }
    looks = 0
    while not any(page.query_selector("#winner") for page in pages.values()):
        clicked = [player.step() for player in players.values()]
        looks += 1
        menu = pages[first].query_selector("#act-menu #how-many button")
        if menu and not (output / "1-playing.png").exists():
            shoot(pages[first], output, "1-playing")  # a move being chosen from the map
        if not any(clicked):
            pages[first].wait_for_timeout(40)
        assert looks < 20000, "the match did not end"
    for seat, page in pages.items():
        page.wait_for_selector("#winner")
        log = page.inner_text("#log")
        assert "drew" in log
        assert not RAW_ID.findall(log), f"ids in {seat}'s log: {RAW_ID.findall(log)[:5]}"
        assert page.query_selector(".notice.winner"), "the winner is told"
        assert refused[seat] == []
        # the text view names clearings, seats and pieces: no id, in play or at the end
        board_text = page.text_content("#text-view") or ""
        assert "Paths to" in board_text and "(Marquise)" in board_text, board_text[:300]
        assert not RAW_ID.findall(board_text), f"ids in the text view: {RAW_ID.findall(board_text)}"
        # the seat boards too: pieces, leaders and items in words (no `base_fox`, no `.`-ids)
        boards = page.inner_text("#boards")
        assert not RAW_ID.findall(boards) and not SNAKE_ID.findall(boards), boards[:400]
        print(players[seat].summary(seat))
        print(f"{seat}'s decisions: {sorted(set(players[seat].prompts))[:4]}")
    shoot(pages[first], output, "2-over")
    # one's own draws are shown with the cards drawn: a card's name, never "a hidden card"
    for seat, page in pages.items():
        own_draws = [
            line
            for line in page.inner_text("#log").splitlines()
            if f"you, {seat} (" in line and " · drew" in line
        ]
        assert own_draws and not [line for line in own_draws if "hidden" in line]
    for player in players.values():
        assert player.command_bytes, "the seat played"
        assert any(s.commands for s in player.stretches)
        assert not player.ids_seen, f"ids on the seat's page: {player.ids_seen[:5]}"
    # the people's own turns: clicks against commands (a move is one click once its source is
    # chosen, a clearing with one command or a repeated one is one tap, E and T end by key)
    own = [s for seat in people for s in players[seat].stretches if s.commands]
    clicks, commands = sum(s.clicks for s in own), sum(s.commands for s in own)
    print(
        f"people's own stretches: median {statistics.median(s.clicks for s in own)} clicks for"
        f" {statistics.median(s.commands for s in own)} commands; {clicks} clicks for"
        f" {commands} commands ({clicks / commands:.2f} a command); {first}, marching both"
        f" moves by one tap: {turns(players[first].stretches)}; {people[1]}, any destination:"
        f" {turns(players[people[1]].stretches)}"
    )
    # (whether the random players ever end a step by its key depends on their draws: the
    # keys themselves are checked in test_a_march_by_taps_with_the_count_stepper_and_the_keys)
    assert clicks <= 1.3 * commands, (clicks, commands)
    for page in pages.values():
        page.context.close()


def test_a_refused_command_stays_on_show_until_the_next_action(
    web_stack: StackConfig, browser: Any
) -> None:
    match_id, tokens = _two_seats(web_stack, rounds=1)
    page = _open_seat(browser, web_stack, match_id, tokens["A1"])
    page.wait_for_selector("#act button")

    # the real server refuses the next command: its id is made one no list holds
    def spoil(route: Any) -> None:
        route.continue_(post_data=b'{"legal_id": "no such command", "expected_version": -1}')

    page.route("**/commands", spoil)
    first = page.query_selector("#act button.cmd") or page.query_selector("#act button.group")
    first.click()
    # a clearing's menu may open first: then choose in it
    page.wait_for_selector("#command-error, #act-menu button.cmd")
    if not page.query_selector("#command-error"):
        page.click("#act-menu button.cmd")
    page.wait_for_selector("#command-error")
    page.unroute("**/commands")
    said = page.inner_text("#command-error")
    assert said.startswith("Not played")
    # the page reads its view again after a refusal, and the error is still there
    view = seat_api(web_stack, f"/api/matches/{match_id}/view", tokens["A1"])["view"]
    page.wait_for_function(
        "v => (document.querySelector('#version')?.textContent ?? '').includes(v)",
        arg=f"version {view['version']}",
    )
    assert page.inner_text("#command-error") == said
    # the next click, once the choices are drawn again (they take no click while the refused
    # command's list is on show)
    page.click("#act:not(.busy) button.cmd, #act:not(.busy) button.group")
    assert not page.query_selector("#command-error")
    page.context.close()


@pytest.mark.parametrize("asked", ["abc", "-1", "99999999", "1e3"])
def test_a_deep_link_to_no_version_is_refused_politely(
    web_stack: StackConfig, browser: Any, asked: str
) -> None:
    created = api(web_stack, "/api/matches", {"max_rounds": 1, "bots": ["A1", *FOUR_BOTS]})
    page = browser.new_page()
    page.goto(
        f"{web_stack.web_url}match?match={created['match_id']}&version={asked}", wait_until="commit"
    )
    page.wait_for_selector(".notice.refused-link")
    assert "showing" in page.inner_text(".notice.refused-link")
    page.wait_for_selector("#version")
    page.wait_for_function("() => document.querySelector('#version').textContent.length > 0")
    shown = page.inner_text("#version")
    assert "NaN" not in shown and "live" in shown
    assert "version=" not in page.url
    page.close()


def test_the_bundle_is_minified_and_served_compressed(web_stack: StackConfig) -> None:
    request = urllib.request.Request(
        web_stack.web_url + "static/app.js", headers={"Accept-Encoding": "gzip"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        assert reply.headers["Content-Encoding"] == "gzip"
        sent = reply.read()
    bundle = gzip.decompress(sent).decode()
    assert len(sent) < len(bundle) / 2
    # minified: a few long lines, not one statement per indented line
    assert bundle.count("\n") < 50 and "\n  " not in bundle
    print(f"app.js: {len(bundle)} bytes, {len(sent)} bytes as sent")


def test_spectators_are_told_of_strikes_the_takeover_the_winner_and_abandonment(
    web_stack: StackConfig, browser: Any
) -> None:
    # A1 is left open under a short clock: its deadlines pass, then the bot takes it over
    clocked = api(
        web_stack,
        "/api/matches",
        {"max_rounds": 1, "decision_budget_ms": 300, "bots": [*FOUR_BOTS, "B1"]},
    )
    page = browser.new_page()
    page.goto(f"{web_stack.web_url}match?match={clocked['match_id']}", wait_until="commit")
    page.wait_for_selector(".notice.strike", timeout=20_000)
    assert "ran out of time" in page.inner_text(".notice.strike")
    page.wait_for_selector(".notice.takeover", timeout=20_000)
    assert "built-in bot" in page.inner_text(".notice.takeover")
    page.wait_for_selector(".notice.winner", timeout=60_000)
    # a match left waiting for its open seat, ended by its host
    waiting = api(web_stack, "/api/matches", {"max_rounds": 1, "bots": [*FOUR_BOTS, "B1"]})
    page.goto(f"{web_stack.web_url}match?match={waiting['match_id']}", wait_until="commit")
    page.wait_for_selector("#board .clearing")
    asked: list[str] = []  # the page's API reads from now on
    page.on("request", lambda r: asked.append(r.url) if "/api/" in r.url else None)
    request = urllib.request.Request(
        f"{web_stack.web_url}api/matches/{waiting['match_id']}/abandon",
        data=b"{}",
        headers={
            "Content-Type": "application/json",
            "X-Frontier-Client": "tests",
            "X-Frontier-Host-Token": waiting["host_token"],
        },
    )
    urllib.request.urlopen(request, timeout=10).close()
    page.wait_for_selector(".notice.abandoned", timeout=20_000)
    assert "abandoned" in page.inner_text("#log")
    # the event stream's end said so: the page asked the lobby's listing nothing
    assert not [url for url in asked if "/api/matches?" in url], asked
    page.close()


def test_a_march_by_taps_with_the_count_stepper_and_the_keys(
    web_stack: StackConfig, browser: Any
) -> None:
    """A1 (the Marquise) marches from the map: the source's tap opens its menu with the count
    stepper at "all", - and + step it, Escape closes the menu, a tap one path beyond a
    destination plays both moves of the march, and E ends the step."""
    match_id, token, view, march = ready_to_march(web_stack, seed=12)
    source, most = march["command"]["clearing"], march["command"].get("count", 0)
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.goto(f"{web_stack.web_url}play?match={match_id}#seat={token}")
    page.wait_for_function(AT_LEAST, arg=int(view["version"]))
    page.wait_for_selector("#board .box.target")
    page.click(f"#board [data-clearing='{source}'] .hit")
    page.wait_for_selector(f"#act-menu[data-clearing='{source}']")
    assert f"all {most}" in page.inner_text("#how-many")
    page.keyboard.press("-")
    assert f"{most - 1} of {most}" in page.inner_text("#how-many")
    page.keyboard.press("+")
    assert f"all {most}" in page.inner_text("#how-many")
    page.keyboard.press("Escape")
    assert not page.query_selector("#act-menu") and page.query_selector("#act kbd")
    # the march is over (both moves played) or stopped half-way: Played says both parts, and
    # the panel takes clicks again
    to, before = tap_a_far_march(page, source, view)
    after = check_the_march(page, web_stack, match_id, token, to, before + most)
    answered = ready_to_end_the_step(page)
    page.keyboard.press("e")
    page.wait_for_function(AT_LEAST, arg=int(after["version"]) + answered + 1)
    page.close()


# the ids of the clearings drawn wholly inside the window
IN_SIGHT = """gs => gs.filter((g) => {
  const r = g.querySelector('.hit').getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
}).map((g) => g.dataset.clearing)"""


def test_a_move_dragged_on_the_map_is_played_in_one_gesture(
    web_stack: StackConfig, browser: Any
) -> None:
    """A1 drags from a clearing a march may start in to one of its destinations: the whole
    move (all the warriors, as the stepper says by default) is played with no tap; a drop on
    a place that is no destination plays nothing and only chooses the source."""
    match_id, token, view, march = ready_to_march(web_stack, seed=12)
    source, most = march["command"]["clearing"], int(march["command"].get("count", 0))
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.goto(f"{web_stack.web_url}play?match={match_id}#seat={token}")
    page.wait_for_function(AT_LEAST, arg=int(view["version"]))
    movable = f"#board g.clearing.movable[data-clearing='{source}']"
    g = page.wait_for_selector(movable)
    dests = str(g.get_attribute("data-to")).split()
    assert dests, "a movable clearing names where its moves go"
    # the source chosen shows its destinations and the clearings one path beyond (both moves
    # of a march): a drop on none of them plays nothing.  A locator, found again when the
    # page's second read of its view has redrawn the map meanwhile
    page.locator(f"{movable} .hit").click()
    page.wait_for_selector(f"#act-menu[data-clearing='{source}']")
    elsewhere = page.eval_on_selector_all(
        "#board g.clearing:not(.dest):not(.dest2):not(.selected)", IN_SIGHT
    )
    page.keyboard.press("Escape")
    page.wait_for_selector("#act-menu", state="detached")
    drag(page, page.query_selector(f"#board [data-clearing='{source}']"), elsewhere[0])
    page.wait_for_selector(f"#act-menu[data-clearing='{source}']")
    assert (
        call(web_stack, f"/api/matches/{match_id}/view", token=token)["view"]["version"]
        == view["version"]
    )
    page.keyboard.press("Escape")
    to = dests[0]
    before = warriors_at(view, to, "A1")
    drag(page, page.query_selector(f"#board [data-clearing='{source}']"), to)
    page.wait_for_function(AT_LEAST, arg=int(view["version"]) + 1)
    after = call(web_stack, f"/api/matches/{match_id}/view", token=token)["view"]
    assert warriors_at(after, to, "A1") == before + most
    assert page.inner_text("#act-done").startswith("Played")
    page.close()
