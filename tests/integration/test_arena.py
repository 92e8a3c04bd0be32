"""The arena on a real stack: nats-server, every service, the arena process, and outside
bots as processes of their own (``python -m frontier.arena.player``) that register, enter,
and play their assigned seats through BotService against the server's built-in bots.

Matches are one round long (FRONTIER_ARENA_MAX_ROUNDS=1) and the players stop after a
bounded number of seats, so the module ends in a bounded time; the waits below wait for
events (a process exiting, the board listing a match), with a deadline only as a guard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from frontier.bots.sdk import error_details
from frontier.cli.main import main
from frontier.ops.stack import Stack, StackConfig, free_port
from frontier.v1 import arena_pb2, arena_pb2_grpc

pytestmark = pytest.mark.integration

GUARD_S = 240.0  # a hung arena fails the test instead of hanging the suite
MATCHES_EACH = 2  # each bot plays its team's three seats in each


@dataclass
class ArenaStack:
    stack: Stack
    address: str
    workdir: Path
    env: dict[str, str]

    def start(self) -> None:
        self.stack._spawn("arena", [sys.executable, "-m", "services.arena"], self.env)
        self.stack.wait_serving("arena")

    def stop(self) -> None:
        proc = self.stack.procs.pop("arena")
        proc.terminate()
        assert proc.wait(30) == 0  # a clean stop on SIGTERM

    def stub(self) -> arena_pb2_grpc.ArenaServiceStub:
        return arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(self.address))

    def player(self, name: str, key: str, *flags: str) -> subprocess.Popen[bytes]:
        key_file = self.workdir / f"{name}.key"
        key_file.write_text(key)
        log = open(self.workdir / f"{name}.log", "wb")  # noqa: SIM115 - the process owns it
        argv = [sys.executable, "-m", "frontier.arena.player", "--arena", self.address]
        argv += ["--key-file", str(key_file), *flags]
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        return proc


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaStack]:
    workdir = tmp_path_factory.mktemp("arena")
    config = StackConfig.ephemeral(workdir, sync="always")
    with Stack(config) as stack:
        port = free_port()
        config.ports["arena"] = port
        env = {
            **os.environ,
            "FRONTIER_HOST": config.host,
            "FRONTIER_PORT": str(port),
            "FRONTIER_METRICS_PORT": "0",
            "FRONTIER_NATS_URL": config.nats_url,
            "FRONTIER_ORCHESTRATOR_URL": config.address("orchestrator"),
            "FRONTIER_ACCESS": "local",
            "FRONTIER_LOG_LEVEL": "INFO",
            "FRONTIER_ARENA_BUILTINS": "random,greedy",
            "FRONTIER_ARENA_MAX_ROUNDS": "1",
            "FRONTIER_ARENA_SEED": "7",
            # a bot that leaves is struck after 2 s and taken over at its first strike
            "FRONTIER_ARENA_DECISION_BUDGET_MS": "1000",
            "FRONTIER_ARENA_RESERVE_MS": "1000",
            "FRONTIER_ARENA_STRIKE_LIMIT": "1",
        }
        running = ArenaStack(stack, config.address("arena"), workdir, env)
        running.start()
        yield running


def register(stub: arena_pb2_grpc.ArenaServiceStub, name: str) -> arena_pb2.RegisterBotResponse:
    reply: arena_pb2.RegisterBotResponse = stub.RegisterBot(
        arena_pb2.RegisterBotRequest(name=name, description="a test bot"), timeout=10
    )
    return reply


def wait_for(what: str, check: Callable[[], bool]) -> None:
    """Poll ``check`` until it holds (the guard deadline only stops a hung arena)."""
    deadline = time.monotonic() + GUARD_S
    while not check():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.5)


def settled(stub: arena_pb2_grpc.ArenaServiceStub) -> bool:
    status = stub.GetArenaStatus(arena_pb2.GetArenaStatusRequest(), timeout=10)
    return not status.matches_in_play


def test_two_bots_and_the_builtins_are_rated(arena: ArenaStack) -> None:
    stub = arena.stub()
    one, two = register(stub, "alpha"), register(stub, "beta")
    assert one.bot_key.startswith("fb_") and one.bot_id != two.bot_id
    players = [
        arena.player("alpha", one.bot_key, "--seats", str(3 * MATCHES_EACH), "--kind", "greedy"),
        arena.player("beta", two.bot_key, "--seats", str(3 * MATCHES_EACH), "--kind", "random"),
    ]
    for proc in players:
        assert proc.wait(GUARD_S) == 0, (arena.workdir / "alpha.log").read_text()[-2000:]
    wait_for("the matches in play to end", lambda: settled(stub))
    board = stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(), timeout=10)
    by_id = {e.bot_id: e for e in board.entries}
    for bot in (one, two):
        entry = by_id[bot.bot_id]
        assert entry.matches_played >= MATCHES_EACH
        assert entry.rating.sigma < 25 / 3  # the uncertainty shrank from openskill's start
        assert not entry.ranked  # fewer than the 10 matches a rank needs
        assert entry.factions
    assert by_id["builtin:random"].builtin and by_id["builtin:greedy"].matches_played >= 1
    rated = [m for m in board.recent_matches if m.state == arena_pb2.ARENA_MATCH_STATE_RATED]
    assert len(rated) >= MATCHES_EACH
    for match in rated:
        assert match.winner in {"A", "B", "draw"} and len(match.seats) == 6
    assert board.ranked_after == 10
    # a restart keeps the board: it is on NATS, not in the arena's memory
    arena.stop()
    arena.start()
    assert arena.stub().GetLeaderboard(arena_pb2.GetLeaderboardRequest(), timeout=10) == board


def test_a_bot_that_leaves_mid_match_is_recorded_and_the_match_finished(
    arena: ArenaStack,
) -> None:
    stub = arena.stub()
    bot = register(stub, "quitter")
    proc = arena.player("quitter", bot.bot_key, "--leave-after-decisions", "2")
    assert proc.wait(GUARD_S) == 3  # it vanished at its second decision

    def recorded() -> bool:
        board = stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(), timeout=10)
        return any(
            seat.bot_id == bot.bot_id and seat.left
            for match in board.recent_matches
            for seat in match.seats
        )

    wait_for("the left match on the board", recorded)
    board = stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(), timeout=10)
    match = next(m for m in board.recent_matches if any(s.bot_id == bot.bot_id for s in m.seats))
    assert match.state == arena_pb2.ARENA_MATCH_STATE_RATED  # the takeover finished it
    entry = next(e for e in board.entries if e.bot_id == bot.bot_id)
    assert entry.matches_left == 1 and entry.matches_played == 1


def test_bad_registrations_and_entries_are_refused(arena: ArenaStack) -> None:
    stub = arena.stub()
    with pytest.raises(grpc.RpcError) as bad_name:
        register(stub, "no spaces allowed")
    assert error_details(bad_name.value).reason == "INVALID_BOT_NAME"
    register(stub, "gamma")
    with pytest.raises(grpc.RpcError) as taken:
        register(stub, "GAMMA")
    assert taken.value.code() is grpc.StatusCode.ALREADY_EXISTS
    assert error_details(taken.value).reason == "BOT_NAME_TAKEN"
    hello = arena_pb2.EnterHello(bot_key="fb_000000000000_" + "x" * 32, capacity=1)
    with pytest.raises(grpc.RpcError) as unknown:
        list(stub.Enter(iter([arena_pb2.EnterRequest(hello=hello)]), timeout=10))
    assert unknown.value.code() is grpc.StatusCode.PERMISSION_DENIED
    assert error_details(unknown.value).reason == "UNKNOWN_BOT_KEY"


def test_the_command_line_registers_and_reads_the_board(
    arena: ArenaStack, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--url", arena.address]
    assert main(["arena", "register", "--name", "delta", "--json", *url]) == 0
    registered = json.loads(capsys.readouterr().out)
    assert registered["bot_key"].startswith("fb_")
    assert main(["arena", "leaderboard", "--json", *url]) == 0
    board = json.loads(capsys.readouterr().out)
    assert board["ranked_after"] == 10
    assert main(["arena", "leaderboard", *url]) == 0
    table = capsys.readouterr().out
    assert "ordinal" in table and "recent matches:" in table
    assert main(["arena", "status", *url]) == 0
    assert "bots present" in capsys.readouterr().out
    assert main(["arena", "register", "--name", "delta", *url]) == 1
    assert "BOT_NAME_TAKEN" in capsys.readouterr().err


def test_a_player_enters_again_after_the_arena_restarts(arena: ArenaStack) -> None:
    stub = arena.stub()
    bot = register(stub, "phoenix")

    def present() -> bool:
        status = arena.stub().GetArenaStatus(arena_pb2.GetArenaStatusRequest(), timeout=10)
        return any(b.bot_id == bot.bot_id for b in status.bots)

    proc = arena.player("phoenix", bot.bot_key, "--capacity", "1")
    try:
        wait_for("the bot to enter", present)
        arena.stop()
        arena.start()
        wait_for("the bot to enter again", present)
    finally:
        proc.terminate()
        proc.wait(30)
    wait_for("its matches to end", lambda: settled(arena.stub()))
