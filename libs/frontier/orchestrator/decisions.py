"""The open decision and who answers it: the seat's bot, or the referee on its behalf.

A match waits on one seat at a time (``to_act``).  The seat answers through MatchService or
its bot stream (:meth:`Decisions.answer_decision`), unless the server answers for it: a standing
answer covering the decision's kind, the built-in bot once the seat is taken over, or the
default command when the deadline passes.  Those automatic answers come from the match's
*referee*, one asyncio task per match that needs one (a clock, standing answers or a
takeover), and go through the same commit path as every other command, with a command id
derived from the decision (``timeout:<seat>:<version>``...), so a retried answer is the
same command and nothing depends on the referee's memory.

A built-in bot thinks for a while (the search bot tens to hundreds of milliseconds), so it
thinks in a worker thread of a bounded pool (``FRONTIER_BOT_THREADS``), holding neither the
event loop nor the match's lock: the server goes on answering every other call and match
meanwhile.  The bot reads the match's state object of that moment, which nothing changes
afterwards (a commit replaces the match's state with a new object, never edits it), and its
choice is committed only if, under the lock again, the match still waits on the same seat at
the same version and the built-in bot still answers it; otherwise it is discarded and the
referee looks again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from frontier.bots import default_command, make_bot
from frontier.bots.standing import choose
from frontier.engine import Command, Seat, State, to_act
from frontier.runtime.errors import ServiceError
from frontier.runtime.failure_log import FailureLog

from . import referee
from .checks import resolve
from .commit import CommitPath
from .hosted_match import HostedMatch
from .referee import AnsweredBy
from .seat_records import Rejection

log = logging.getLogger("frontier.orchestrator")

# How long the referee waits before retrying an automatic answer that failed (a domain
# service down, NATS unreachable): it doubles up to the maximum, and resets on success.
RETRY_FIRST_S = 0.1
RETRY_MAX_S = 2.0

DEFAULT_BOT_THREADS = 2  # worker threads the built-in bots think in (FRONTIER_BOT_THREADS)

_KIND = {
    referee.TIMEOUT: "timeout",
    referee.STANDING_ANSWER: "standing",
    referee.BUILT_IN_BOT: "bot",
}


def automatic(hosted: HostedMatch, seat: Seat) -> AnsweredBy | None:
    """Who answers ``seat``'s open decision without waiting for its client, if anyone."""
    if hosted.clock_of(seat).taken_over or seat.value in hosted.seats.bots:
        return referee.BUILT_IN_BOT
    state = hosted.state
    pending = state.decisions[0] if state.decisions else None
    if (
        pending is not None
        and pending.seat is seat
        and pending.kind in hosted.standing.get(seat, {})
    ):
        return referee.STANDING_ANSWER
    return None


def open_decision(hosted: HostedMatch, seat: Seat) -> str | None:
    """The id of the decision the match waits on ``seat`` for, unless it is answered
    automatically (the referee is about to answer it)."""
    if to_act(hosted.state) is not seat or automatic(hosted, seat) is not None:
        return None
    return str(hosted.state.version)


