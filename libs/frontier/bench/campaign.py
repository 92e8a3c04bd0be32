"""A long unattended arena run: ``frontier arena campaign --matches N``.

It starts a local stack with its arena (:class:`frontier.ops.stack.StackConfig` with
``arena=True``), where the built-in entrants stand (``builtins``: random, greedy and search
unless told otherwise, e.g. the halving search in search's place), registers two
outside bots through ``ArenaService.RegisterBot`` (the Node bot and the Python player) and
runs them as real processes (:mod:`.campaign_bots`).  Bots join and leave all through the
run: each leaves cleanly after ``churn_every`` seats and is started again once another
match has been rated (at once when no other bot is present, since the arena needs one
outside bot for a match), and once a bot is killed with SIGKILL while it holds a seat.

The run waits on the arena itself: it polls ``GetArenaStatus`` and ``GetLeaderboard``
(every ``poll_s``; nothing else sleeps) until ``matches`` matches are rated and the churn
has shown itself (every outside bot seen joining and leaving twice, one killed holding a
seat: on a fast machine the matches alone can be rated before that), stops the bots,
waits until no match is in play and then checks that nothing was lost
(:mod:`.campaign_audit`): every match the server created counted once, rated or void with a
reason, every rated match's replay exporting and the leaderboard linking the latest.  The
report has the board with each entrant's ``mu ± 2 sigma``, which of the built-ins'
intervals overlap, the wall time, the matches per minute, the seats taken over and the
bots' joins and leaves as the arena saw them.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import grpc
import nats

from frontier.arena.ratings import Board
from frontier.arena.store import BOARD_KEY
from frontier.ops.stack import Stack, StackConfig
from frontier.runtime.bus import ARENA_BUCKET
from frontier.v1 import arena_pb2, arena_pb2_grpc, match_pb2, match_pb2_grpc

from .campaign_audit import (
    DEFAULT_BUILTINS,
    RATED,
    Audit,
    audit,
    board_rows,
    board_table,
    builtin_overlaps,
    list_matches,
)
from .campaign_bots import NODE_BOT_DIR, node_bot, python_player

CALL_TIMEOUT_S = 30.0
# Once the bots are stopped, their seats in play are taken over and the matches end within
# a minute or two; past this, the run reports the matches still in play.
DRAIN_S = 300.0
# The matches' clock: generous enough for bots on a busy machine, short enough that a
# vanished bot's seat is taken over within about 20 s (5 s, then the 10 s reserve, then 5 s).
CLOCK_ENV = {
    "FRONTIER_ARENA_DECISION_BUDGET_MS": "5000",
    "FRONTIER_ARENA_RESERVE_MS": "10000",
    "FRONTIER_ARENA_STRIKE_LIMIT": "2",
}


@dataclass
class CampaignConfig:
    matches: int = 200  # rated matches to wait for
    max_rounds: int = 0  # rounds per match (0: the whole game)
    seed: int = 0  # the arena's seed (schedule and deals)
    churn_every: int = 10  # seats a bot plays before it leaves
    capacity: int = 2  # matches each outside bot plays at once (a team's 3 seats each)
    in_play: int = 2  # matches the arena plays at once
    poll_s: float = 1.0
    timeout_s: float = 0.0  # give up after this long (0: never)
    workdir: Path | None = None
    builtins: tuple[str, ...] = DEFAULT_BUILTINS  # the server's bots standing on the board


@dataclass
class Churn:
    """Who joined and left, as the arena's status showed it, and the kill."""

    joins: dict[str, int] = field(default_factory=dict)  # bot name -> times it appeared
    leaves: dict[str, int] = field(default_factory=dict)  # bot name -> times it went
    killed_bot: str = ""
    killed_matches: list[str] = field(default_factory=list)  # the seats it held then
    killed_seat_missed: bool = False  # whose seat then missed a deadline (else: nothing left)

    def shown(self, names: Iterable[str]) -> bool:
        """The churn the run promises has happened: every bot of ``names`` seen joining and
        leaving at least twice, and one bot killed."""
        return bool(self.killed_bot) and all(
            self.joins.get(name, 0) >= 2 and self.leaves.get(name, 0) >= 2 for name in names
        )


