"""Who may host: host keys checked on the host calls, and each host's quotas.

With ``FRONTIER_ACCESS=keys`` CreateMatch, AssignSeatBot, ReturnSeat and AbandonMatch need a
live host key in the ``x-frontier-host-key`` metadata (UNAUTHENTICATED HOST_KEY_REQUIRED
without one, PERMISSION_DENIED UNKNOWN_HOST_KEY for an unknown or revoked one), unless an
anonymous tier is configured: a call without a key is then served within the anonymous
quotas, counted per client address.  With ``FRONTIER_ACCESS=local`` (one person's laptop)
nothing is checked.

Lookups are cached for ``cache_s`` (2 s by default): a revoked key stops working within
that time on every orchestrator.  A host past one of its quotas is refused
RESOURCE_EXHAUSTED QUOTA_EXCEEDED with the quota's name and value in the ErrorInfo metadata
and a RetryInfo delay; another key is never affected.

What is counted where: the unfinished matches and bot seats of a key are counted over the
matches this orchestrator hosts (each match record names its key, so a match counts again
when it is loaded after a restart); creations per minute (a moving window) and bot CPU
seconds per hour (a fixed window) are counted per orchestrator in memory, with the
``limits`` library.  With N orchestrators a key may so reach up to N times a quota.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import grpc
from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter

from frontier.runtime.errors import GrpcContext, ServiceError
from frontier.runtime.metrics import HOST_BOT_CPU_SECONDS, QUOTA_REJECTIONS
from frontier.runtime.peer_address import client_address
from frontier.runtime.settings import HOST_KEY_METADATA
from frontier.store.host_keys import HostKey, HostKeyStore
from frontier.store.matches import token_hash

ANONYMOUS = "anon:"  # + the client's address: the host id of an anonymous caller
CACHE_ENTRIES = 4096  # lookups remembered at most (unknown keys included)
RETRY_HOSTED_S = 60.0  # no window frees a hosted match: its end does; look again later
CPU_MS = 1000  # the CPU window counts milliseconds (the limits library counts integers)

Access = Literal["keys", "local"]


@dataclass(frozen=True, slots=True)
class Limits:
    """One host's quotas."""

    matches_hosted: int
    creates_per_minute: int
    bot_seats: int
    bot_cpu_s_per_hour: float

    def overridden(self, key: HostKey) -> Limits:
        """These defaults with ``key``'s own quotas where it sets them."""
        q = key.quotas
        return Limits(
            self.matches_hosted if q.matches_hosted is None else q.matches_hosted,
            self.creates_per_minute if q.creates_per_minute is None else q.creates_per_minute,
            self.bot_seats if q.bot_seats is None else q.bot_seats,
            self.bot_cpu_s_per_hour if q.bot_cpu_s_per_hour is None else q.bot_cpu_s_per_hour,
        )


@dataclass(frozen=True, slots=True)
class Host:
    """Who makes a host call: a key id (or ``anon:<address>``) and its quotas; ``limits``
    None in local mode (nothing is counted)."""

    host_id: str = ""
    limits: Limits | None = None


LOCAL = Host()


def quota_exceeded(quota: str, limit: float, retry_after_s: float, what: str) -> ServiceError:
    QUOTA_REJECTIONS.labels(quota=quota).inc()
    shown_limit = f"{limit:g}"
    return ServiceError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"{what} (quota {quota} = {shown_limit}); retry in {math.ceil(retry_after_s)} s",
        "QUOTA_EXCEEDED",
        {"quota": quota, "limit": shown_limit},
        retry_after_s=retry_after_s,
    )


