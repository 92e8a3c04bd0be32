"""The bot under test, started for one seat of one match: a command line or a Python bot.

A command line runs as its own process, as it would in a real match: it gets the seat token
in ``$FRONTIER_BOT_TOKEN`` (and in a file, ``{token_file}``), never on its command line,
where every user of the machine could read it (see ``frontier bot``).  Its arguments may
name ``{url}``, ``{match}``, ``{seat}`` and ``{token_file}``; a command naming none of them
gets ``--url URL --match ID --seat SEAT`` appended, the arguments ``frontier bot`` and the
Node bot (bots/node/bot.js) both take.  The same facts are in ``$FRONTIER_URL``,
``$FRONTIER_MATCH_ID`` and ``$FRONTIER_SEAT``.

A Python bot -- an object with ``choose(decision) -> legal id`` (the SDK's Strategy), a
class of such objects, or a plain function of the decision -- plays through the SDK's
:class:`~frontier.bots.sdk.BotClient` in a thread of this process: the same protocol, no
process to start.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from frontier.bots.sdk import BotClient, Decision, Strategy
from frontier.engine import Seat

PLACEHOLDERS = ("{url}", "{match}", "{seat}", "{token_file}")
STOP_GRACE_S = 5.0

# what ``play_with`` and ``check_bot`` accept as the bot
BotSpec = str | Strategy | type | Callable[[Decision], str]


class Player(Protocol):
    """A bot playing one seat until the match ends."""

    log: Path | None  # where its output went (a process's stdout and stderr)
    error: str  # why a Python bot failed ("" for a command line: its log says)

    def wait(self, timeout_s: float) -> int | None:
        """Its exit status once it ends (0: played to the end), None if still running."""
        ...

    def stop(self) -> None:
        """End it (it overran the time limit, or the match ended without it)."""
        ...


class CommandPlayer:
    """A bot command line, as a process of its own (its own process group)."""

    def __init__(
        self, command: str, url: str, match_id: str, seat: Seat, token: str, workdir: Path
    ) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        token_file = workdir / f"{match_id}-{seat.value}.token"
        token_file.touch(mode=0o600)
        token_file.write_text(token, encoding="utf-8")
        self.log: Path | None = workdir / f"{match_id}-{seat.value}.log"
        self.error = ""
        values = {
            "{url}": url,
            "{match}": match_id,
            "{seat}": seat.value,
            "{token_file}": str(token_file),
        }
        argv = shlex.split(command)
        if not argv:
            raise ValueError("the bot command is empty")
        if not any(p in arg for arg in argv for p in PLACEHOLDERS):
            argv += ["--url", url, "--match", match_id, "--seat", seat.value]
        argv = [_substitute(arg, values) for arg in argv]
        env = {
            **os.environ,
            "FRONTIER_BOT_TOKEN": token,
            "FRONTIER_URL": url,
            "FRONTIER_MATCH_ID": match_id,
            "FRONTIER_SEAT": seat.value,
        }
        with open(workdir / f"{match_id}-{seat.value}.log", "wb") as out:
            try:
                self.proc = subprocess.Popen(
                    argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
                )
            except OSError as exc:
                raise ValueError(f"cannot start the bot {argv[0]!r}: {exc.strerror}") from None

    def wait(self, timeout_s: float) -> int | None:
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.poll() is not None:
                return
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(STOP_GRACE_S)


class PythonPlayer:
    """A Python bot, played through the SDK in a thread; exit status 1 if it raised."""

    def __init__(self, bot: BotSpec, url: str, match_id: str, seat: Seat, token: str) -> None:
        self.log: Path | None = None
        self.error = ""
        self.status: int | None = None
        strategy = as_strategy(bot)
        client = BotClient(url, match_id, token, seat=seat)

        def run() -> None:
            try:
                asyncio.run(client.play(strategy))
                self.status = 0
            except Exception as exc:  # the bot's own failure: reported, never raised here
                self.error = f"{type(exc).__name__}: {exc}"
                self.status = 1

        self.thread = threading.Thread(target=run, name=f"bot-{seat.value}", daemon=True)
        self.thread.start()

    def wait(self, timeout_s: float) -> int | None:
        self.thread.join(timeout_s)
        return None if self.thread.is_alive() else self.status

    def stop(self) -> None:
        # a thread cannot be killed: it ends when the server ends the match (MatchOver),
        # which the caller makes sure of by abandoning an unfinished match first
        self.thread.join(STOP_GRACE_S)


class _Function:
    """A plain function of the decision, as a Strategy."""

    def __init__(self, choose: Callable[[Decision], str]) -> None:
        self.choose = choose


def as_strategy(bot: BotSpec) -> Strategy:
    """An SDK strategy from a strategy, a strategy class or a function of the decision."""
    if isinstance(bot, type):
        made = bot()
        if not callable(getattr(made, "choose", None)):
            raise TypeError(f"{bot.__name__} has no choose(decision) method")
        return made  # type: ignore[no-any-return]
    if callable(getattr(bot, "choose", None)):
        return bot  # type: ignore[return-value]
    if callable(bot):
        return _Function(bot)
    raise TypeError(f"not a bot: {bot!r} (a command line, a strategy or a function)")


def start_player(
    bot: BotSpec, url: str, match_id: str, seat: Seat, token: str, workdir: Path
) -> Player:
    """Start ``bot`` on ``seat``: a string is a command line, anything else a Python bot."""
    if isinstance(bot, str):
        return CommandPlayer(bot, url, match_id, seat, token, workdir)
    return PythonPlayer(bot, url, match_id, seat, token)


def _substitute(arg: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        arg = arg.replace(key, value)
    return arg
