"""The open decision and who answers it: the seat's bot, or the referee on its behalf.

A match waits on one seat at a time (``to_act``).  The seat answers through MatchService or
its bot stream (:meth:`Decisions.answer`), unless the server answers for it: a standing
answer covering the decision's kind, the built-in bot once the seat is taken over, or the
default command when the deadline passes.  Those automatic answers come from the match's
*referee*, one asyncio task per match that needs one (a clock, standing answers or a
takeover), and go through the same commit path as every other command, with a command id
derived from the decision (``timeout:<seat>:<version>``...), so a retried answer is the
same command and nothing depends on the referee's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from frontier.bots import default_command, make_bot
from frontier.bots.standing import choose
from frontier.engine import Seat, to_act
from frontier.runtime.errors import ServiceError

from . import referee
from .commit import CommitPath, resolve
from .hosted import HostedMatch
from .referee import AnsweredBy

log = logging.getLogger("frontier.orchestrator")

# How long the referee waits before retrying an automatic answer that failed (a domain
# service down, NATS unreachable): it doubles up to the maximum, and resets on success.
RETRY_FIRST_S = 0.1
RETRY_MAX_S = 2.0

_KIND = {
    referee.TIMEOUT: "timeout",
    referee.STANDING_ANSWER: "standing",
    referee.BUILT_IN_BOT: "bot",
}


def automatic(hosted: HostedMatch, seat: Seat) -> AnsweredBy | None:
    """Who answers ``seat``'s open decision without waiting for its client, if anyone."""
    if hosted.clock_of(seat).taken_over:
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
    ) -> None:
        self.commits = commits
        self.is_hosted = is_hosted  # still ours (not dropped or unloaded meanwhile)
        self.draining = draining

    async def answer(self, hosted: HostedMatch, seat: Seat, decision_id: str, legal_id: str) -> str:
        """A bot's answer; returns "" when accepted, else why not (the decision stays open)."""
        if hosted.abandoned:
            return "the match was abandoned (nobody acted in it for the idle timeout)"
        if hosted.clock_of(seat).taken_over:
            return "the built-in bot plays this seat now (too many missed deadlines)"
        shown = decision_id[:40]
        if not decision_id.isdigit() or decision_id != str(hosted.state.version):
            return f"no open decision {shown!r} for seat {seat.value}"
        if to_act(hosted.state) is not seat:
            return f"decision {shown!r} is not waiting for seat {seat.value}"
        version = int(decision_id)

        async def work() -> str:
            if hosted.state.version != version or to_act(hosted.state) is not seat:
                return f"decision {shown!r} is closed"
            if automatic(hosted, seat) is not None:
                return f"decision {shown!r} is answered by the server"
            try:
                cmd = resolve(hosted, seat, None, legal_id)
            except ServiceError as exc:
                return exc.message
            await self.commits.commit(
                hosted, seat, cmd, f"bot:{seat.value}:{decision_id}", referee.SEAT
            )
            return ""

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
        )
        if needed:
            hosted.referee = asyncio.ensure_future(self._referee(hosted))

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
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not self.is_hosted(hosted):
                    return
                log.warning(
                    "match %s: automatic answer for %s failed (%s); retrying in %.1fs",
                    hosted.match_id,
                    seat.value,
                    exc,
                    retry,
                )
                await asyncio.sleep(retry)
                retry = min(retry * 2, RETRY_MAX_S)

    async def _answer_for(
        self, hosted: HostedMatch, version: int, seat: Seat, by: AnsweredBy
    ) -> None:
        async with hosted.lock:
            state = hosted.state
            if state.version != version or to_act(state) is not seat or hosted.abandoned:
                return  # answered (or abandoned) meanwhile
            if by != referee.TIMEOUT and automatic(hosted, seat) != by:
                return  # the standing answers changed meanwhile: look again
            legal = hosted.legal(seat).commands
            if by == referee.TIMEOUT:
                cmd = default_command(legal)
            elif by == referee.STANDING_ANSWER:
                policy = hosted.standing[seat][state.decisions[0].kind]
                cmd = choose(policy, legal)
            else:
                # a fresh bot per decision, seeded by match, seat and version: a retried
                # answer is the same command, and nothing depends on bot state in memory
                seed = int(hosted.match_id[:15], 16) + 7919 * version + list(Seat).index(seat)
                cmd = make_bot(hosted.clock.takeover_bot, seed).choose(state, seat, legal)
            await self.commits.commit(hosted, seat, cmd, f"{_KIND[by]}:{seat.value}:{version}", by)
