"""The web client in a real Chromium against a real stack: a person creates a match in the
lobby with five bot seats (the orchestrator's built-in bots), claims the sixth by its invite
link, plays it to the end by clicks only and sees the winner, and the link then tells a
latecomer the seat is taken; a spectator follows a match live while the bots play; the
replay scrubber's last step is the final view; a seat's page never receives another seat's
hand, and no secret reaches a URL or the access log."""

from __future__ import annotations

import contextlib
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from frontier.ops.stack import StackConfig
from tests.browser.seat_player import SeatPlayer
from tests.browser.shots import shoot

pytestmark = [pytest.mark.browser, pytest.mark.integration]

FIVE_BOTS = ["B1", "A2", "B2", "A3", "B3"]


def api(config: StackConfig, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        config.web_url.rstrip("/") + path,
        data=data,
        headers={"Content-Type": "application/json", "X-Frontier-Client": "tests"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def seat_api(config: StackConfig, path: str, token: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {
        "Content-Type": "application/json",
        "X-Frontier-Client": "tests",
        "X-Frontier-Seat-Token": token,
    }
    request = urllib.request.Request(config.web_url.rstrip("/") + path, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def csp_refusals(page: Any) -> list[str]:
    """Every Content-Security-Policy refusal the page reports from now on (the gateway's
    policy allows no inline script or style: the client must work without them)."""
    refused: list[str] = []

    def note(message: Any) -> None:
        if "Content Security Policy" in message.text:
            refused.append(message.text)

    page.on("console", note)
    return refused


def wait_for_winner(page: Any, timeout_s: float) -> str:
    page.wait_for_selector("#winner", timeout=timeout_s * 1000)
    return str(page.inner_text("#winner"))


def _create_in_the_lobby(page: Any, web_url: str) -> tuple[str, str, str]:
    """The host creates a one-round match with bots on every seat but A1; the match's
    invite link for A1, its id, and its row's selector in the lobby."""
    page.goto(web_url)
    page.fill("#max_rounds", "1")
    for seat in FIVE_BOTS:
        assert page.is_checked(f"#bot-{seat}")
    assert not page.is_checked("#bot-A1")
    page.click("#create-button")
    invite = page.get_attribute("a.seat-link[data-seat=A1]", "href")
    assert invite and "/join?match=" in invite and "#invite=" in invite
    match_id = str(page.get_attribute("#watch-link", "href")).partition("match=")[2]
    row = f"tr[data-match='{match_id}']"
    # the lobby shows who plays each seat, as the orchestrator has it
    page.wait_for_selector(f"{row} .seat[data-seat=A1][data-status=open]")
    bots = page.query_selector_all(f"{row} .seat[data-status=bot]")
    assert sorted(str(b.get_attribute("data-seat")) for b in bots) == sorted(FIVE_BOTS)
    assert page.query_selector(f"{row} a.invite"), "the host sees the open seat's invite link"
    return invite, match_id, row


def _claim_and_play_by_clicks(page: Any, output: Path) -> None:
    """Follow A1's invite link from the host's own tab (the page asks the host to confirm
    that it takes the seat itself), then play the seat and click to the end."""
    page.click("a.seat-link[data-seat=A1]")
    page.click("#claim-myself")
    page.wait_for_selector("#act, .error", state="attached")
    assert "/play?match=" in page.url and "invite" not in page.url and "token" not in page.url
    shoot(page, output, "1-play-start")
    player = SeatPlayer(page, seed=7)
    looks = 0
    while not page.query_selector("#winner"):
        if not player.step():
            page.wait_for_timeout(40)
        looks += 1
        if looks == 8:
            shoot(page, output, "2-play-mid")
        assert looks < 20000, "the match did not end"
    clicks = player.clicks()
    winner = page.inner_text("#winner")
    assert winner.startswith("Winner:")
    assert clicks > 0
    shoot(page, output, "3-play-over")


def _check_no_secret_left_the_seat(
    page: Any,
    web_stack: StackConfig,
    match_id: str,
    payloads: list[tuple[str, Any]],
    sent: list[str],
) -> None:
    """The network payloads of this seat's page: no other seat's hand, no seat token, invite
    code or host token in a URL the page requested or in the gateway's access log."""
    # the view comes with each command's reply too, and its events as the seat may see them
    views = [body["view"] for url, body in payloads if url.endswith(("/view", "/commands"))]
    assert views, "the page read its view"
    for url, body in payloads:
        for envelope in body.get("events", []) if url.endswith("/commands") else []:
            event = envelope["event"]
            if event.get("seat") != "A1" and event.get("kind") == "EVENT_KIND_CARDS_DRAWN":
                assert set(event.get("cards", [])) <= {"hidden"}, "another seat's draw was shown"
    for view in views:
        assert view["viewer"] == "SEAT_A1"
        for seat in view["seats"]:
            if seat["seat"] != "SEAT_A1":
                assert seat["hand"] == [], f"{seat['seat']}'s hand reached A1's page"
    assert any(s["hand"] for v in views for s in v["seats"] if s["seat"] == "SEAT_A1")
    created = [body for url, body in payloads if url.endswith("/api/matches") and "invites" in body]
    assert [i["seat"] for i in created[0]["invites"]] == ["A1"]
    # the seat token the claim returned is kept by the page, not in its address
    token = page.evaluate(f"localStorage.getItem('frontier.seat.{match_id}.A1')")
    assert token and token not in page.url
    secrets = [token, created[0]["invites"][0]["invite_code"]]
    secrets.append(created[0]["host_token"])
    # no secret in a URL the page requested, nor in the gateway's access log
    assert not [url for url in sent for secret in secrets if secret in url]
    access = (web_stack.workdir / "logs" / "web.log").read_text()
    assert "/claim 200" in access and f"/api/matches/{match_id}/legal" in access
    assert not [secret for secret in secrets if secret in access]


def _check_the_invite_is_spent(
    browser: Any, web_url: str, invite: str, match_id: str, row: str
) -> None:
    """The same invite link again, in another browser: the seat is taken, said clearly."""
    other = browser.new_context()
    late = other.new_page()
    late.goto(invite)
    late.wait_for_selector("#join-error")
    assert "taken" in late.inner_text("#join-reason")
    assert late.get_attribute("#watch-instead", "href") == (f"/match?match={match_id}")
    late.goto(web_url)
    late.wait_for_selector(f"{row} .seat[data-seat=A1]")
    assert late.get_attribute(f"{row} .seat[data-seat=A1]", "data-status") == "host"
    assert not late.query_selector(f"{row} a.invite"), "only the host sees invite links"
    other.close()


def test_create_in_the_lobby_claim_by_invite_link_play_by_clicks_to_the_end(
    web_stack: StackConfig, browser: Any, output: Path
) -> None:
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    payloads: list[tuple[str, Any]] = []
    sent: list[str] = []  # every URL the page asked a server for

    def record(response: Any) -> None:
        if "/api/" in response.url and "/events" not in response.url:
            with contextlib.suppress(Exception):  # a body already gone
                payloads.append((response.url, response.json()))

    page.on("response", record)
    page.on("request", lambda request: sent.append(request.url.partition("#")[0]))
    refused = csp_refusals(page)
    invite, match_id, row = _create_in_the_lobby(page, web_stack.web_url)
    _claim_and_play_by_clicks(page, output)
    # the seat boards' team colours are styles set by script, under the policy
    assert page.eval_on_selector(".seat-board", "e => e.style.borderColor")
    assert refused == []
    _check_no_secret_left_the_seat(page, web_stack, match_id, payloads, sent)
    _check_the_invite_is_spent(browser, web_stack.web_url, invite, match_id, row)
    context.close()


def test_spectate_live_then_replay_to_the_final_view(
    web_stack: StackConfig, browser: Any, output: Path
) -> None:
    created = api(
        web_stack,
        "/api/matches",
        {
            "lineup": "A=marquise,eyrie;B=marquise,alliance",
            "max_rounds": 1,
            "bots": ["B1", "A2", "B2"],
        },
    )
    match_id = created["match_id"]
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    refused = csp_refusals(page)
    page.goto(f"{web_stack.web_url}match?match={match_id}")
    page.wait_for_selector("#board .clearing")
    # A1 is played here, through the gateway, so the bots play in bursts between its moves
    code = created["invites"][0]["invite_code"]
    token = api(web_stack, f"/api/matches/{match_id}/claim", {"invite_code": code})["token"]
    seen = 0
    while True:
        view = api(web_stack, f"/api/matches/{match_id}/view")["view"]
        served = int(view["version"])
        if served > seen:
            # the page shows every new version within a second of the server having it
            page.wait_for_function(
                "v => { const t = document.querySelector('#version').textContent;"
                " const m = /version (\\d+)/.exec(t); return m && Number(m[1]) >= v; }",
                arg=served,
                timeout=1000,
            )
            seen = served
            if seen > 20 and not (output / "1-spectate.png").exists():
                shoot(page, output, "1-spectate")
        if view["winner"]:
            break
        legal = seat_api(web_stack, f"/api/matches/{match_id}/legal", token)["commands"]
        if legal:
            ends = [c for c in legal if c["label"].lower().startswith("end")]
            chosen = (ends or legal)[0]["id"]
            with contextlib.suppress(urllib.error.HTTPError):  # moved on meanwhile: look again
                seat_api(
                    web_stack,
                    f"/api/matches/{match_id}/commands",
                    token,
                    {"legal_id": chosen, "expected_version": served},
                )
        else:
            time.sleep(0.05)
    wait_for_winner(page, 10)
    final_text = page.text_content("#text-view")
    assert final_text and "winner" in final_text
    assert page.query_selector_all("#log li"), "the log shows the match in words"
    shoot(page, output, "2-spectate-over")
    assert refused == []
    # replay: the scrubber's last step equals the final view; a deep link shows the same
    page.click("#first")
    assert "version=0" in page.url
    first_text = page.text_content("#text-view")
    assert first_text != final_text
    page.click("#last")
    assert page.text_content("#text-view") == final_text
    last_url = page.url
    assert f"version={seen}" in last_url
    page.goto(last_url)
    page.wait_for_selector("#board .clearing")
    # the whole history has arrived (the deep link shows its step while it streams in); a
    # predicate is a function, as the page's CSP refuses the eval Playwright polls a bare
    # expression with
    shown = f"version {seen} of {seen}"
    page.wait_for_function(
        "v => document.querySelector('#version').textContent.includes(v)", arg=shown
    )
    assert page.text_content("#text-view") == final_text
    page.click("#prev")
    assert page.text_content("#text-view") != final_text or "version=" in page.url
    shoot(page, output, "3-replay")
    page.close()


def test_the_host_gives_a_seat_to_a_bot_the_player_sees_the_clock_the_host_abandons(
    web_stack: StackConfig, browser: Any
) -> None:
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.goto(web_stack.web_url)
    page.fill("#budget", "60")
    page.fill("#reserve", "30")
    page.uncheck("#bot-B1")  # A1 and B1 open
    page.click("#create-button")
    match_id = str(page.get_attribute("#watch-link", "href")).partition("match=")[2]
    row = f"tr[data-match='{match_id}']"
    page.click(f"{row} .seat[data-seat=B1] button.host-bot")
    page.wait_for_selector(f"{row} .seat[data-seat=B1][data-status=bot]")
    page.click("a.seat-link[data-seat=A1]")
    page.click("#claim-myself")  # the creator's own invite: it confirms it plays the seat
    page.wait_for_selector("#act button")
    # the seat's own clock: at most budget + reserve left, counting down
    page.wait_for_function(
        "() => document.querySelector('#clock-left').textContent.includes('s left')"
    )
    left = float(page.inner_text("#clock-left").split("time: ")[1].split("s")[0])
    assert 0 < left <= 90
    page.goto(web_stack.web_url)
    page.click(f"{row} button.host-abandon")
    page.wait_for_function(
        f"() => document.querySelector(\"{row}\").textContent.includes('abandoned')",
        timeout=5000,
    )
    context.close()
