"""Turn notices: telling a seat played through MatchService when the match waits for it.

A bot stream (BotService.Play) is told of each decision; a MatchService client had only
polling or a spectator's event stream.  ``WatchTurns`` gives it the same signal, and
nothing more: a notice goes to a seat only about that seat's own open decision (its id, its
kind, its deadline), never about another seat's, so the stream leaks no hidden decision.
Under ruling R4 the engine opens a hidden-card decision (an ambush...) whenever the seat
holds any card, so even a seat's own notice does not reveal what it holds to anyone who
sees the seat being asked.  A decision the server answers itself (a standing answer, the
built-in bot) is not announced: the seat has nothing to do.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import grpc

from frontier.engine import Seat
from frontier.runtime.errors import ServiceError
from frontier.v1 import match_pb2
from frontier.wire.kinds import DECISIONS

from .decisions import open_decision
from .hosted_match import HostedMatch, unix_ms

# How often a watcher looks again without a commit (standing answers changed meanwhile).
RECHECK_S = 5.0


def notice(hosted: HostedMatch, seat: Seat, decision_id: str) -> match_pb2.WatchTurnsResponse:
    """The notice of ``seat``'s open decision ``decision_id``."""
    state = hosted.state
    pending = state.decisions[0] if state.decisions else None
    kind = pending.kind if pending is not None and pending.seat is seat else ""
    return match_pb2.WatchTurnsResponse(
        decision_id=decision_id,
        decision_version=int(decision_id),  # the id is the version the decision opened at
        kind=kind,
        decision_kind=DECISIONS[kind],
        deadline_unix_ms=hosted.deadline_unix_ms(seat),
        server_time_unix_ms=unix_ms(),
    )


async def watch_turns(
    hosted: HostedMatch,
    seat: Seat,
    draining: Callable[[], bool],
    gone: Callable[[], bool] = lambda: False,
) -> AsyncIterator[match_pb2.WatchTurnsResponse]:
    """One notice per decision the match opens for ``seat``, then a last one at the end;
    UNAVAILABLE once the server drains or the match is ``gone`` (another orchestrator took
    it over: a new watch is forwarded there)."""
    sent: str | None = None
    while True:
        if hosted.ended:
            yield match_pb2.WatchTurnsResponse(
                match_over=True, winner=hosted.state.winner, server_time_unix_ms=unix_ms()
            )
            return
        if draining():
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
        if gone():
            raise ServiceError(
                grpc.StatusCode.UNAVAILABLE, "the match moved to another orchestrator; watch again"
            )
        decision = open_decision(hosted, seat)
        if decision is not None and decision != sent:
            sent = decision
            yield notice(hosted, seat, decision)
            continue
        version = hosted.state.version

        def moved(version: int = version) -> bool:
            return hosted.state.version != version or hosted.ended or draining() or gone()

        async with hosted.changed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(hosted.changed.wait_for(moved), RECHECK_S)