class HostAccess:
    """The host-key check of the host calls and the in-memory quota windows."""

    def __init__(
        self,
        access: Access,
        store: HostKeyStore | None,
        defaults: Limits,
        anonymous: Limits | None = None,
        cache_s: float = 2.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if access == "keys" and store is None:
            raise ValueError("FRONTIER_ACCESS=keys needs the host key store")
        self.access = access
        self.store = store
        self.defaults = defaults
        self.anonymous = anonymous  # None: no anonymous tier, a key is required
        self.cache_s = cache_s
        self.clock = clock  # wall clock, as the limits library's windows use
        self._cache: dict[str, tuple[float, HostKey | None]] = {}
        self._limits: dict[str, Limits] = {}  # host id -> quotas, as last looked up
        storage = MemoryStorage()
        self._moving = MovingWindowRateLimiter(storage)
        self._fixed = FixedWindowRateLimiter(storage)

    async def host_for(self, key: str, peer: str) -> Host:
        """The caller of a host call, from its key (``""``: none sent) and gRPC peer."""
        if self.access == "local":
            return LOCAL
        if not key:
            if self.anonymous is None:
                raise ServiceError(
                    grpc.StatusCode.UNAUTHENTICATED,
                    f"this server hosts matches for host keys only: send yours in the "
                    f"{HOST_KEY_METADATA!r} metadata (FRONTIER_HOST_KEY for the CLI)",
                    "HOST_KEY_REQUIRED",
                )
            return Host(ANONYMOUS + client_address(peer), self.anonymous)
        record = await self._lookup(key)
        if record is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "the host key is not one this server issued, or it was revoked",
                "UNKNOWN_HOST_KEY",
            )
        limits = self.defaults.overridden(record)
        if len(self._limits) >= CACHE_ENTRIES:
            self._limits.clear()
        self._limits[record.key_id] = limits
        return Host(record.key_id, limits)

    def host_of(self, host_id: str) -> Host:
        """The host a match's record names, with its quotas as last looked up (the
        defaults, or the anonymous tier's, before any call of the key here)."""
        if self.access == "local" or not host_id:
            return LOCAL
        if host_id.startswith(ANONYMOUS):
            return Host(host_id, self.anonymous or self.defaults)
        return Host(host_id, self._limits.get(host_id, self.defaults))

    async def _lookup(self, key: str) -> HostKey | None:
        """The live key (cached ``cache_s``, under the key's hash: the cache holds no key)."""
        assert self.store is not None
        digest = token_hash(key)
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now:
            return cached[1]
        record = await self.store.check(key)
        if len(self._cache) >= CACHE_ENTRIES:
            self._cache.clear()
        self._cache[digest] = (now + self.cache_s, record)
        return record

    # ----- quotas --------------------------------------------------------------------------
    def check_create(self, host: Host, hosted: int, bot_seats: int, adding_bots: int) -> None:
        """Refuse a new match past the host's quotas (``hosted``: its unfinished matches
        now, ``bot_seats``: their bot seats); count the creation when it may go on."""
        limits = host.limits
        if limits is None:
            return
        if hosted >= limits.matches_hosted:
            raise quota_exceeded(
                "matches_hosted",
                limits.matches_hosted,
                RETRY_HOSTED_S,
                f"this host key hosts {hosted} unfinished matches, its limit",
            )
        if adding_bots:
            self.check_bots(host, bot_seats, adding_bots)
        item = RateLimitItemPerMinute(limits.creates_per_minute)
        if limits.creates_per_minute < 1 or not self._moving.hit(item, "create", host.host_id):
            raise quota_exceeded(
                "creates_per_minute",
                limits.creates_per_minute,
                self._reset_in(self._moving, item, "create", host.host_id),
                "this host key created as many matches in the last minute as it may",
            )

    def check_bots(self, host: Host, bot_seats: int, adding: int) -> None:
        """Refuse ``adding`` bot seats past the bot seat quota or the hour's bot CPU."""
        limits = host.limits
        if limits is None:
            return
        if bot_seats + adding > limits.bot_seats:
            raise quota_exceeded(
                "bot_seats",
                limits.bot_seats,
                RETRY_HOSTED_S,
                f"this host key's unfinished matches have {bot_seats} bot seats, and "
                f"{adding} more would pass its limit",
            )
        if self.cpu_spent(host):
            raise quota_exceeded(
                "bot_cpu",
                limits.bot_cpu_s_per_hour,
                self._reset_in(self._fixed, _cpu_item(limits), "cpu", host.host_id),
                "this host key's bots spent their CPU seconds of the hour",
            )

    def charge_cpu(self, host: Host, seconds: float) -> None:
        """Count a bot decision's CPU seconds against its match's host."""
        if host.limits is None or seconds <= 0:
            return
        key = "anonymous" if host.host_id.startswith(ANONYMOUS) else host.host_id
        HOST_BOT_CPU_SECONDS.labels(key=key).inc(seconds)
        item = _cpu_item(host.limits)
        cost = max(1, round(seconds * CPU_MS))
        if not self._fixed.hit(item, "cpu", host.host_id, cost=cost):
            # over: the window is filled to its limit, so that cpu_spent sees it spent
            left = self._fixed.get_window_stats(item, "cpu", host.host_id).remaining
            if left > 0:
                self._fixed.hit(item, "cpu", host.host_id, cost=left)

    def cpu_spent(self, host: Host) -> bool:
        """Whether the host's bots spent the hour's CPU seconds (its bots then play the
        cheapest bot until the window frees)."""
        if host.limits is None:
            return False
        item = _cpu_item(host.limits)
        return not self._fixed.test(item, "cpu", host.host_id)

    def _reset_in(
        self,
        limiter: MovingWindowRateLimiter | FixedWindowRateLimiter,
        item: RateLimitItem,
        *identifiers: str,
    ) -> float:
        stats = limiter.get_window_stats(item, *identifiers)
        return max(1.0, stats.reset_time - self.clock())


async def caller(access: HostAccess | None, context: GrpcContext) -> Host:
    """Who makes a host call: the host key in its metadata checked (LOCAL without checks)."""
    if access is None:
        return LOCAL
    sent = (v for k, v in context.invocation_metadata() or () if k == HOST_KEY_METADATA)
    key = next(sent, "")
    return await access.host_for(key if isinstance(key, str) else "", context.peer())


def _cpu_item(limits: Limits) -> RateLimitItem:
    return RateLimitItemPerHour(max(1, round(limits.bot_cpu_s_per_hour * CPU_MS)))