@dataclass
class CampaignReport:
    config: dict[str, Any]
    wall_s: float
    matches_per_minute: float
    audit: Audit
    churn: Churn
    processes: dict[str, dict[str, int]]
    board: list[dict[str, object]]
    overlaps: dict[str, bool]
    table: list[str]
    workdir: str

    def to_json(self) -> dict[str, Any]:
        shown = asdict(self)
        shown.pop("table")
        shown["ok"] = self.audit.ok
        return shown

    def lines(self) -> list[str]:
        a = self.audit
        out = [*self.table, ""]
        for pair, overlap in self.overlaps.items():
            out.append(f"{pair}: intervals {'overlap' if overlap else 'apart'}")
        out.append(
            f"{a.rated} rated, {len(a.void)} void of {a.counted} counted "
            f"({a.created} created) in {self.wall_s / 60:.1f} min: "
            f"{self.matches_per_minute:.2f} rated matches per minute"
        )
        out.append(
            f"replays exported: {a.replays_exported}; seats taken over: {a.seats_taken_over}"
        )
        for name in sorted(self.churn.joins):
            out.append(
                f"{name}: joined {self.churn.joins[name]}, left {self.churn.leaves.get(name, 0)}"
            )
        if self.churn.killed_bot:
            killed = ", ".join(self.churn.killed_matches)
            missed = "missed deadlines" if self.churn.killed_seat_missed else "had no decision left"
            out.append(
                f"killed {self.churn.killed_bot} (SIGKILL) holding a seat of {killed}; "
                f"the seat then {missed}"
            )
        out.extend(f"void {m}: {why}" for m, why in sorted(a.void.items()))
        out.extend(f"PROBLEM: {p}" for p in a.problems)
        out.append("all checks hold" if a.ok else f"{len(a.problems)} problems")
        out.append(f"logs: {self.workdir}")
        return out


