"""A seat's page while its command is on its way: a read of the view or the choices that
started before the command and is answered while it is in flight, or after its reply, must
not replace the choices the command's reply brings.  The page's first events arrive before
its first view, so it always reads the view (and its choices) a second time; the tests hold
that second read and answer it with the version the command is sent at, in the order that
went wrong.  And what a reply that asks a question does to a march asked with one tap."""

from __future__ import annotations

import json
import re
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
)

pytestmark = [pytest.mark.browser, pytest.mark.integration]

VIEW = re.compile(r"/api/matches/[^/]+/view$")
LEGAL = re.compile(r"/api/matches/[^/]+/legal$")
COMMANDS = re.compile(r"/api/matches/[^/]+/commands$")

# the page has had both answers to its view reads (the stale one included)
VIEWS_ANSWERED = (
    "n => performance.getEntriesByType('resource')"
    ".filter(e => /\\/view$/.test(e.name) && e.responseEnd > 0).length >= n"
)
NEXT_TASK = "() => new Promise(r => setTimeout(r, 0))"
# the page has had this many answers to its reads of the choices
LEGAL_ANSWERED = (
    "n => performance.getEntriesByType('resource')"
    ".filter(e => /\\/legal$/.test(e.name) && e.responseEnd > 0).length >= n"
)
# from now on, window.staleShown says whether a choice labelled STALE was ever on show
WATCH_STALE = """() => {
  window.staleShown = false;
  new MutationObserver(() => {
    if (document.querySelector('#act')?.textContent?.includes('STALE')) window.staleShown = true;
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
}"""


def _until(page: Any, done: Any, what: str) -> None:
    """Lets the page run (and its routes be called) until ``done()``; bounded in count."""
    for _ in range(1000):
        if done():
            return
        page.wait_for_timeout(20)
    raise AssertionError(f"the page never {what}")


def test_a_view_read_answered_while_a_march_is_on_its_way_keeps_the_march_going(
    web_stack: StackConfig, browser: Any
) -> None:
    """The tap on a far clearing sends the march's first move; a read of the view for the
    version before it lands meanwhile.  The page reads no choices for that stale view, and the
    second move the tap asked for is still played (or the march says where it stopped)."""
    match_id, token, view, march = ready_to_march(web_stack, seed=12)
    source, most = march["command"]["clearing"], int(march["command"].get("count", 0))
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    views: list[Any] = []
    posts: list[Any] = []
    order: list[str] = []  # requests and the test's own steps, in the order they happened

    def on_view(route: Any) -> None:
        views.append(route)
        if len(views) > 2:  # only the first two are held
            route.continue_()

    def on_command(route: Any) -> None:
        posts.append(route)
        if len(posts) > 1:  # only the first move is held
            route.continue_()

    page.route(VIEW, on_view)
    page.route(COMMANDS, on_command)
    page.on("request", lambda r: order.append(r.url.rsplit("/", 1)[-1]))
    page.goto(f"{web_stack.web_url}play?match={match_id}#seat={token}")
    _until(page, lambda: len(views) >= 1, "read the view")
    page.wait_for_selector("#log li", state="attached")  # events in before the first view
    views[0].continue_()
    page.wait_for_selector("#board .box.target")  # the first view's choices are drawn
    _until(page, lambda: len(views) >= 2, "read the view again")
    stale = views[1].fetch()  # answered now: the version before the march

    to, before = tap_a_far_march(page, source, view)
    _until(page, lambda: len(posts) >= 1, "sent the first move")

    order.append("stale view answered")
    views[1].fulfill(response=stale)
    page.wait_for_function(VIEWS_ANSWERED, arg=2)
    page.evaluate(NEXT_TASK)
    page.evaluate(NEXT_TASK)
    order.append("first move answered")
    posts[0].continue_()

    check_the_march(page, web_stack, match_id, token, to, before + most)
    stale_at = order.index("stale view answered")
    assert "legal" not in order[stale_at : order.index("first move answered")], order
    page.close()


