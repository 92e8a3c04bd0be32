"""Time to first board: how long a seat's page and a spectator's page take, in a real Chromium
against a real stack, from the start of the navigation to the board's first drawing (the
client's ``frontier:first-board`` Performance API mark), and how many bytes they fetched
until then.  Each load is a first visit (a fresh browser context: no cache, no storage).

The numbers are printed (run with ``-s``), never asserted: they depend on the machine.  The
test checks that every load reaches the mark and drew the board."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import pytest

from frontier.ops.stack import StackConfig
from tests.browser.gateway import seeded_match

pytestmark = [pytest.mark.browser, pytest.mark.integration]

LOADS = 5
MARK = "frontier:first-board"
# What the page fetched until the mark: the document and every resource whose response had
# ended by then (the event stream, still open, counts for its headers once it has them).
# A function, as the page's policy refuses the eval Playwright gives a bare expression.
MEASURE = """mark => {
  const at = performance.getEntriesByName(mark, 'mark')[0];
  if (!at) return null;
  const nav = performance.getEntriesByType('navigation')[0];
  const loaded = performance.getEntriesByType('resource')
    .filter((r) => r.responseEnd <= at.startTime);
  return {
    ms: at.startTime,
    bytes: nav.transferSize + loaded.reduce((sum, r) => sum + r.transferSize, 0),
    requests: 1 + loaded.length,
  };
}"""


@dataclass(frozen=True)
class Load:
    ms: float  # from the navigation's start to the first drawing of the board
    bytes: int  # transferred until then (compressed sizes, headers included)
    requests: int


def first_board(browser: Any, url: str) -> Load:
    """One first visit of ``url``: its time to first board and what it fetched until then."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url, wait_until="commit")
        page.wait_for_selector("#board .clearing", timeout=30_000)
        page.wait_for_function(f"() => performance.getEntriesByName('{MARK}', 'mark').length > 0")
        facts = page.evaluate(MEASURE, MARK)
        assert facts is not None, f"no {MARK} mark on {url}"
        return Load(float(facts["ms"]), int(facts["bytes"]), int(facts["requests"]))
    finally:
        context.close()


def report(name: str, loads: list[Load]) -> str:
    """One line: the median time and bytes of the loads, and their range."""
    times = sorted(load.ms for load in loads)
    return (
        f"{name}: time to first board median {statistics.median(times):.0f} ms "
        f"(min {times[0]:.0f}, max {times[-1]:.0f}, {len(loads)} first visits); "
        f"{statistics.median(load.bytes for load in loads) / 1024:.1f} KiB in "
        f"{statistics.median(load.requests for load in loads):.0f} requests"
    )


def test_time_to_first_board_of_a_seat_and_a_spectator(
    web_stack: StackConfig, browser: Any
) -> None:
    match_id, token = seeded_match(web_stack, rounds=2, seed=11)
    base = web_stack.web_url.rstrip("/")
    pages = {
        "spectator": f"{base}/match?match={match_id}",
        # a seat link, as a player opens it on a new device
        "seat": f"{base}/play?match={match_id}#seat={token}",
    }
    lines = []
    for name, url in pages.items():
        loads = [first_board(browser, url) for _ in range(LOADS)]
        assert all(load.ms > 0 and load.bytes > 0 for load in loads)
        lines.append(report(name, loads))
    print("\n" + "\n".join(lines))
