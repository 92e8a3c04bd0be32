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
thinks in a worker process of a bounded pool (:mod:`.bot_pool`, ``FRONTIER_BOT_PROCESSES``),
holding neither the event loop nor the match's lock nor the interpreter: the server goes on
answering every other call and match meanwhile.  The bot reads the match's state object of
that moment, which nothing changes afterwards (a commit replaces the match's state with a new
object, never edits it), and its choice is committed only if, under the lock again, the match
still waits on the same seat at the same version and the built-in bot still answers it;
otherwise it is discarded and the referee looks again.  Its CPU seconds count against the
match's host key (:mod:`.host_keys`); past that quota the cheapest bot answers instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable

import grpc

from frontier.bots import default_command
from frontier.bots.standing import choose
from frontier.engine import Seat, to_act
from frontier.runtime.errors import CURRENT_VERSION, FIELD, ServiceError, about, shown
from frontier.runtime.failure_log import FailureLog
from frontier.runtime.metrics import BOT_CPU_FALLBACKS

from . import referee
from .bot_pool import BotPool
from .checks import check_not_taken_over, resolve
from .commit import CommitPath
from .host_keys import HostAccess
from .hosted_match import HostedMatch
from .referee import AnsweredBy

log = logging.getLogger("frontier.orchestrator")

# How long the referee waits before retrying an automatic answer that failed (a domain
# service down, NATS unreachable): it doubles up to the maximum, and resets on success.
RETRY_FIRST_S = 0.1
RETRY_MAX_S = 2.0
CHEAPEST_BOT = "random"  # plays a host key's bot seats once their CPU of the hour is spent

_KIND = {
    referee.TIMEOUT: "timeout",
    referee.STANDING_ANSWER: "standing",
    referee.BUILT_IN_BOT: "bot",
}


def automatic(hosted: HostedMatch, seat: Seat) -> AnsweredBy | None:
    """Who answers ``seat``'s open decision without waiting for its client, if anyone."""
    seats = hosted.seats
    if hosted.clock_of(seat).taken_over or seat.value in seats.bots or seat.value in seats.standins:
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
        bots: BotPool | None = None,
        access: HostAccess | None = None,
    ) -> None:
        self.commits = commits
        self.access = access  # whose bot CPU quota a match's built-in bots spend
        self.is_hosted = is_hosted  # still ours (not dropped or unloaded meanwhile)
        self.draining = draining
        self.bots = bots if bots is not None else BotPool()
        self.discarded = 0  # bot choices thrown away because the decision changed meanwhile
        # every match's referee retries while NATS or a domain service is away: one line
        # for all of them, not one per match and retry
        self.failures = FailureLog(log)

    def close(self) -> None:
        """Drop the bot choices not started yet (see :meth:`.bot_pool.BotPool.close`)."""
        self.bots.close()

    async def answer_decision(
        self, hosted: HostedMatch, seat: Seat, decision_id: str, legal_id: str
    ) -> None:
        """A bot's answer, applied; a refused one raises ServiceError with the reason and
        metadata its AnswerRejected carries (the decision stays open)."""
        check_not_taken_over(hosted, seat)
        if not decision_id.isdigit() or decision_id != str(hosted.state.version):
            raise _rejected(
                "UNKNOWN_DECISION",
                f"no open decision {shown(decision_id)} for seat {seat.value}",
                hosted,
            )
        if to_act(hosted.state) is not seat:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"decision {shown(decision_id)} is not waiting for seat {seat.value}",
                "NOT_YOUR_TURN",
                about("decision_id"),
            )
        version = int(decision_id)

        async def work() -> None:
            if hosted.state.version != version or to_act(hosted.state) is not seat:
                raise _rejected("DECISION_CLOSED", f"decision {decision_id} is closed", hosted)
            if automatic(hosted, seat) is not None:
                raise _rejected(
                    "DECISION_CLOSED", f"decision {decision_id} is answered by the server", hosted
                )
            try:
                cmd = resolve(hosted, seat, None, legal_id)
            except ServiceError as exc:  # the Answer names its legal id command_id
                raise ServiceError(exc.code, exc.message, exc.reason, about("command_id")) from None
            await self.commits.commit(
                hosted, seat, cmd, f"bot:{seat.value}:{decision_id}", referee.SEAT
            )

        await self.commits.serialized(hosted, work)

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
            or bool(hosted.seats.standins)
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
            name = wanted = bot_name(hosted, seat)
        charge: Callable[[float], None] | None = None
        if self.access is not None:
            host = self.access.host_of(hosted.host_id)
            if self.access.cpu_spent(host) and name != CHEAPEST_BOT:
                # the host key spent its bot CPU of the hour: the cheapest bot plays on
                BOT_CPU_FALLBACKS.inc()
                name = CHEAPEST_BOT
            charge = functools.partial(self.access.charge_cpu, host)
        cmd = await self.bots.choose(
            name, bot_seed(hosted.match_id, version, seat), state, seat, legal, charge
        )
        async with hosted.lock:
            if (
                hosted.state is not state
                or not _still_open(hosted, version, seat, by)
                or bot_name(hosted, seat) != wanted
            ):
                self.discarded += 1
                log.debug("match %s: the bot's choice for %s came too late", hosted.match_id, seat)
                return
            await self.commits.commit(hosted, seat, cmd, f"{_KIND[by]}:{seat.value}:{version}", by)


def _rejected(reason: str, message: str, hosted: HostedMatch) -> ServiceError:
    """An answer naming no open decision: about its ``decision_id``, with the match's
    version now (the id of the decision open now, if one is)."""
    metadata = {FIELD: "decision_id", CURRENT_VERSION: str(hosted.state.version)}
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, message, reason, metadata)


def _still_open(hosted: HostedMatch, version: int, seat: Seat, by: AnsweredBy) -> bool:
    """Whether the match still waits on ``seat`` at ``version``, answered by ``by``."""
    state = hosted.state
    if state.version != version or to_act(state) is not seat or hosted.abandoned:
        return False
    return by == referee.TIMEOUT or automatic(hosted, seat) == by


def bot_name(hosted: HostedMatch, seat: Seat) -> str:
    """The built-in bot that plays ``seat``: its bot seat's, else the one the host chose to
    play for its person, else the takeover bot."""
    seats = hosted.seats
    return seats.bots.get(seat.value) or seats.standins.get(seat.value) or hosted.clock.takeover_bot


def bot_seed(match_id: str, version: int, seat: Seat) -> int:
    """A fresh bot per decision, seeded by match, seat and version: a retried answer is the
    same command, and nothing depends on bot state in memory."""
    return int(match_id[:15], 16) + 7919 * version + list(Seat).index(seat)
