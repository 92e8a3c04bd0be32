"""Calls of the gateway's API as a script makes them (JSON and the client header), and the
page facts the board's browser tests and the screenshot script both wait on."""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from typing import Any

from playwright.sync_api import Error as PlaywrightError

from frontier.ops.stack import StackConfig

BOTS = ["B1", "A2", "B2", "A3", "B3"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# The version the match page shows ("live · version N", "version N of M"), and a predicate
# for wait_for_function that it has reached a version (a function: the page's policy
# refuses the eval Playwright polls a bare expression with).
SHOWN = "(document.querySelector('#version')?.textContent ?? '')"
# A seat's page with choices on show (its acting panel), and what a script clicks there to
# play on: the step's end when there is one, else the first choice offered.
SEAT_READY = "#act button"
PLAY_ON = ("#act button.end", "#act .act-answers button", "#act button.cmd", "#act button.group")
AT_LEAST = f"v => Number(({SHOWN}.match(/\\d+/) || [0])[0]) >= v"


def tap_to_play_on(page: Any, tap: bool = False) -> bool:
    """Click (or tap) what plays the seat on (:data:`PLAY_ON`); False when nothing was
    clicked (no choice on show, a command on its way, or the panel redrawn meanwhile)."""
    if page.query_selector("#act.busy"):
        return False
    for choice in PLAY_ON:
        button = page.query_selector(choice)
        if button and button.is_visible():
            try:
                if tap:
                    button.tap(timeout=2000)
                else:
                    button.click(timeout=2000)
            except PlaywrightError:  # redrawn between look and click: look again
                return False
            return True
    return False


def call(config: StackConfig, path: str, body: Any = None, token: str = "") -> Any:
    """One call of the gateway's API; a seat's token goes in its header."""
    headers = {"Content-Type": "application/json", "X-Frontier-Client": "tests"}
    if token:
        headers["X-Frontier-Seat-Token"] = token
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(config.web_url.rstrip("/") + path, data, headers)
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def seeded_match(config: StackConfig, rounds: int, seed: int) -> tuple[str, str]:
    """A seeded match of the default lineup (Vagabonds A3 and B3) with bots on every seat but
    A1; its id and A1's seat token."""
    created = call(config, "/api/matches", {"max_rounds": rounds, "seed": seed, "bots": BOTS})
    match_id = str(created["match_id"])
    code = created["invites"][0]["invite_code"]
    token = call(config, f"/api/matches/{match_id}/claim", {"invite_code": code})["token"]
    return match_id, str(token)


def play_one(config: StackConfig, match_id: str, token: str, prefer: str = "") -> dict[str, Any]:
    """A1 answers once if it must (a command whose label holds ``prefer`` first, else one
    ending its step, else the first); the view afterwards."""
    base = f"/api/matches/{match_id}"
    view = call(config, f"{base}/view", token=token)["view"]
    legal = call(config, f"{base}/legal", token=token)["commands"]
    if legal and not view["winner"]:
        wanted = [c for c in legal if prefer and prefer in c["label"].lower()]
        ends = [c for c in legal if c["label"].lower().startswith("end")]
        chosen = (wanted or ends or legal)[0]["id"]
        with contextlib.suppress(urllib.error.HTTPError):  # moved on meanwhile
            body = {"legal_id": chosen, "expected_version": int(view["version"])}
            call(config, f"{base}/commands", body, token)
        view = call(config, f"{base}/view", token=token)["view"]
    return dict(view)


def ready_to_march(
    config: StackConfig, seed: int
) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    """A seeded match where A1 (the Marquise), played through the API (recruiting first, for
    more warriors), may begin a march of more than one warrior: the match id, A1's token, the
    view then, and the march command of the most warriors."""
    match_id, token = seeded_match(config, rounds=3, seed=seed)
    base = f"/api/matches/{match_id}"
    for _ in range(300):
        view = call(config, f"{base}/view", token=token)["view"]
        legal = call(config, f"{base}/legal", token=token)["commands"]
        marches = [
            c
            for c in legal
            if c["command"].get("kind") == "COMMAND_KIND_MARCH" and c["command"].get("count") > 1
        ]
        if marches and not view.get("march_left"):
            return match_id, token, view, max(marches, key=lambda c: c["command"].get("count", 0))
        if view.get("winner"):
            break
        play_one(config, match_id, token, prefer="recruit")
    raise AssertionError("A1 never had a march to make")


def tap_a_far_march(page: Any, source: str, view: dict[str, Any]) -> tuple[str, int]:
    """Taps the march's source, then the first clearing one path beyond a destination (both
    moves of the march): that clearing, and A1's warriors there before."""
    page.click(f"#board [data-clearing='{source}'] .hit")
    far = page.query_selector_all("#board g.clearing.dest2")
    assert far, "a clearing one path beyond a destination is offered"
    to = str(far[0].get_attribute("data-clearing"))
    before = warriors_at(view, to, "A1")
    page.click(f"#board [data-clearing='{to}'] .hit")
    return to, before


def check_the_march(
    page: Any, config: StackConfig, match_id: str, token: str, to: str, moved: int
) -> dict[str, Any]:
    """Once the page's march is over: both moves were played (``moved`` more warriors of A1's
    in ``to``), or the page says where it stopped and one move is left; the view then."""
    page.wait_for_function(MARCH_OVER)
    after: dict[str, Any] = call(config, f"/api/matches/{match_id}/view", token=token)["view"]
    if "stopped in" not in page.inner_text("#act-done"):  # the second move was legal
        assert warriors_at(after, to, "A1") == moved and not after.get("march_left")
    else:  # stopped half-way: one move of the march is left, from where it stopped
        assert after.get("march_left") == 1
    return after


def ready_to_end_the_step(page: Any) -> int:
    """Answers what the page asks before the step may end (a march into a clearing with
    sympathy asks the Marquise to give a card for the Outrage), until it offers the step's
    end; how many answers that took."""
    answers = "#act .act-answers button:not([disabled])"
    for answered in range(10):
        page.wait_for_selector(f"#act button.end:not([disabled]), {answers}")
        if page.query_selector(answers) is None:
            return answered
        page.locator(answers).first.click()  # found again if the panel was redrawn meanwhile
    raise AssertionError("the page kept asking")


# the page's march is over: both moves played, or stopped half-way (the panel says both parts)
MARCH_OVER = """() => {
  const act = document.querySelector('#act');
  const done = document.querySelector('#act-done')?.textContent ?? '';
  return !!act && !act.classList.contains('busy') && done.includes(' · ');
}"""


def warriors_at(view: dict[str, Any], clearing: str, seat: str) -> int:
    """How many warriors ``seat`` has in ``clearing`` in a seat's view."""
    at = next(c for c in view["clearings"] if c["id"] == clearing)
    mine = [p for p in at.get("pieces", []) if p.get("seat") == f"SEAT_{seat}"]
    return int(mine[0].get("warriors", 0)) if mine else 0
