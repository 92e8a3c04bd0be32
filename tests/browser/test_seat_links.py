"""Seats that survive a closed tab, in a real Chromium against a real stack: a player closes
the tab early in the match and takes the seat back from another browser through the seat
link, then revokes that link; the host, from another browser through the host link, gives
a silent seat to a bot and back.  No token ever reaches the gateway's access log."""

from __future__ import annotations

import time
from typing import Any

import pytest

from frontier.ops.stack import StackConfig
from tests.browser.gateway import SEAT_READY, tap_to_play_on
from tests.browser.test_web_client import api

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def _click_commands(page: Any, clicks: int) -> None:
    """Play ``clicks`` commands by clicking (an "end ..." one when there is one)."""
    done = 0
    while done < clicks:
        page.wait_for_selector(SEAT_READY)
        if tap_to_play_on(page):
            done += 1
        page.wait_for_timeout(100)


def _access_log(web_stack: StackConfig) -> str:
    assert web_stack.workdir is not None
    return (web_stack.workdir / "logs" / "web.log").read_text()


def _until(predicate: Any, timeout_s: float = 30) -> None:
    """Waits for the stack to reach a state (the bots play at their own pace)."""
    end = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < end, "the stack never reached the state waited for"
        time.sleep(0.1)


def test_a_closed_tab_takes_its_seat_back_in_another_browser_through_the_seat_link(
    web_stack: StackConfig, browser: Any
) -> None:
    first = browser.new_context()
    page = first.new_page()
    page.goto(web_stack.web_url)
    page.fill("#max_rounds", "2")
    page.click("#create-button")
    match_id = str(page.get_attribute("#watch-link", "href")).partition("match=")[2]
    page.click("a.seat-link[data-seat=A1]")
    page.click("#claim-myself")
    _click_commands(page, 2)  # round 1
    link = page.input_value("#seat-link")
    assert link.startswith(f"{web_stack.web_url.rstrip('/')}/play?match={match_id}#seat=")
    token = link.partition("#seat=")[2]
    first.close()  # the tab (and its browser) is gone

    second = browser.new_context()  # another device
    page = second.new_page()
    page.goto(link)
    page.wait_for_selector(SEAT_READY)
    assert "you play A1" in page.inner_text("h1")
    assert "#" not in page.url and token not in page.url  # the secret left the address bar
    assert page.evaluate(f"localStorage.getItem('frontier.seat.{match_id}.A1')") == token
    view = api(web_stack, f"/api/matches/{match_id}/view")["view"]
    assert int(view["round"]) <= 2
    _click_commands(page, 1)  # the seat plays on from here
    # a new tab of the same browser finds the seat without the link
    again = second.new_page()
    again.goto(f"{web_stack.web_url.rstrip('/')}/play?match={match_id}")
    again.wait_for_selector("#seat-link")
    assert again.input_value("#seat-link") == link
    again.close()

    # the link leaked: revoke and reissue it; the old one then says it was replaced
    page.on("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():  # the page goes on with the new token
        page.click("#reissue")
    page.wait_for_selector("#seat-link")
    new_link = page.input_value("#seat-link")
    new_token = new_link.partition("#seat=")[2]
    assert new_token and new_token != token
    third = browser.new_context()
    late = third.new_page()
    late.goto(link)
    late.wait_for_selector(".error")
    assert "replaced" in late.inner_text(".error")
    third.close()
    second.close()
    access = _access_log(web_stack)
    assert f"/api/matches/{match_id}/reissue 200" in access
    assert token not in access and new_token not in access


def test_the_host_from_another_browser_gives_a_silent_seat_to_a_bot_and_back(
    web_stack: StackConfig, browser: Any
) -> None:
    first = browser.new_context()
    page = first.new_page()
    page.goto(web_stack.web_url)
    page.uncheck("#bot-B1")  # A1 (the host's, silent) and B1 (nobody's) open
    page.click("#create-button")
    match_id = str(page.get_attribute("#watch-link", "href")).partition("match=")[2]
    host_link = str(page.get_attribute("#created-host-link", "href"))
    assert host_link.startswith(f"{web_stack.web_url.rstrip('/')}/match?match={match_id}#host=")
    host_token = host_link.partition("#host=")[2]
    page.click("a.seat-link[data-seat=A1]")
    page.click("#claim-myself")
    page.wait_for_selector(SEAT_READY)  # the match waits for A1, which stays silent

    other = browser.new_context()  # the host on another device
    host = other.new_page()
    host.goto(host_link)
    assert "#" not in host.url and host_token not in host.url
    seat = "#host-seats li[data-seat=A1]"
    host.wait_for_selector(f"{seat}[data-status=host]")
    host.click(f"{seat} button.host-bot")
    host.wait_for_selector(f"{seat}[data-status=bot_for_player]")
    assert "playing for the host" in host.inner_text(seat)

    def waits_for_b1() -> bool:
        return bool(api(web_stack, f"/api/matches/{match_id}/view")["view"]["to_act"] == "SEAT_B1")

    _until(waits_for_b1)  # the bot played A1's turn; B1 (nobody's) is next
    host.click(f"{seat} button.host-return")
    host.wait_for_selector(f"{seat}[data-status=host]")
    listed = api(web_stack, "/api/matches")["matches"]
    a1 = next(
        s for m in listed if m["match_id"] == match_id for s in m["seats"] if s["seat"] == "A1"
    )
    assert a1["status"] == "host"
    other.close()
    first.close()
    assert host_token not in _access_log(web_stack)
    assert f"/api/matches/{match_id}/seats/A1/return 200" in _access_log(web_stack)
