"""The outside bots of an arena campaign (:mod:`frontier.bench.campaign`): the Node bot and
the Python player, each a real process that dials in to the arena with its bot key.

Each runs with ``--seats K``: after K seats it tells the arena it is leaving (``SeatDone``
with ``leaving``), half-closes its stream and exits 0, which is how a bot leaves cleanly.
The campaign starts it again later, so bots join and leave all through the run.  Once, a
bot is killed with SIGKILL while it holds a seat, as a crashed bot would vanish: the arena
must record that seat as left and still end (and rate) the match.

The bot key reaches the process through the environment (the Node bot) or a file (the
Python player), never its command line.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import frontier

NODE_BOT_DIR = Path(frontier.__file__).resolve().parents[2] / "bots" / "node"
STOP_GRACE_S = 10.0  # how long a stopped bot gets to exit before it is killed


@dataclass
class BotEntrant:
    """One outside bot: how to run it, its process while it runs, and what it did."""

    name: str
    bot_id: str
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0  # processes started (each one enters the arena)
    clean_exits: int = 0  # processes that left after their seats and exited 0
    kills: int = 0  # processes killed with SIGKILL mid-match
    failures: list[str] = field(default_factory=list)  # exits that were neither

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start a process of this bot (appending to its log)."""
        log = open(self.log_path, "ab")  # noqa: SIM115 - the process owns it
        self.proc = subprocess.Popen(
            self.argv,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **self.env},
            start_new_session=True,
        )
        log.close()
        self.starts += 1

    def reap(self) -> bool:
        """If the process has exited, record how (a clean leave, or a failure) and forget
        it; True when it had exited."""
        if self.proc is None or self.proc.poll() is None:
            return False
        code = self.proc.returncode
        if code == 0:
            self.clean_exits += 1
        elif code != -signal.SIGKILL and code != -signal.SIGTERM:
            self.failures.append(f"{self.name} exited with status {code}; see {self.log_path}")
        self.proc = None
        return True

    def kill(self) -> None:
        """SIGKILL the process: the bot vanishes, streams and all, as a crash would."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.kills += 1
        self.proc = None

    def stop(self) -> None:
        """SIGTERM the process (SIGKILL after a grace period) at the end of the run."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.reap()


def python_player(
    name: str, bot_id: str, key: str, arena: str, workdir: Path, capacity: int, seats: int
) -> BotEntrant:
    """The Python player (``python -m frontier.arena.player``, the greedy strategy)."""
    key_file = workdir / f"{name}.key"
    key_file.write_text(key)
    key_file.chmod(0o600)
    argv = [sys.executable, "-m", "frontier.arena.player", "--arena", arena]
    argv += ["--key-file", str(key_file), "--capacity", str(capacity), "--seats", str(seats)]
    argv += ["--kind", "greedy"]
    return BotEntrant(name, bot_id, argv, {}, workdir / f"{name}.log")


def node_bot(
    node: str,
    name: str,
    bot_id: str,
    key: str,
    arena: str,
    workdir: Path,
    capacity: int,
    seats: int,
) -> BotEntrant:
    """The Node bot (``node bots/node/bot.js --arena``, its planner policy)."""
    argv = [node, str(NODE_BOT_DIR / "bot.js"), "--arena", arena, "--capacity", str(capacity)]
    argv += ["--seats", str(seats), "--policy", "planner"]
    return BotEntrant(name, bot_id, argv, {"FRONTIER_BOT_KEY": key}, workdir / f"{name}.log")
