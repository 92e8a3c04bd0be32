"""The built-in bots' CPU seconds count against their match's host key: once the key spent
its hour, its bot seats play the cheapest bot (random) (the slow bot is never asked), and another
key's bots go on as chosen.  The hour is the limits library's window; nothing sleeps."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from frontier.orchestrator.bot_pool import BotPool
from frontier.orchestrator.decisions import Decisions
from frontier.orchestrator.host_keys import HostAccess, Limits
from frontier.runtime.metrics import BOT_CPU_FALLBACKS, HOST_BOT_CPU_SECONDS
from frontier.store.host_keys import HostKeyStore

from .test_bot_thinking import (
    HELD,
    _Commits,
    _HeldBot,
    _wait_for,
    held_bot,  # noqa: F401  (the fixture)
    hosted_match,
)

TINY = Limits(matches_hosted=5, creates_per_minute=5, bot_seats=5, bot_cpu_s_per_hour=0.001)


def setup(commits: _Commits) -> tuple[Decisions, HostAccess]:
    store = HostKeyStore(bucket=None)  # type: ignore[arg-type]  # no lookup happens here
    access = HostAccess("keys", store, TINY)
    bots = BotPool(executor=ThreadPoolExecutor(2))
    decisions = Decisions(commits, lambda hosted: True, lambda: False, bots, access)  # type: ignore[arg-type]
    return decisions, access


async def test_a_bots_cpu_seconds_are_charged_to_its_matchs_key() -> None:
    commits = _Commits()
    decisions, access = setup(commits)
    hosted = hosted_match("e" * 32, "random")
    hosted.host_id = "key-a"
    assert not access.cpu_spent(access.host_of("key-a"))
    decisions.ensure_referee(hosted)
    await _wait_for(commits, hosted.match_id)
    # one decision costs at least a millisecond: this key's tiny hour is spent, no other's
    assert access.cpu_spent(access.host_of("key-a"))
    assert not access.cpu_spent(access.host_of("key-b"))
    decisions.close()


@pytest.mark.usefixtures("held_bot")
async def test_past_the_hours_cpu_the_cheapest_bot_answers() -> None:
    slow = _HeldBot  # the fixture resets its events
    commits = _Commits()
    decisions, access = setup(commits)
    access.charge_cpu(access.host_of("key-a"), 1.0)
    before = BOT_CPU_FALLBACKS._value.get()
    spent = hosted_match("f" * 32, HELD)
    spent.host_id = "key-a"
    decisions.ensure_referee(spent)
    await _wait_for(commits, spent.match_id)
    assert not slow.started.is_set()  # the slow bot was never asked
    assert BOT_CPU_FALLBACKS._value.get() == before + 1
    assert spent.seats.bots == {next(iter(spent.seats.bots)): HELD}  # its seat stays its own
    other = hosted_match("0" * 32, HELD)
    other.host_id = "key-b"
    decisions.ensure_referee(other)
    await asyncio.to_thread(slow.started.wait, 60)  # key-b's bot thinks as chosen
    slow.gate.set()
    await _wait_for(commits, other.match_id)
    decisions.close()


def test_bot_cpu_is_counted_by_key_id_and_every_anonymous_caller_as_one() -> None:
    _, access = setup(_Commits())
    by_key = HOST_BOT_CPU_SECONDS.labels
    before_a, before_anon = by_key(key="key-a")._value.get(), by_key(key="anonymous")._value.get()
    access.charge_cpu(access.host_of("key-a"), 0.25)
    access.charge_cpu(access.host_of("anon:10.0.0.1"), 0.5)
    access.charge_cpu(access.host_of("anon:10.0.0.2"), 0.5)
    assert by_key(key="key-a")._value.get() - before_a == pytest.approx(0.25)
    assert by_key(key="anonymous")._value.get() - before_anon == pytest.approx(1.0)
    # no series per address: an anonymous caller's address never becomes a label
    labels = {s.labels.get("key") for m in HOST_BOT_CPU_SECONDS.collect() for s in m.samples}
    assert not any(str(label).startswith("anon:") for label in labels)
