"""Who may host and how much: host keys checked (cached briefly), and each host's quotas
counted in windows of an injected clock (no sleeping), one key never limiting another."""

from __future__ import annotations

import types
from dataclasses import replace

import grpc
import limits.storage.memory
import pytest

from frontier.orchestrator.host_keys import LOCAL, Host, HostAccess, Limits
from frontier.runtime.errors import ServiceError, retry_delay_in, trailer_of
from frontier.store.host_keys import HostKey, InvalidHostKey, Quotas, new_key, parse

DEFAULTS = Limits(matches_hosted=3, creates_per_minute=2, bot_seats=4, bot_cpu_s_per_hour=10.0)


class Clock:
    """The wall clock of the limits library's windows and of the retry delays."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(limits.storage.memory, "time", types.SimpleNamespace(time=fake))
    return fake


class FakeStore:
    """The key bucket in memory; counts lookups, to see the cache at work."""

    def __init__(self) -> None:
        self.records: dict[str, HostKey] = {}
        self.lookups = 0

    def add(self, name: str, quotas: Quotas | None = None) -> str:
        record, key = new_key(name, quotas or Quotas())
        self.records[record.key_id] = record
        return key

    async def check(self, key: str) -> HostKey | None:
        self.lookups += 1
        try:
            key_id, secret = parse(key)
        except InvalidHostKey:
            return None
        record = self.records.get(key_id)
        ok = record is not None and not record.revoked and record.matches(secret)
        return record if ok else None


def access_of(
    store: FakeStore, clock: Clock, anonymous: Limits | None = None, cache_s: float = 2.0
) -> HostAccess:
    return HostAccess("keys", store, DEFAULTS, anonymous, cache_s, clock)  # type: ignore[arg-type]


def refusal(call: object, *args: object) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value


async def test_without_a_key_unauthenticated_and_with_a_bad_one_permission_denied(clock: Clock):
    store = FakeStore()
    access = access_of(store, clock)
    with pytest.raises(ServiceError) as none:
        await access.host_for("", "ipv4:10.0.0.7:5000")
    assert none.value.code is grpc.StatusCode.UNAUTHENTICATED
    assert none.value.reason == "HOST_KEY_REQUIRED"
    for bad in ("garbage", "fk_0123456789ab_wrongwrongwrongwrong", store.add("a") + "x"):
        with pytest.raises(ServiceError) as denied:
            await access.host_for(bad, "ipv4:10.0.0.7:5000")
        assert denied.value.code is grpc.StatusCode.PERMISSION_DENIED
        assert denied.value.reason == "UNKNOWN_HOST_KEY"


async def test_a_keys_own_quotas_override_the_defaults(clock: Clock):
    store = FakeStore()
    key = store.add("big", Quotas(matches_hosted=50, bot_cpu_s_per_hour=0.5))
    host = await access_of(store, clock).host_for(key, "ipv4:10.0.0.7:5000")
    assert host.limits == replace(DEFAULTS, matches_hosted=50, bot_cpu_s_per_hour=0.5)


async def test_lookups_are_cached_so_a_revocation_takes_effect_after_the_cache_time(clock: Clock):
    store = FakeStore()
    key = store.add("a")
    access = access_of(store, clock, cache_s=60.0)
    await access.host_for(key, "p")
    store.records[parse(key)[0]] = replace(store.records[parse(key)[0]], revoked=True)
    await access.host_for(key, "p")  # still cached
    assert store.lookups == 1
    fresh = access_of(store, clock, cache_s=0.0)  # no cache: the revocation is seen at once
    with pytest.raises(ServiceError, match="revoked"):
        await fresh.host_for(key, "p")


async def test_local_mode_checks_nothing_and_counts_nothing(clock: Clock):
    access = HostAccess("local", None, DEFAULTS)
    assert await access.host_for("", "p") is LOCAL
    for _ in range(10):
        access.check_create(LOCAL, hosted=100, bot_seats=100, adding_bots=6)


def test_a_creation_flood_hits_creates_per_minute_with_a_retry_delay_and_spares_other_keys(
    clock: Clock,
):
    access = access_of(FakeStore(), clock)
    a, b = Host("a", DEFAULTS), Host("b", DEFAULTS)
    access.check_create(a, 0, 0, 0)
    clock.now += 10
    access.check_create(a, 1, 0, 0)
    flood = refusal(access.check_create, a, 2, 0, 0)
    assert flood.code is grpc.StatusCode.RESOURCE_EXHAUSTED and flood.reason == "QUOTA_EXCEEDED"
    assert flood.metadata == {"quota": "creates_per_minute", "limit": "2"}
    # the moving window frees 60 s after the first creation, 10 s ago
    assert flood.retry_after_s == pytest.approx(50.0)
    assert retry_delay_in(trailer_of(flood)) == pytest.approx(50.0)
    access.check_create(b, 0, 0, 0)  # another key creates at once
    clock.now += 50.5
    access.check_create(a, 2, 0, 0)  # the window moved past the first creation


def test_unfinished_matches_and_bot_seats_are_capped(clock: Clock):
    access = access_of(FakeStore(), clock)
    host = Host("a", DEFAULTS)
    hosted = refusal(access.check_create, host, 3, 0, 0)
    assert hosted.metadata == {"quota": "matches_hosted", "limit": "3"}
    seats = refusal(access.check_create, host, 1, 3, 2)
    assert seats.metadata == {"quota": "bot_seats", "limit": "4"}
    access.check_bots(host, 3, 1)  # exactly the limit


def test_bot_cpu_past_the_hour_refuses_new_bot_seats_until_the_window_frees(clock: Clock):
    access = access_of(FakeStore(), clock)
    a, b = Host("a", DEFAULTS), Host("b", DEFAULTS)
    access.charge_cpu(a, 6.0)
    assert not access.cpu_spent(a)
    access.charge_cpu(a, 6.0)  # 12 s of 10: spent
    assert access.cpu_spent(a) and not access.cpu_spent(b)
    spent = refusal(access.check_bots, a, 0, 1)
    assert spent.metadata == {"quota": "bot_cpu", "limit": "10"}
    assert 0 < (spent.retry_after_s or 0) <= 3600
    access.check_bots(b, 0, 1)
    clock.now += 3601
    assert not access.cpu_spent(a)


async def test_the_anonymous_tier_counts_per_client_address(clock: Clock):
    anonymous = Limits(matches_hosted=1, creates_per_minute=1, bot_seats=0, bot_cpu_s_per_hour=1)
    access = access_of(FakeStore(), clock, anonymous)
    first = await access.host_for("", "ipv4:10.0.0.7:5000")
    again = await access.host_for("", "ipv4:10.0.0.7:6000")  # a new connection, same client
    other = await access.host_for("", "ipv6:[::1]:5000")
    assert first == again and first.host_id == "anon:10.0.0.7" and other.host_id == "anon:::1"
    access.check_create(first, 0, 0, 0)
    assert refusal(access.check_create, again, 0, 0, 0).metadata["quota"] == "creates_per_minute"
    access.check_create(other, 0, 0, 0)
    assert access.host_of("anon:10.0.0.7").limits == anonymous