def test_a_read_of_the_choices_answered_after_a_march_is_over_is_dropped(
    web_stack: StackConfig, browser: Any
) -> None:
    """The page's second read of its choices is held while a tap plays both moves of a march,
    then answered with the choices from before the march (marked STALE): the page never shows
    them, reads its view again, and offers what the march left it (the step's end, or an
    Outrage's card to give first)."""
    match_id, token, view, march = ready_to_march(web_stack, seed=12)
    source, most = march["command"]["clearing"], int(march["command"].get("count", 0))
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    views: list[Any] = []
    reads: list[Any] = []

    def on_view(route: Any) -> None:
        views.append(route)
        if len(views) > 1:  # only the first is held, until the first events are in
            route.continue_()

    def on_legal(route: Any) -> None:
        reads.append(route)
        if len(reads) != 2:  # only the second is held
            route.continue_()

    page.route(VIEW, on_view)
    page.route(LEGAL, on_legal)
    page.goto(f"{web_stack.web_url}play?match={match_id}#seat={token}")
    _until(page, lambda: len(views) >= 1, "read the view")
    page.wait_for_selector("#log li", state="attached")  # events in before the first view
    views[0].continue_()
    page.wait_for_selector("#board .box.target")  # the first choices are drawn
    _until(page, lambda: len(reads) >= 2, "read its choices again")
    held = reads[1].fetch()  # answered now: the choices before the march
    stale = json.loads(held.text())
    assert int(stale["version"]) == int(view["version"])
    for c in stale["commands"]:
        c["label"] = f"STALE {c.get('label', '')}"
    page.evaluate(WATCH_STALE)

    to, before = tap_a_far_march(page, source, view)
    after = check_the_march(page, web_stack, match_id, token, to, before + most)
    assert int(after["version"]) > int(view["version"])
    reads[1].fulfill(response=held, body=json.dumps(stale))
    page.wait_for_function(LEGAL_ANSWERED, arg=2)
    page.evaluate(NEXT_TASK)
    page.evaluate(NEXT_TASK)
    ready_to_end_the_step(page)
    assert not page.evaluate("() => window.staleShown"), "the stale choices were shown"
    page.close()


def test_a_march_asked_with_one_tap_stops_where_a_question_comes_first(
    web_stack: StackConfig, browser: Any
) -> None:
    """A march's two moves asked with one tap: when the first move's reply brings a question
    for the seat (an Outrage's card to give, say), the page plays no second move and says
    where the march stopped.  The reply is the server's, with a question added to its
    choices, since the position that asks one mid-march depends on the bots' play."""
    match_id, token, view, march = ready_to_march(web_stack, seed=12)
    source = march["command"]["clearing"]
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    posts: list[str] = []

    def on_command(route: Any) -> None:
        posts.append(route.request.post_data or "")
        reply = route.fetch()
        if len(posts) > 1:
            route.fulfill(response=reply)
            return
        body = json.loads(reply.text())
        question = {
            "id": "question-first",
            "label": "Outrage: give a card",
            "verb": "COMMAND_VERB_DECISION_ANSWER",
            "command": {"kind": "COMMAND_KIND_OUTRAGE", "seat": "SEAT_A1"},
        }
        body["next_legal"] = [question, *body.get("next_legal", [])]
        route.fulfill(response=reply, body=json.dumps(body))

    page.route(COMMANDS, on_command)
    page.goto(f"{web_stack.web_url}play?match={match_id}#seat={token}")
    page.wait_for_function(AT_LEAST, arg=int(view["version"]))
    page.wait_for_selector("#board .box.target")
    tap_a_far_march(page, source, view)
    page.wait_for_selector("#act .act-answers button:not([disabled])")
    done = page.inner_text("#act-done")
    assert "stopped in" in done and "a question comes first" in done, done
    page.evaluate(NEXT_TASK)
    page.evaluate(NEXT_TASK)
    assert len(posts) == 1, "no second move was sent"
    replied = call(web_stack, f"/api/matches/{match_id}/view", token=token)["view"]
    assert replied.get("march_left") == 1  # the server's march goes on from where it stopped
    page.close()