def node_binary() -> str:
    """The node to run the Node bot with; a clear error when it or its packages are missing."""
    found = shutil.which("node")
    if found is None:
        raise FileNotFoundError("node is not installed: the Node bot cannot enter the arena")
    if not (NODE_BOT_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        raise FileNotFoundError(f"{NODE_BOT_DIR} has no node_modules: run `make node-bot`")
    return found


def arena_env(config: CampaignConfig) -> dict[str, str]:
    """The arena's settings for the run: the matches' clock, the built-ins, the seed."""
    return {
        **CLOCK_ENV,
        "FRONTIER_ARENA_BUILTINS": ",".join(config.builtins),
        "FRONTIER_ARENA_MAX_ROUNDS": str(config.max_rounds),
        "FRONTIER_ARENA_SEED": str(config.seed),
        "FRONTIER_ARENA_MAX_MATCHES": str(config.in_play),
    }


def run_campaign(
    config: CampaignConfig, say: Callable[[str], None] = lambda _: None
) -> CampaignReport:
    """Run the whole campaign on a stack of its own and report it."""
    node = node_binary()
    workdir = config.workdir or Path(tempfile.mkdtemp(prefix="frontier-campaign-"))
    workdir.mkdir(parents=True, exist_ok=True)
    stack_config = StackConfig.ephemeral(workdir, arena=True, arena_env=arena_env(config))
    with Stack(stack_config) as stack:
        say(f"stack up in {workdir}")
        return Campaign(config, stack, node, say).run()


class Campaign:
    """One run against a started stack (see the module docstring)."""

    def __init__(
        self, config: CampaignConfig, stack: Stack, node: str, say: Callable[[str], None]
    ) -> None:
        self.config = config
        self.stack = stack
        self.say = say
        address = stack.config.address("arena")
        self.arena = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(address))
        orchestrator = grpc.insecure_channel(stack.config.address("orchestrator"))
        self.matches = match_pb2_grpc.MatchServiceStub(orchestrator)
        self.seen: dict[str, arena_pb2.ArenaMatch] = {}
        self.present: set[str] = set()
        self.churn = Churn()
        self.left_at: dict[str, int] = {}  # bot name -> rated count when its process ended
        self.kill_at = max(1, config.matches // 3)
        workdir = stack.config.workdir
        k, cap = config.churn_every, config.capacity
        node_id, node_key = self._register("node-bot")
        py_id, py_key = self._register("python-player")
        self.bots = [
            node_bot(node, "node-bot", node_id, node_key, address, workdir, cap, k),
            python_player("python-player", py_id, py_key, address, workdir, cap, k),
        ]
        self.names = {b.bot_id: b.name for b in self.bots}
        self.started = time.monotonic()

    def _register(self, name: str) -> tuple[str, str]:
        reply = self.arena.RegisterBot(
            arena_pb2.RegisterBotRequest(name=name, description="arena campaign"),
            timeout=CALL_TIMEOUT_S,
        )
        return reply.bot_id, reply.bot_key

    @property
    def rated(self) -> int:
        return sum(1 for m in self.seen.values() if m.state == RATED)

    def run(self) -> CampaignReport:
        """Play until enough matches are rated (or the time is up), stop the bots, let the
        matches in play end, and check and report.  Out of time, the report says how far it
        got as a problem rather than raising, so an unattended run always leaves its board."""
        late = ""
        try:
            for bot in self.bots:
                bot.start()
            while self.rated < self.config.matches or not self._churn_shown():
                if self._out_of_time(self.config.timeout_s):
                    late = f"out of time: {self.rated} of {self.config.matches} matches rated"
                    if not self._churn_shown():
                        late += "; the churn not yet seen (joins, leaves and the kill)"
                    break
                status = self._poll()
                self._churn(status)
                time.sleep(self.config.poll_s)
            self.say(f"{self.rated} matches rated: stopping the bots")
        finally:
            for bot in self.bots:
                bot.stop()
        stopped = time.monotonic()
        while self._poll().matches_in_play:
            if time.monotonic() - stopped > DRAIN_S:
                late = late or f"matches still in play {DRAIN_S} s after the bots stopped"
                break
            time.sleep(self.config.poll_s)
        report = self._report(time.monotonic() - self.started)
        if late:
            report.audit.problems.insert(0, late)
        return report

    def _churn_shown(self) -> bool:
        return self.churn.shown(b.name for b in self.bots)

    def _out_of_time(self, limit_s: float) -> bool:
        return bool(limit_s) and time.monotonic() - self.started > limit_s

    def _poll(self) -> arena_pb2.GetArenaStatusResponse:
        """Read the board's latest matches and who is present; count joins and leaves."""
        board = self.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(), timeout=CALL_TIMEOUT_S)
        before = self.rated
        for match in board.recent_matches:
            self.seen[match.match_id] = match
        if self.rated != before:
            self.say(f"{self.rated} rated")
        status = self.arena.GetArenaStatus(
            arena_pb2.GetArenaStatusRequest(), timeout=CALL_TIMEOUT_S
        )
        present = {b.bot_id for b in status.bots}
        for bot_id in present - self.present:
            name = self.names.get(bot_id, bot_id)
            self.churn.joins[name] = self.churn.joins.get(name, 0) + 1
        for bot_id in self.present - present:
            name = self.names.get(bot_id, bot_id)
            self.churn.leaves[name] = self.churn.leaves.get(name, 0) + 1
        self.present = present
        return status

    def _churn(self, status: arena_pb2.GetArenaStatusResponse) -> None:
        """Restart bots that left once another match is rated; once, kill a bot that holds
        a seat of a match in play."""
        for bot in self.bots:
            if bot.reap():
                self.left_at[bot.name] = self.rated
                self.say(f"{bot.name} left")
        running = [b for b in self.bots if b.running]
        for bot in self.bots:
            if bot.running:
                continue
            if not running or self.rated > self.left_at.get(bot.name, -1):
                bot.start()
                running.append(bot)
                self.say(f"{bot.name} joins again")
        if self.churn.killed_bot or self.rated < self.kill_at:
            return
        for victim in self.bots:
            held = [
                m.match_id
                for m in status.matches_in_play
                if any(s.bot_id == victim.bot_id for s in m.seats)
            ]
            seated = any(b.bot_id == victim.bot_id and b.seats_in_play for b in status.bots)
            if victim.running and held and seated:
                victim.kill()
                self.left_at[victim.name] = self.rated
                self.churn.killed_bot = victim.name
                self.churn.killed_matches = held
                self.say(f"killed {victim.name} in {', '.join(held)}")
                return

    def _report(self, wall_s: float) -> CampaignReport:
        final = self.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(), timeout=CALL_TIMEOUT_S)
        stored = asyncio.run(read_board(self.stack.config.nats_url))
        server = list_matches(self.matches)
        found = audit(self.seen, stored, final, server, self.matches)
        self._check_kill(found)
        for bot in self.bots:
            found.problems.extend(bot.failures)
        config = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(self.config).items()}
        return CampaignReport(
            config=config,
            wall_s=round(wall_s, 1),
            matches_per_minute=round(found.rated / (wall_s / 60), 3) if wall_s else 0.0,
            audit=found,
            churn=self.churn,
            processes={
                b.name: {"starts": b.starts, "clean_exits": b.clean_exits, "kills": b.kills}
                for b in self.bots
            },
            board=board_rows(final),
            overlaps=builtin_overlaps(final, self.config.builtins),
            table=board_table(final),
            workdir=str(self.stack.config.workdir),
        )

    def _check_kill(self, found: Audit) -> None:
        """The killed bot's matches ended, counted, with its seat marked left if the seat
        missed a deadline afterwards (a seat with no decision left to make missed none)."""
        if not self.churn.killed_bot:
            found.problems.append("no bot was killed mid-match (none held a seat in time)")
            return
        victim = next(b for b in self.bots if b.name == self.churn.killed_bot)
        for match_id in self.churn.killed_matches:
            match = self.seen.get(match_id)
            if match is None:
                found.problems.append(f"match {match_id}, where a bot was killed, never ended")
                continue
            info = self.matches.GetMatchInfo(
                match_pb2.GetMatchInfoRequest(match_id=match_id), timeout=CALL_TIMEOUT_S
            )
            missed = {r.seat for r in info.seat_records if r.strikes or r.taken_over}
            for seat in (s for s in match.seats if s.bot_id == victim.bot_id):
                if seat.seat in missed and not seat.left:
                    found.problems.append(f"match {match_id}: the killed bot is not marked left")
                self.churn.killed_seat_missed = seat.seat in missed


async def read_board(nats_url: str) -> Board:
    """The arena's board as stored in its KV bucket (every counted match's id)."""
    connection = await nats.connect(nats_url)
    try:
        bucket = await connection.jetstream().key_value(ARENA_BUCKET)
        entry = await bucket.get(BOARD_KEY)
        return Board.model_validate_json(entry.value or b"{}")
    finally:
        await connection.close()
