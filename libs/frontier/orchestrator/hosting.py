"""The matches this orchestrator hosts: creating, loading, leasing, unloading, recovering.

A match lives in memory (:class:`.hosted.HostedMatch`) while this process is its single
writer.  It comes in by :meth:`Hosting.create_match`, or by :meth:`Hosting.get` on first use:
its lease first (when several orchestrators share the matches; a live owner elsewhere makes
the request go there, :class:`.hosted.NotOwner`), then its record, latest snapshot and the
tail of its stream.  It leaves when another orchestrator took it (a lost lease, a write
conflict), when it is finished and unused for ``finished_ttl_s``, or when the server
drains.  After a restart, :meth:`Hosting.resume` loads every match whose clock or standing
answers must go on without waiting for a client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass

import grpc

from frontier.engine import Seat, initial_state, make_config
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError, not_found
from frontier.store.matches import load_match, token_hash
from frontier.store.seats import SEAT_BOT, SEAT_HELD, SEAT_OPEN, SeatArrangement

from .clients import DomainClients
from .commit import CommitPath
from .decisions import DEFAULT_BOT_THREADS, Decisions
from .hosted import (
    HostedMatch,
    MatchSummary,
    NotOwner,
    hosted_from,
    policies,
    unix_ms,
    valid_id,
)
from .leases import Leases
from .referee import ClockConfig

log = logging.getLogger("frontier.orchestrator")

PAGE_SIZE = 100  # ListMatches without a page size
MAX_PAGE_SIZE = 1000


@dataclass(frozen=True, slots=True)
class CreatedMatch:
    """What CreateMatch hands out, each secret exactly once (only hashes are kept)."""

    match_id: str
    tokens: dict[Seat, str]  # held seats
    invites: dict[Seat, str]  # open seats
    host_token: str


class Hosting:
    """The hosted matches, with the commit path and the referees that act on them."""

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
        bot_threads: int = DEFAULT_BOT_THREADS,
    ) -> None:
        self.bus = bus
        self.finished_ttl_s = finished_ttl_s
        self.idle_timeout_s = idle_timeout_s  # 0: matches are never abandoned
        self.max_matches = max_matches  # unfinished matches hosted at most
        self.clients = clients
        self.snapshot_every = snapshot_every
        # Without leases (a single orchestrator, in tests) every match is ours.
        self.leases = leases
        self._unclaimed: set[str] = set()  # clocked matches whose lease another one held
        self.matches: dict[str, HostedMatch] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.draining = False
        self.commits = CommitPath(bus, clients, snapshot_every, self._drop, settle_wait_s)
        self.decisions = Decisions(
            self.commits, self._is_hosted, lambda: self.draining, bot_threads
        )

    async def create_match(
        self,
        seed: int,
        lineup: str,
        team_hands_visible: bool,
        max_rounds: int,
        clock: ClockConfig | None = None,
        setup: Mapping[Seat, tuple[str, str]] | None = None,
    ) -> CreatedMatch:
        """A new match; ``setup`` says, per seat, ``(mode, bot)`` with mode ``held``
        (also every seat not in it), ``open`` or ``bot`` (see :mod:`frontier.store.seats`)."""
        clock = clock or ClockConfig()
        setup = setup or {}
        values: dict[str, object] = {
            "seed": seed or secrets.randbelow(2**62) + 1,
            "team_hands_visible": team_hands_visible,
            "max_rounds": max_rounds or 6,
        }
        if lineup:
            values["lineup"] = lineup
        config = make_config(**values)
        # counted only near the limit: a scan of every hosted match per creation was 6% of
        # the orchestrator's CPU while 1,500 matches were being created
        playing = len(self.matches)
        if playing >= self.max_matches:
            playing = sum(1 for hosted in self.matches.values() if not hosted.ended)
        if playing >= self.max_matches:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this server hosts {playing} unfinished matches, its limit "
                "(FRONTIER_MAX_MATCHES): try again once some have ended",
                "TOO_MANY_MATCHES",
            )
        state = initial_state(config)
        for seat in setup:
            if seat not in state.order:
                raise ServiceError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"seat_setup names seat {seat.value}, which the lineup leaves empty",
                    "MALFORMED",
                )
        match_id = uuid.uuid4().hex
        mode = {seat: setup.get(seat, (SEAT_HELD, ""))[0] for seat in state.order}
        tokens = {s: secrets.token_urlsafe(24) for s in state.order if mode[s] == SEAT_HELD}
        invites = {s: secrets.token_urlsafe(24) for s in state.order if mode[s] == SEAT_OPEN}
        host_token = secrets.token_urlsafe(24)
        seats = SeatArrangement(
            invites={token_hash(c): s.value for s, c in invites.items()},
            bots={s.value: setup[s][1] for s in state.order if mode[s] == SEAT_BOT},
            host_hash=token_hash(host_token),
        )
        seat_by_hash = {token_hash(t): seat.value for seat, t in tokens.items()}
        record = {
            "config": config.model_dump(),
            "tokens": seat_by_hash,
            "clock": clock.as_record(),
            "seed_fixed": bool(seed),  # GetMatchInfo: the creator may know the deal
            **seats.as_record(),
        }
        await self.bus.put_match(match_id, record)
        if self.leases is not None:
            await self.leases.acquire(match_id, new=True)  # nobody else can hold it
        hosted = HostedMatch(
            match_id=match_id,
            config=config,
            state=state,
            stream_seq=0,
            seat_by_token_hash=dict(seat_by_hash),
            command_ids={},
            clock=clock,
            seats=seats,
            seed_fixed=bool(seed),
        )
        self.matches[match_id] = hosted
        self.decisions.ensure_referee(hosted)
        await self.bus.lobby({"event": "created", "match_id": match_id, "lineup": config.lineup})
        return CreatedMatch(match_id, tokens, invites, host_token)

    async def get(self, match_id: str) -> HostedMatch:
        hosted = self.matches.get(match_id)
        if hosted is not None:
            hosted.last_used = time.monotonic()
            return hosted
        lock = self._loading.setdefault(match_id, asyncio.Lock())
        async with lock:
            hosted = self.matches.get(match_id)
            if hosted is None:
                if not valid_id(match_id) or await self.bus.get_match(match_id) is None:
                    raise not_found(match_id)
                await self._own(match_id)
                loaded = await load_match(self.bus, match_id)
                if loaded is None:
                    raise not_found(match_id)
                hosted = hosted_from(match_id, loaded)
                # idle since its last batch was stored (the idle timeout survives restarts)
                last_ms = await self.bus.last_write_unix_ms(match_id)
                if last_ms:
                    age_s = max(0.0, (unix_ms() - last_ms) / 1000)
                    hosted.last_command = time.monotonic() - age_s
                for seat in hosted.state.order:
                    stored = await self.bus.get_standing(match_id, seat.value)
                    if stored:
                        hosted.standing[seat] = policies(stored)
                self.matches[match_id] = hosted
                self.decisions.ensure_referee(hosted)
        return hosted

    async def _own(self, match_id: str) -> None:
        """Take the match's lease, or raise NotOwner naming the live orchestrator holding it."""
        if self.leases is None:
            return
        lease = await self.leases.acquire(match_id)
        if lease is not None and lease.owner != self.leases.owner:
            raise NotOwner(match_id, lease.address)

    async def keep_leases(self) -> None:
        """Renew our leases while we live (one heartbeat for all: see leases.py); forget a
        match whose lease another one took."""
        if self.leases is None:
            return
        period = self.leases.ttl_s / 3
        while not self.draining:
            await asyncio.sleep(period)
            for match_id in sorted(self._unclaimed):
                try:
                    await self.get(match_id)
                except NotOwner:
                    continue
                except Exception:
                    log.warning("could not resume match %s", match_id, exc_info=True)
                    continue
                self._unclaimed.discard(match_id)
            try:
                lost = await self.leases.heartbeat()
            except Exception:  # NATS briefly away: keep trying until the leases expire
                log.warning("renewing the leases failed", exc_info=True)
                continue
            for match_id in lost:
                hosted = self.matches.get(match_id)
                if hosted is not None:
                    log.warning("lost the lease of %s; dropping it", match_id)
                    self._drop(hosted)

    async def unload_finished(self) -> None:
        """Forget finished matches nobody used for ``finished_ttl_s``, and abandon idle
        ones (:meth:`abandon_idle`), while we live.

        A finished match is only read (views, WatchEvents, replays), and everything it holds
        (its state, the events of the whole match, command ids) is in NATS, where :meth:`get`
        finds it again on the next use.  Without this a long-running orchestrator would keep
        every match it ever hosted in memory."""
        shortest = min(self.finished_ttl_s, self.idle_timeout_s or self.finished_ttl_s)
        period = max(0.05, min(shortest, 60.0) / 2)
        while not self.draining:
            await asyncio.sleep(period)
            try:
                await self.abandon_idle(time.monotonic())
                await self.unload_idle(time.monotonic())
            except Exception:  # NATS briefly away: the next pass tries again
                log.warning("unloading finished matches failed", exc_info=True)

    async def abandon_idle(self, now: float) -> list[str]:
        """End, as abandoned, every hosted unfinished match in which nobody acted for
        ``idle_timeout_s``; returns their ids.  Recorded in the stream like a command (see
        CommitPath.abandon), so every orchestrator and reader agrees that it ended."""
        if self.idle_timeout_s <= 0:
            return []
        gone: list[str] = []
        for hosted in list(self.matches.values()):
            if hosted.ended or now - hosted.last_command < self.idle_timeout_s:
                continue
            reason = (
                f"the match was abandoned: nobody acted in it for {self.idle_timeout_s:g} s "
                "(FRONTIER_IDLE_TIMEOUT_S)"
            )

            async def work(hosted: HostedMatch = hosted, reason: str = reason) -> None:
                if not hosted.ended and self._is_hosted(hosted):
                    await self.commits.abandon(hosted, reason)

            await self.commits.serialized(hosted, work)
            gone.append(hosted.match_id)
        return gone

    async def unload_idle(self, now: float) -> list[str]:
        """One pass of :meth:`unload_finished`; returns the ids of the matches unloaded."""
        gone: list[str] = []
        for hosted in list(self.matches.values()):
            if (
                hosted.ended
                and now - hosted.last_used >= self.finished_ttl_s
                and not hosted.sessions
                and not hosted.lock.locked()
            ):
                if self.leases is not None:  # before _drop, which forgets the revision
                    with contextlib.suppress(Exception):  # else it expires by itself
                        await self.leases.release(hosted.match_id)
                self._drop(hosted)
                gone.append(hosted.match_id)
        if gone:
            log.info("unloaded %d finished match(es): %s", len(gone), ", ".join(gone))
        return gone

    async def summaries(
        self, page_size: int = 0, after: str = "", status: int = 0
    ) -> tuple[list[MatchSummary], str]:
        """One page of the registered matches with ``status`` (0: any), by id after
        ``after``, and the id to continue after ("" on the last page).  Ones hosted
        elsewhere are read from NATS, not taken."""
        size = min(page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        ids = sorted(i for i in set(await self.bus.match_ids()) | set(self.matches) if i > after)
        out: list[MatchSummary] = []
        for n, match_id in enumerate(ids):
            if len(out) == size:
                return out, ids[n - 1]
            hosted = self.matches.get(match_id)
            if hosted is not None:
                summary = MatchSummary.of(
                    match_id,
                    hosted.config.lineup,
                    hosted.state,
                    hosted.abandoned,
                    hosted.seats,
                    hosted.seed_fixed,
                )
            else:
                loaded = await load_match(self.bus, match_id)
                if loaded is None:
                    continue
                summary = MatchSummary.of(
                    match_id,
                    loaded.config.lineup,
                    loaded.state,
                    loaded.abandoned,
                    loaded.seats,
                    loaded.seed_fixed,
                )
            if not status or summary.status == status:
                out.append(summary)
        return out, ""

    async def resume(self) -> None:
        """After a (re)start: load every match with a clock or standing answers, so its
        deadlines and automatic answers go on without waiting for a client to touch it
        (a finished match is loaded, seen to be over, and left alone)."""
        with_standing = set(await self.bus.standing_match_ids())
        for match_id in await self.bus.match_ids():
            if match_id in self.matches or self.draining:
                continue
            try:
                if match_id not in with_standing:
                    record = await self.bus.get_match(match_id) or {}
                    clock = record.get("clock")
                    clocked = isinstance(clock, dict) and ClockConfig.from_record(clock).enabled
                    if not clocked and not record.get("bots"):
                        continue
                await self.get(match_id)
            except NotOwner:
                # A live orchestrator runs it -- or a dead one whose lease has not expired
                # yet: keep_leases tries again until somebody (maybe us) owns it.
                self._unclaimed.add(match_id)
            except Exception:
                log.warning("could not resume match %s", match_id, exc_info=True)

    def _is_hosted(self, hosted: HostedMatch) -> bool:
        return self.matches.get(hosted.match_id) is hosted

    def _drop(self, hosted: HostedMatch) -> None:
        """Forget a match another orchestrator now writes (it is reloaded on next use)."""
        if self.matches.get(hosted.match_id) is hosted:
            self.matches.pop(hosted.match_id, None)
        if self.leases is not None:
            self.leases.held.pop(hosted.match_id, None)
        if hosted.referee is not None and hosted.referee is not asyncio.current_task():
            hosted.referee.cancel()

    async def drain(self) -> None:
        """Before the grace period: stop the referees (another orchestrator, or this one
        after its restart, resumes them from the stream) and end every bot stream and
        watch with UNAVAILABLE, so clients reconnect instead of holding the shutdown."""
        self.draining = True
        for hosted in list(self.matches.values()):
            if hosted.referee is not None:
                hosted.referee.cancel()
            for session in list(hosted.sessions.values()):
                session.close(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
            async with hosted.changed:
                hosted.changed.notify_all()

    async def close(self) -> None:
        for hosted in list(self.matches.values()):
            if hosted.referee is not None:
                hosted.referee.cancel()
        if self.leases is not None:  # let another orchestrator take over at once
            await self.leases.release_all()
        self.decisions.close()
        await self.commits.close()
