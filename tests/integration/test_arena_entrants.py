"""Bots of two runtimes in the arena, next to the server's built-in entrants: the Node bot
(bots/node, ``--arena``) and the Python player (``python -m frontier.arena.player``), each
a process of its own, enter a stack started with its arena (``StackConfig(arena=True)``)
where ``random``, ``greedy`` and ``search`` (its fixed iteration budget) stand.

Matches are one round long and each bot leaves after a bounded number of seats, so the test
ends in a bounded time; the waits wait for events (a process exiting, the arena having no
match in play), with a deadline only as a guard.  Without node the test is skipped and says
why, as the Node bot's own test is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from frontier.bench.campaign_bots import NODE_BOT_DIR
from frontier.ops.stack import Stack, StackConfig
from frontier.v1 import arena_pb2, arena_pb2_grpc, types_pb2

pytestmark = pytest.mark.integration

GUARD_S = 240.0  # a hung arena fails the test instead of hanging the suite
MATCHES_EACH = 2
SEATS_EACH = 3 * MATCHES_EACH  # a bot plays its team's three seats in each match
BUILTINS = ("random", "greedy", "search")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    config = StackConfig.ephemeral(
        tmp_path_factory.mktemp("entrants"),
        arena=True,
        log_level="INFO",
        arena_env={
            "FRONTIER_ARENA_BUILTINS": ",".join(BUILTINS),
            "FRONTIER_ARENA_MAX_ROUNDS": "1",
            "FRONTIER_ARENA_SEED": "11",
            # a seat assigned as its bot leaves is struck after 2 s and taken over at once
            "FRONTIER_ARENA_DECISION_BUDGET_MS": "1000",
            "FRONTIER_ARENA_RESERVE_MS": "1000",
            "FRONTIER_ARENA_STRIKE_LIMIT": "1",
        },
    )
    with Stack(config) as running:
        yield running


def wait_for(what: str, check: Callable[[], bool]) -> None:
    """Poll ``check`` until it holds (the guard deadline only stops a hung arena)."""
    deadline = time.monotonic() + GUARD_S
    while not check():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.5)


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        text = reply.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def arena_stub(stack: Stack) -> arena_pb2_grpc.ArenaServiceStub:
    return arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(stack.config.address("arena")))


def node_bot_process(node: str, stack: Stack, key: str, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [node, str(NODE_BOT_DIR / "bot.js"), "--arena", stack.config.address("arena"), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "FRONTIER_BOT_KEY": key},  # never on the command line
    )


def test_the_node_bot_and_the_python_player_are_rated_next_to_the_builtins(
    node: str, stack: Stack
) -> None:
    config = stack.config
    address = config.address("arena")
    stub = arena_stub(stack)
    node_bot, python_bot = (
        stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name), timeout=10)
        for name in ("node-bot", "python-bot")
    )
    key_file = config.workdir / "python-bot.key"
    key_file.write_text(python_bot.bot_key)
    python_log = open(config.workdir / "python-bot.log", "wb")  # noqa: SIM115 - the process owns it
    player = [sys.executable, "-m", "frontier.arena.player", "--arena", address]
    python_proc = subprocess.Popen(
        [*player, "--key-file", str(key_file), "--seats", str(SEATS_EACH), "--kind", "greedy"],
        stdout=python_log,
        stderr=subprocess.STDOUT,
    )
    python_log.close()
    node_proc = node_bot_process(node, stack, node_bot.bot_key, "--seats", str(SEATS_EACH))
    out, err = node_proc.communicate(timeout=GUARD_S)
    assert node_proc.returncode == 0, err[-2000:]
    assert python_proc.wait(GUARD_S) == 0, (config.workdir / "python-bot.log").read_text()[-2000:]
    assert node_bot.bot_key not in out + err  # the key is a secret

    def settled() -> bool:
        status = stub.GetArenaStatus(arena_pb2.GetArenaStatusRequest(), timeout=10)
        return not status.matches_in_play

    wait_for("the matches in play to end", settled)
    board = stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(), timeout=10)
    by_id = {e.bot_id: e for e in board.entries}
    outside = (node_bot.bot_id, python_bot.bot_id)
    for bot_id in outside:
        assert by_id[bot_id].matches_played >= MATCHES_EACH
    # team against team: each match has two entrants, three seats each, and the outside bots
    # met the built-ins
    theirs = [m for m in board.recent_matches if {s.bot_id for s in m.seats} & set(outside)]
    met: set[str] = set()
    for match in theirs:
        teams = {
            team: {s.bot_id for s in match.seats if types_pb2.Seat.Name(s.seat)[5] == team}
            for team in "AB"
        }
        assert all(len(ids) == 1 for ids in teams.values()), match
        met |= teams["A"] | teams["B"]
    assert met & {f"builtin:{b}" for b in BUILTINS}

    # every seat the Node bot reported it played itself, through BotService, to the end
    seats = [json.loads(line) for line in out.splitlines()]
    assert len(seats) == SEATS_EACH
    matches = {m.match_id: m for m in board.recent_matches}
    for seat in seats:
        assert seat["decisions"] > 0 and seat["answers"] > 0
        assert not seat["taken_over"] and seat["strikes"] == 0
        match = matches[seat["match_id"]]
        assert match.state == arena_pb2.ARENA_MATCH_STATE_RATED
        (played,) = (
            s for s in match.seats if s.seat == types_pb2.Seat.Value(f"SEAT_{seat['seat']}")
        )
        assert played.bot_id == node_bot.bot_id
        assert not played.left and seat["winner"] == match.winner

    metrics = scrape(config.metrics_url("arena"))
    rated = metrics[("frontier_arena_matches_ended_total", (("outcome", "rated"),))]
    assert rated >= MATCHES_EACH
    assert metrics[("frontier_arena_matches_started_total", ())] >= rated
    # a rated match rates its two entrants
    assert metrics[("frontier_arena_rating_updates_total", ())] == 2 * rated
    assert metrics[("frontier_arena_enters_total", (("result", "welcomed"),))] >= 2
    assert metrics[("frontier_arena_matches_in_play", ())] == 0


def test_the_node_bot_enters_again_after_the_arena_restarts(node: str, stack: Stack) -> None:
    bot = arena_stub(stack).RegisterBot(arena_pb2.RegisterBotRequest(name="phoenix"), timeout=10)

    def present() -> bool:
        status = arena_stub(stack).GetArenaStatus(arena_pb2.GetArenaStatusRequest(), timeout=10)
        return any(b.bot_id == bot.bot_id and b.capacity == 2 for b in status.bots)

    proc = node_bot_process(node, stack, bot.bot_key, "--capacity", "2")
    try:
        wait_for("the bot to enter", present)
        stack.kill("arena")
        stack.restart("arena")
        wait_for("the bot to enter again", present)
        assert proc.poll() is None
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert err.count("entered the arena as phoenix") == 2
    assert bot.bot_key not in err
    wait_for(
        "its matches to end",
        lambda: (
            not arena_stub(stack)
            .GetArenaStatus(arena_pb2.GetArenaStatusRequest(), timeout=10)
            .matches_in_play
        ),
    )


def test_a_refused_key_ends_the_node_bot_with_the_reason(node: str, stack: Stack) -> None:
    key = "fb_000000000000_" + "x" * 32
    proc = node_bot_process(node, stack, key)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    refusal = json.loads(err.splitlines()[0])["error"]
    assert (refusal["code"], refusal["reason"]) == ("PERMISSION_DENIED", "UNKNOWN_BOT_KEY")
    assert key not in err
