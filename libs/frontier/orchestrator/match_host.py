"""The matches this orchestrator hosts: creating, loading, leasing, unloading, recovering.

A match lives in memory (:class:`.hosted_match.HostedMatch`) while this process is its
single writer.  It comes in by :meth:`MatchHost.create_match`, or by :meth:`MatchHost.get`
on first use: its lease first (when several orchestrators share the matches; a live owner
elsewhere makes the request go there, :class:`.hosted_match.NotOwner`), then its record,
latest snapshot and the tail of its stream.  It leaves when another orchestrator took it (a
lost lease, a write conflict), when it is finished and unused for ``finished_ttl_s``, or
when the server drains.  After a restart, :meth:`MatchHost.resume` loads every match whose
clock or standing answers must go on without waiting for a client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field

import grpc

from frontier.engine import MatchConfig, Seat, initial_state, make_config
from frontier.engine.errors import InvalidConfig
from frontier.runtime.bus import Bus
from frontier.runtime.errors import NATS_UNREACHABLE, ServiceError, about, not_found
from frontier.runtime.failure_log import FailureLog
from frontier.store.matches import load_match, token_hash
from frontier.store.seats import SEAT_BOT, SEAT_HELD, SEAT_OPEN, SeatArrangement

from .host_keys import LOCAL, Host, HostAccess
from .hosted_match import HostedMatch, NotOwner, hosted_from, policies, valid_id
from .leases import Leases
from .match_summary import MatchSummary, taken_over
from .referee import ClockConfig
from .write_path import WritePath

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


@dataclass(slots=True)
class _LoadLock:
    """One match id's loading lock and how many callers hold or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class MatchHost:
    """The hosted matches by id: how each comes in (created, loaded, leased) and goes."""

    def __init__(
        self,
        bus: Bus,
        on_hosted: Callable[[HostedMatch], None],
        leases: Leases | None = None,
        finished_ttl_s: float = 300.0,
        max_matches: int = 1000,
        write_path: WritePath | None = None,
        access: HostAccess | None = None,
    ) -> None:
        self.bus = bus
        self.access = access  # host quotas (None: nothing counted, as in local mode)
        self.on_hosted = on_hosted  # a match came in (its referee starts if it needs one)
        self.finished_ttl_s = finished_ttl_s
        self.max_matches = max_matches  # unfinished matches hosted at most
        # Without leases (a single orchestrator, in tests) every match is ours.
        self.leases = leases
        self._unclaimed: set[str] = set()  # clocked matches whose lease another one held
        self.matches: dict[str, HostedMatch] = {}
        self._loading: dict[str, _LoadLock] = {}  # ids being loaded now (see _load_lock)
        self._waking: set[asyncio.Task[None]] = set()  # watchers of dropped matches
        self._failures = FailureLog(log)  # the renewal loop's: one line per outage
        self._creating = 0  # CreateMatch calls past the cap check, not in self.matches yet
        self._creating_by: dict[str, int] = {}  # the same, per host id
        self.draining = False
        # whether JetStream takes our writes (the orchestrator's, shared with its commit path)
        self.write_path = write_path or WritePath()

    async def create_match(
        self,
        seed: int,
        lineup: str,
        team_hands_visible: bool,
        max_rounds: int,
        clock: ClockConfig | None = None,
        setup: Mapping[Seat, tuple[str, str]] | None = None,
        host: Host = LOCAL,
    ) -> CreatedMatch:
        """A new match of ``host``, within its quotas; ``setup`` says, per seat,
        ``(mode, bot)`` with mode ``held`` (also every seat not in it), ``open`` or ``bot``
        (see :mod:`frontier.store.seats`)."""
        self.write_path.check()  # fail fast while JetStream takes no writes
        clock = clock or ClockConfig()
        setup = setup or {}
        values: dict[str, object] = {
            "seed": seed or secrets.randbelow(2**62) + 1,
            "team_hands_visible": team_hands_visible,
            "max_rounds": max_rounds or 6,
        }
        if lineup:
            values["lineup"] = lineup
        try:
            config = make_config(**values)
        except InvalidConfig as exc:  # the lineup or the round limit
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT, str(exc), "MALFORMED", about("config")
            ) from None
        if self.access is not None and host.limits is not None:  # no await till reserved
            hosted_now, bots_now = self.hosted_by(host.host_id)
            adding = sum(1 for mode, _ in setup.values() if mode == SEAT_BOT)
            self.access.check_create(host, hosted_now, bots_now, adding)
        self._reserve_slot()  # before the first await: see _reserve_slot
        self._creating_by[host.host_id] = self._creating_by.get(host.host_id, 0) + 1
        try:
            hosted, created = await self._create(config, bool(seed), clock, setup, host.host_id)
        finally:
            self._creating -= 1
            self._creating_by[host.host_id] -= 1
            if not self._creating_by[host.host_id]:
                del self._creating_by[host.host_id]
        # no await since the slot was given back: the match now counts in self.matches
        self.matches[hosted.match_id] = hosted
        self.on_hosted(hosted)
        await self.bus.lobby(
            {"event": "created", "match_id": hosted.match_id, "lineup": config.lineup}
        )
        return created

    def hosted_by(self, host_id: str) -> tuple[int, int]:
        """The unfinished matches of ``host_id`` on this orchestrator (with those being
        created) and their bot seats (a bot playing a person's seat counts as one)."""
        mine = [h for h in self.matches.values() if h.host_id == host_id and not h.ended]
        bots = sum(len(h.seats.bots) + len(h.seats.standins) for h in mine)
        return len(mine) + self._creating_by.get(host_id, 0), bots

    def _reserve_slot(self) -> None:
        """Count one more match being created, or refuse it at the cap.

        The check and the reservation happen with no await between them, and the slot is
        held until the match is in ``self.matches`` (or its creation failed): concurrent
        CreateMatch calls, each awaiting NATS in between, cannot all pass one check and
        overshoot FRONTIER_MAX_MATCHES together."""
        # counted only near the limit: a scan of every hosted match on each creation is a
        # visible share of the CPU while many matches are being created
        playing = len(self.matches) + self._creating
        if playing >= self.max_matches:
            playing = sum(1 for h in self.matches.values() if not h.ended) + self._creating
        if playing >= self.max_matches:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this server hosts {playing} unfinished matches, its limit "
                "(FRONTIER_MAX_MATCHES): try again once some have ended",
                "TOO_MANY_MATCHES",
            )
        self._creating += 1

    async def _create(
        self,
        config: MatchConfig,
        seed_fixed: bool,
        clock: ClockConfig,
        setup: Mapping[Seat, tuple[str, str]],
        host_id: str = "",
    ) -> tuple[HostedMatch, CreatedMatch]:
        """The match's record and lease in NATS, and its state (its slot is reserved)."""
        state = initial_state(config)
        for seat in setup:
            if seat not in state.order:
                raise ServiceError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"seat_setup names seat {seat.value}, which the lineup leaves empty",
                    "MALFORMED",
                    about("seat_setup.seat"),
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
            "seed_fixed": seed_fixed,  # GetMatchInfo: the creator may know the deal
            "host_key": host_id,  # whose quotas it counts in, also after a restart
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
            seed_fixed=seed_fixed,
            host_id=host_id,
        )
        hosted.delay_spectators(state)  # a new match: spectators see it set up at once
        return hosted, CreatedMatch(match_id, tokens, invites, host_token)

    async def get(self, match_id: str) -> HostedMatch:
        """The hosted match, loaded (and its lease taken) on first use; NotOwner when a live
        orchestrator elsewhere holds it.  One held in memory is handed out only while its
        lease is trusted (:meth:`.leases.Leases.trusted`); after a pause past the lease's
        lifetime it is confirmed first, and one lost meanwhile is dropped and asked for
        afresh, so no answer comes from a memory another writer has moved past."""
        hosted = self.matches.get(match_id)
        if hosted is not None and not self._trusted(match_id):
            await self._revalidate(hosted)
            hosted = self.matches.get(match_id)
        if hosted is not None:
            hosted.touch()
            return hosted
        if not valid_id(match_id):
            raise not_found(match_id)
        async with self._load_lock(match_id):
            hosted = self.matches.get(match_id)
            if hosted is None:
                if await self.bus.get_match(match_id) is None:
                    raise not_found(match_id)
                await self._own(match_id)
                loaded = await load_match(self.bus, match_id)
                if loaded is None:
                    raise not_found(match_id)
                hosted = hosted_from(match_id, loaded)
                # idle since its last batch was stored (the idle timeout survives restarts)
                last_ms = await self.bus.last_write_unix_ms(match_id)
                if last_ms:
                    hosted.idle_since(last_ms)
                for seat in hosted.state.order:
                    stored = await self.bus.get_standing(match_id, seat.value)
                    if stored:
                        hosted.set_standing(seat, policies(stored))
                self.matches[match_id] = hosted
                self.on_hosted(hosted)
        return hosted

    @property
    def loading(self) -> Mapping[str, object]:
        """The ids being looked up or loaded now (a live view, for the metrics)."""
        return self._loading

    @contextlib.asynccontextmanager
    async def _load_lock(self, match_id: str) -> AsyncIterator[None]:
        """Serialise the loads of one match.  The entry lives only while somebody loads or
        waits: lookups of ids that name no match (anyone can send millions) leave nothing
        behind."""
        entry = self._loading.get(match_id)
        if entry is None:
            entry = self._loading[match_id] = _LoadLock()
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if not entry.users:
                del self._loading[match_id]

    def _trusted(self, match_id: str) -> bool:
        """Whether nobody else can have written ``match_id`` since we last knew its lease
        ours (always, without leases: then every match is ours)."""
        return self.leases is None or self.leases.trusted(match_id)

    async def _revalidate(self, hosted: HostedMatch) -> None:
        """Confirm that ``hosted``'s lease is still ours (one compare-and-set), or drop the
        match; UNAVAILABLE when NATS cannot tell: an answer from memory might be stale."""
        assert self.leases is not None  # every match is trusted without leases
        try:
            ours = await self.leases.confirm(hosted.match_id)
        except NATS_UNREACHABLE as exc:
            raise ServiceError(
                grpc.StatusCode.UNAVAILABLE,
                "this orchestrator could not renew its lease on the match in time and NATS "
                "did not confirm it since: retry",
                "SERVER_UNAVAILABLE",
            ) from exc
        if not ours:
            log.warning("lost the lease of %s while not renewing it; dropping it", hosted.match_id)
            self.drop(hosted)

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
                except Exception as exc:
                    self._failures.failed("resume", "resuming unclaimed matches", exc)
                    continue
                self._unclaimed.discard(match_id)
            try:
                lost = await self.leases.heartbeat()
            except Exception as exc:  # NATS briefly away: keep trying until the leases expire
                self._failures.failed("renew", "renewing the leases", exc)
                continue
            self._failures.recovered("renew", "renewing the leases")
            for match_id in lost:
                hosted = self.matches.get(match_id)
                if hosted is not None:
                    log.warning("lost the lease of %s; dropping it", match_id)
                    self.drop(hosted)

    async def unload_idle(self, now: float) -> list[str]:
        """Forget the finished matches nobody used for ``finished_ttl_s``; returns their ids.

        A finished match is only read (views, WatchEvents, replays), and everything it holds
        (its state, the events of the whole match, command ids) is in NATS, where :meth:`get`
        finds it again on the next use.  Without this a long-running orchestrator would keep
        every match it ever hosted in memory."""
        gone: list[str] = []
        for hosted in list(self.matches.values()):
            if (
                hosted.ended
                and now - hosted.last_used >= self.finished_ttl_s
                and not hosted.sessions
                and not hosted.lock.locked()
            ):
                if self.leases is not None:  # before drop, which forgets the revision
                    with contextlib.suppress(Exception):  # else it expires by itself
                        await self.leases.release(hosted.match_id)
                self.drop(hosted)
                gone.append(hosted.match_id)
        if gone:
            log.info("unloaded %d finished match(es): %s", len(gone), ", ".join(gone))
        return gone

    async def summaries(
        self, page_size: int = 0, after: str = "", status: int = 0
    ) -> tuple[list[MatchSummary], str]:
        """One page of the registered matches with ``status`` (0: any), by id after
        ``after``, and the id to continue after ("" on the last page).  Ones hosted
        elsewhere, and ours whose lease is not trusted just now, are read from NATS, not
        taken."""
        size = min(page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        ids = sorted(i for i in set(await self.bus.match_ids()) | set(self.matches) if i > after)
        out: list[MatchSummary] = []
        for n, match_id in enumerate(ids):
            if len(out) == size:
                return out, ids[n - 1]
            hosted = self.matches.get(match_id)
            if hosted is not None and self._trusted(match_id):
                summary = MatchSummary.of(
                    match_id,
                    hosted.config.lineup,
                    hosted.spectator_state(),
                    hosted.abandoned,
                    hosted.seats,
                    hosted.seed_fixed,
                    hosted.taken_over(),
                )
            else:
                loaded = await load_match(self.bus, match_id)
                if loaded is None:
                    continue
                clock = ClockConfig.from_record(loaded.clock)
                delayed = clock.spectator_delay_s and not (loaded.state.over or loaded.abandoned)
                summary = MatchSummary.of(
                    match_id,
                    loaded.config.lineup,
                    initial_state(loaded.config) if delayed else loaded.state,
                    loaded.abandoned,
                    loaded.seats,
                    loaded.seed_fixed,
                    taken_over(loaded.clocks, clock.takeover_bot),
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
                    if not clocked and not record.get("bots") and not record.get("standins"):
                        continue
                await self.get(match_id)
            except NotOwner:
                # A live orchestrator runs it -- or a dead one whose lease has not expired
                # yet: keep_leases tries again until somebody (maybe us) owns it.
                self._unclaimed.add(match_id)
            except Exception:
                log.warning("could not resume match %s", match_id, exc_info=True)

    def is_hosted(self, hosted: HostedMatch) -> bool:
        """Whether ``hosted`` is still ours (not dropped or unloaded meanwhile)."""
        return self.matches.get(hosted.match_id) is hosted

    def drop(self, hosted: HostedMatch) -> None:
        """Forget a match another orchestrator now writes (it is reloaded on next use), and
        end the streams that follow it here."""
        if self.matches.get(hosted.match_id) is hosted:
            self.matches.pop(hosted.match_id, None)
        if self.leases is not None:
            self.leases.forget(hosted.match_id)
        hosted.stop_referee()
        self._wake_watchers(hosted)

    def _wake_watchers(self, hosted: HostedMatch) -> None:
        """Let the watches and bot streams of a dropped match see that it is gone (they end
        UNAVAILABLE and the clients connect again, forwarded to the new owner) instead of
        waiting for what now comes only from elsewhere."""
        for session in list(hosted.sessions.values()):
            session.close(
                grpc.StatusCode.UNAVAILABLE,
                "the match moved to another orchestrator; connect again",
            )

        async def wake() -> None:
            async with hosted.changed:
                hosted.changed.notify_all()

        try:
            task = asyncio.get_running_loop().create_task(wake())
        except RuntimeError:  # no loop (dropped at shutdown): nobody is watching
            return
        self._waking.add(task)
        task.add_done_callback(self._waking.discard)

    async def drain(self) -> None:
        """Before the grace period: stop the referees (another orchestrator, or this one
        after its restart, resumes them from the stream) and end every bot stream and
        watch with UNAVAILABLE, so clients reconnect instead of holding the shutdown."""
        self.draining = True
        for hosted in list(self.matches.values()):
            hosted.stop_referee()
            for session in list(hosted.sessions.values()):
                session.close(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
            async with hosted.changed:
                hosted.changed.notify_all()

    async def close(self) -> None:
        for hosted in list(self.matches.values()):
            hosted.stop_referee()
        if self.leases is not None:  # let another orchestrator take over at once
            await self.leases.release_all()
