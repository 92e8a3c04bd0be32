"""The orchestrator: the public operations of MatchService and BotService on its matches.

:class:`Orchestrator` is what the gRPC servicers (:mod:`.servicer`, :mod:`.bot_service`)
call, free of gRPC plumbing.  It holds the parts that each keep one concern, and each
operation finds the match, authenticates the caller and hands the match to the part that
acts on it:

* :class:`.match_host.MatchHost` (``host``): the hosted matches, created, loaded, leased,
  unloaded and recovered;
* :class:`.commit.CommitPath` (``commits``): the single-writer commit path of every command;
* :class:`.decisions.Decisions` (``decisions``): the open decision, bot answers and the
  referee's automatic answers;
* :class:`.seating.Seating` (``seating``): open seats, their claims and the host's powers;
* :class:`.seat_links.SeatLinks` (``seat_links``): reissued seat tokens, and the bot the
  host lets play a person's seat until it gives it back;
* :mod:`.history`: watching, seat replays and the event history; an ended match's replays
  are computed once per reader and kept (:class:`.replay_cache.ReplayCache`, ``replays``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping

import grpc

from frontier.bots.standing import StandingPolicy
from frontier.engine import Seat
from frontier.engine.model import Command
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError, about
from frontier.runtime.failure_log import FailureLog
from frontier.store.matches import token_hash
from frontier.v1 import match_pb2
from frontier.wire.convert import event_to_proto

from . import history
from .bot_pool import BotPool
from .clients import DomainClients
from .commit import CommitPath
from .decisions import Decisions, open_decision
from .host_keys import HostAccess
from .hosted_match import HostedMatch, SubmitResult
from .leases import Leases
from .match_host import MatchHost
from .replay_cache import ReplayCache
from .seat_links import SeatLinks
from .seating import Seating
from .spectators import Watchers, WatchLimits, reply_for, spectate
from .write_path import WritePath

log = logging.getLogger("frontier.orchestrator")


class Orchestrator:
    """The operations of MatchService and BotService on the hosted matches."""

    def __init__(
        self,
        bus: Bus,
        clients: DomainClients,
        snapshot_every: int,
        leases: Leases | None = None,
        finished_ttl_s: float = 300.0,
        settle_wait_s: float = 5.0,
        idle_timeout_s: float = 0.0,
        max_matches: int = 1000,
        bots: BotPool | None = None,
        write_path: WritePath | None = None,
        watch_limits: WatchLimits | None = None,
        access: HostAccess | None = None,
    ) -> None:
        self.bus = bus
        # whether JetStream takes our writes: commands and creations fail fast while not
        self.write_path = write_path or WritePath()
        self.idle_timeout_s = idle_timeout_s  # 0: matches are never abandoned
        # who may host and within which quotas (None: everyone, nothing counted)
        self.access = access
        self.host = MatchHost(
            bus, self._hosted, leases, finished_ttl_s, max_matches, self.write_path, access
        )
        self.commits = CommitPath(
            bus, clients, snapshot_every, self.host.drop, settle_wait_s, self.write_path
        )
        self.decisions = Decisions(
            self.commits, self.host.is_hosted, lambda: self.host.draining, bots, access
        )
        self.seating = Seating(bus, self.host, self.commits, self.decisions)
        self.seat_links = SeatLinks(bus, self.host, self.seating, self.decisions)
        self.replays = ReplayCache()  # ended matches' replays, computed once
        self.watchers = Watchers(watch_limits or WatchLimits())  # caps, spectators' feeds

    def _hosted(self, hosted: HostedMatch) -> None:
        """A match came in (created or loaded): its referee starts if it needs one."""
        self.decisions.ensure_referee(hosted)

    # ----- the hosted matches ------------------------------------------------------------------
    @property
    def matches(self) -> dict[str, HostedMatch]:
        return self.host.matches

    @property
    def draining(self) -> bool:
        return self.host.draining

    async def get(self, match_id: str) -> HostedMatch:
        """The hosted match ``match_id`` (loaded on first use; NotOwner: served elsewhere)."""
        return await self.host.get(match_id)

    # ----- who a token is ----------------------------------------------------------------------
    def seat_for(self, hosted: HostedMatch, token: str) -> Seat:
        if not token:
            raise ServiceError(
                grpc.StatusCode.UNAUTHENTICATED,
                "a seat token is required",
                "TOKEN_REQUIRED",
                about("seat_token"),
            )
        seat = hosted.seat_by_token_hash.get(token_hash(token))
        if seat is None and self.seating.is_host(hosted, token):
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "the host token acts for no seat (it manages the match and sees what a "
                "spectator sees)",
                "HOST_CANNOT_ACT",
                about("seat_token"),
            )
        if seat is None and token_hash(token) in hosted.seats.retired:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "this seat token was replaced by a newer one: ask the seat's player or the "
                "match's host for the new link",
                "TOKEN_REISSUED",
                about("seat_token"),
            )
        if seat is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "this token acts for no seat of this match",
                "UNKNOWN_TOKEN",
                about("seat_token"),
            )
        return Seat(seat)

    def viewer_for(self, hosted: HostedMatch, token: str) -> Seat | None:
        """The seat whose view ``token`` reads: None (the spectator) for no token and for
        the host token."""
        if not token or self.seating.is_host(hosted, token):
            return None
        return self.seat_for(hosted, token)

    # ----- commands ----------------------------------------------------------------------------
    async def submit(
        self,
        hosted: HostedMatch,
        seat: Seat,
        command_id: str,
        expected_version: int,
        command: Command | None,
        legal_id: str,
    ) -> SubmitResult:
        """``seat``'s command (the caller found the match and the token's seat: it reads
        both again for its reply, so they are looked up once per request); see
        :meth:`.commit.CommitPath.submit`.  A new command is refused at once (UNAVAILABLE
        WRITE_PATH_DOWN) while JetStream takes no writes (see write_path.py)."""
        self.commits.check_writable(hosted, seat, command_id)
        return await self.commits.submit(
            hosted, seat, command_id, expected_version, command, legal_id
        )

    # ----- bots and standing answers -----------------------------------------------------------
    def open_decision(self, hosted: HostedMatch, seat: Seat) -> str | None:
        """See :func:`.decisions.open_decision`."""
        return open_decision(hosted, seat)

    async def answer_decision(
        self, hosted: HostedMatch, seat: Seat, decision_id: str, legal_id: str
    ) -> None:
        """A bot's answer: see :meth:`.decisions.Decisions.answer_decision`."""
        await self.decisions.answer_decision(hosted, seat, decision_id, legal_id)

    async def set_standing(
        self, match_id: str, token: str, answers: Mapping[str, StandingPolicy]
    ) -> dict[str, StandingPolicy]:
        hosted = await self.get(match_id)
        seat = self.seat_for(hosted, token)
        stored = dict(sorted(answers.items()))
        await self.bus.put_standing(match_id, seat.value, {k: v.value for k, v in stored.items()})
        hosted.set_standing(seat, stored)
        self.decisions.ensure_referee(hosted)
        hosted.wake.set()
        for session in list(hosted.sessions.values()):
            session.poke()
        return stored

    async def get_standing(self, match_id: str, token: str) -> dict[str, StandingPolicy]:
        hosted = await self.get(match_id)
        return dict(hosted.standing.get(self.seat_for(hosted, token), {}))

    # ----- history -----------------------------------------------------------------------------
    async def watch(
        self,
        match_id: str,
        token: str,
        from_version: int,
        peer: str,
        admitted: Callable[[], Awaitable[None]],
    ) -> AsyncIterator[match_pb2.WatchEventsResponse]:
        """Events with seq > from_version as the caller may see them, then live ones; the
        stream counts against the caps of :mod:`.spectators` while it lasts (``admitted`` is
        called once it is let in, before any event), and spectators share one conversion of
        each event."""
        hosted = await self.get(match_id)
        viewer = self.viewer_for(hosted, token)
        moved = lambda: not self.host.is_hosted(hosted)  # noqa: E731
        with self.watchers.admit(hosted, peer, spectator=viewer is None) as feed:
            await admitted()
            if feed is not None:
                async for reply in spectate(
                    self.bus,
                    hosted,
                    feed,
                    from_version,
                    self.watchers.limits.max_lag,
                    lambda: self.draining,
                    moved,
                ):
                    yield reply
                return
            held = token_hash(token)
            async for seq, event, record in history.watch(
                self.bus, hosted, viewer, from_version, lambda: self.draining, moved
            ):
                if held not in hosted.seat_by_token_hash:  # reissued: the old token reads no more
                    self.seat_for(hosted, token)
                yield reply_for(match_id, seq, event_to_proto(event), record)

    async def export_replay(self, match_id: str, token: str) -> str:
        """The match's history as the caller may see it (see ExportReplayResponse)."""
        hosted = await self.get(match_id)
        viewer = self.viewer_for(hosted, token)

        def compute() -> Awaitable[str]:
            return history.export_replay(self.bus, hosted, viewer)

        if not hosted.ended:  # still growing: computed for this request alone
            return await compute()
        return await self.replays.get((match_id, viewer.value if viewer else "spectator"), compute)

    # ----- the server's life -------------------------------------------------------------------
    async def resume(self) -> None:
        """After a (re)start: see :meth:`.match_host.MatchHost.resume`."""
        await self.host.resume()

    async def keep_leases(self) -> None:
        """While we live: see :meth:`.match_host.MatchHost.keep_leases`."""
        await self.host.keep_leases()

    async def unload_finished(self) -> None:
        """While we live: abandon idle matches (:meth:`abandon_idle`) and unload finished
        ones nobody uses (:meth:`.match_host.MatchHost.unload_idle`)."""
        host = self.host
        shortest = min(host.finished_ttl_s, self.idle_timeout_s or host.finished_ttl_s)
        period = max(0.05, min(shortest, 60.0) / 2)
        failures = FailureLog(log)  # one line per outage, not one per pass
        while not host.draining:
            await asyncio.sleep(period)
            try:
                await self.abandon_idle(time.monotonic())
                await host.unload_idle(time.monotonic())
            except Exception as exc:  # NATS briefly away: the next pass tries again
                failures.failed("unload", "unloading finished matches", exc)
            else:
                failures.recovered("unload", "unloading finished matches")

    async def abandon_idle(self, now: float) -> list[str]:
        """End, as abandoned, every hosted unfinished match in which nobody acted for
        ``idle_timeout_s``; returns their ids.  Recorded in the stream like a command (see
        CommitPath.abandon), so every orchestrator and reader agrees that it ended."""
        if self.idle_timeout_s <= 0:
            return []
        gone: list[str] = []
        for hosted in list(self.host.matches.values()):
            if hosted.ended or now - hosted.last_command < self.idle_timeout_s:
                continue
            reason = (
                f"the match was abandoned: nobody acted in it for {self.idle_timeout_s:g} s "
                "(FRONTIER_IDLE_TIMEOUT_S)"
            )

            async def work(hosted: HostedMatch = hosted, reason: str = reason) -> None:
                if not hosted.ended and self.host.is_hosted(hosted):
                    await self.commits.abandon(hosted, reason)

            await self.commits.serialized(hosted, work)
            gone.append(hosted.match_id)
        return gone

    async def drain(self) -> None:
        """Before the grace period: see :meth:`.match_host.MatchHost.drain`."""
        await self.host.drain()

    async def close(self) -> None:
        await self.host.close()
        self.decisions.close()
        await self.commits.close()