class Decisions:
    """Bot answers and the referee tasks of the hosted matches."""

    def __init__(
        self,
        commits: CommitPath,
        is_hosted: Callable[[HostedMatch], bool],
        draining: Callable[[], bool],
        bot_threads: int = DEFAULT_BOT_THREADS,
    ) -> None:
        if bot_threads < 1:
            raise ValueError(f"the built-in bots need at least 1 thread, got {bot_threads}")
        self.commits = commits
        self.is_hosted = is_hosted  # still ours (not dropped or unloaded meanwhile)
        self.draining = draining
        self.thinking = ThreadPoolExecutor(bot_threads, thread_name_prefix="frontier-bot")
        self.discarded = 0  # bot choices thrown away because the decision changed meanwhile
        # every match's referee retries while NATS or a domain service is away: one line
        # for all of them, not one per match and retry
        self.failures = FailureLog(log)

    def close(self) -> None:
        """Drop the bot choices not started yet; one under way finishes in its thread and
        is never committed (its referee was cancelled first)."""
        self.thinking.shutdown(wait=False, cancel_futures=True)

    async def answer_decision(
        self, hosted: HostedMatch, seat: Seat, decision_id: str, legal_id: str
    ) -> Rejection | None:
        """A bot's answer; None when accepted, else why not (the decision stays open)."""
        if hosted.abandoned:
            return Rejection(
                "MATCH_ABANDONED",
                "the match was abandoned (nobody acted in it for the idle timeout)",
            )
        if hosted.clock_of(seat).taken_over:
            return Rejection(
                "SEAT_TAKEN_OVER",
                "the built-in bot plays this seat now (too many missed deadlines)",
            )
        shown = decision_id[:40]
        if not decision_id.isdigit() or decision_id != str(hosted.state.version):
            return Rejection("STALE_VERSION", f"no open decision {shown!r} for seat {seat.value}")
        if to_act(hosted.state) is not seat:
            return Rejection(
                "NOT_YOUR_TURN", f"decision {shown!r} is not waiting for seat {seat.value}"
            )
        version = int(decision_id)

        async def work() -> Rejection | None:
            if hosted.state.version != version or to_act(hosted.state) is not seat:
                return Rejection("STALE_VERSION", f"decision {shown!r} is closed")
            if automatic(hosted, seat) is not None:
                return Rejection("NOT_YOUR_TURN", f"decision {shown!r} is answered by the server")
            try:
                cmd = resolve(hosted, seat, None, legal_id)
            except ServiceError as exc:
                return Rejection(exc.reason, exc.message)
            await self.commits.commit(
                hosted, seat, cmd, f"bot:{seat.value}:{decision_id}", referee.SEAT
            )
            return None

        return await self.commits.serialized(hosted, work)

    def ensure_referee(self, hosted: HostedMatch) -> None:
        """Start the match's referee task if it has anything to do."""
        if hosted.referee is not None and not hosted.referee.done():
            return
        if hosted.ended or self.draining():
            return
        needed = (
            hosted.clock.enabled
            or any(hosted.standing.values())
            or any(c.taken_over for c in hosted.clocks.values())
            or bool(hosted.seats.bots)
        )
        if needed:
            hosted.start_referee(asyncio.ensure_future(self._referee(hosted)))

    async def _referee(self, hosted: HostedMatch) -> None:
        """Answers on seats' behalf: standing answers and the built-in bot at once, the
        default command when a deadline passes.  Each answer is an ordinary commit."""
        retry = RETRY_FIRST_S
        while not hosted.ended and self.is_hosted(hosted):
            hosted.wake.clear()
            state = hosted.state
            seat = to_act(state)
            if seat is None:
                return
            by = automatic(hosted, seat)
            if by is None and hosted.clock.enabled:
                allowance = hosted.clock.allowance_ms(hosted.clock_of(seat)) / 1000
                left = hosted.opened_at + allowance - time.monotonic()
                if left <= 0:
                    by = referee.TIMEOUT
                else:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(hosted.wake.wait(), left)
                    continue
            if by is None:
                await hosted.wake.wait()
                continue
            try:
                await self._answer_for(hosted, state.version, seat, by)
                retry = RETRY_FIRST_S
                self.failures.recovered("answer", "automatic answers")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not self.is_hosted(hosted):
                    return
                what = f"the automatic answer for {seat.value} in match {hosted.match_id}"
                self.failures.failed("answer", what, exc)
                await asyncio.sleep(retry)
                retry = min(retry * 2, RETRY_MAX_S)

    async def _answer_for(
        self, hosted: HostedMatch, version: int, seat: Seat, by: AnsweredBy
    ) -> None:
        if by == referee.BUILT_IN_BOT:
            await self._bot_answer(hosted, version, seat)
            return
        async with hosted.lock:
            if not _still_open(hosted, version, seat, by):
                return  # answered, abandoned or no longer automatic meanwhile: look again
            legal = hosted.legal(seat).commands
            if by == referee.TIMEOUT:
                cmd = default_command(legal)
            else:
                policy = hosted.standing[seat][hosted.state.decisions[0].kind]
                cmd = choose(policy, legal)
            await self.commits.commit(hosted, seat, cmd, f"{_KIND[by]}:{seat.value}:{version}", by)

    async def _bot_answer(self, hosted: HostedMatch, version: int, seat: Seat) -> None:
        """The built-in bot's answer: chosen in the pool, committed if still wanted."""
        by = referee.BUILT_IN_BOT
        async with hosted.lock:  # no commit half done: the state and legal list agree
            if not _still_open(hosted, version, seat, by):
                return
            state = hosted.state
            legal = list(hosted.legal(seat).commands)
            name = bot_name(hosted, seat)
        loop = asyncio.get_running_loop()
        cmd = await loop.run_in_executor(
            self.thinking, think, name, bot_seed(hosted.match_id, version, seat), state, seat, legal
        )
        async with hosted.lock:
            if (
                hosted.state is not state
                or not _still_open(hosted, version, seat, by)
                or bot_name(hosted, seat) != name
            ):
                self.discarded += 1
                log.debug("match %s: the bot's choice for %s came too late", hosted.match_id, seat)
                return
            await self.commits.commit(hosted, seat, cmd, f"{_KIND[by]}:{seat.value}:{version}", by)


def _still_open(hosted: HostedMatch, version: int, seat: Seat, by: AnsweredBy) -> bool:
    """Whether the match still waits on ``seat`` at ``version``, answered by ``by``."""
    state = hosted.state
    if state.version != version or to_act(state) is not seat or hosted.abandoned:
        return False
    return by == referee.TIMEOUT or automatic(hosted, seat) == by


def bot_name(hosted: HostedMatch, seat: Seat) -> str:
    """The built-in bot that plays ``seat``: its bot seat's, else the takeover bot."""
    return hosted.seats.bots.get(seat.value, hosted.clock.takeover_bot)


def bot_seed(match_id: str, version: int, seat: Seat) -> int:
    """A fresh bot per decision, seeded by match, seat and version: a retried answer is the
    same command, and nothing depends on bot state in memory."""
    return int(match_id[:15], 16) + 7919 * version + list(Seat).index(seat)


def think(name: str, seed: int, state: State, seat: Seat, legal: list[Command]) -> Command:
    """The bot's choice (run in a worker thread: it only reads ``state``)."""
    return make_bot(name, seed).choose(state, seat, legal)
