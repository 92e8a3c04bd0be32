"""Lookups of match ids that name no match cost nothing that stays: anyone may send millions,
so neither a well-formed unknown id nor a malformed one may leave an entry behind, and
concurrent lookups of one id still load it once."""

from __future__ import annotations

import asyncio
from typing import cast

import grpc
import pytest

from frontier.orchestrator.match_host import MatchHost
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError


class UnknownMatches:
    """The one Bus call a lookup of an unknown id makes; lookups wait on ``gate`` so that
    the test can hold many of them in flight at once."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.asked: list[str] = []

    async def get_match(self, match_id: str) -> dict[str, object] | None:
        self.asked.append(match_id)
        await self.gate.wait()
        return None


def host_over(bus: UnknownMatches) -> MatchHost:
    return MatchHost(cast(Bus, bus), on_hosted=lambda hosted: None)


async def lookup(host: MatchHost, match_id: str) -> grpc.StatusCode:
    with pytest.raises(ServiceError) as caught:
        await host.get(match_id)
    return caught.value.code


async def test_unknown_ids_leave_no_loading_entry_behind() -> None:
    bus = UnknownMatches()
    host = host_over(bus)
    ids = [f"{n:032x}" for n in range(2000)]
    lookups = [asyncio.create_task(lookup(host, i)) for i in ids]
    while len(bus.asked) < len(ids):  # every lookup is in flight, holding its entry
        await asyncio.sleep(0)
    assert len(host._loading) == len(ids)
    bus.gate.set()
    codes = await asyncio.gather(*lookups)
    assert set(codes) == {grpc.StatusCode.NOT_FOUND}
    assert host._loading == {}
    assert host.matches == {}


async def test_concurrent_lookups_of_one_id_share_its_entry_and_free_it() -> None:
    bus = UnknownMatches()
    host = host_over(bus)
    match_id = "b" * 32
    lookups = [asyncio.create_task(lookup(host, match_id)) for _ in range(50)]
    while not bus.asked:
        await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert list(host._loading) == [match_id]
    assert host._loading[match_id].users == 50
    bus.gate.set()
    await asyncio.gather(*lookups)
    assert host._loading == {}


async def test_a_cancelled_lookup_frees_its_entry() -> None:
    bus = UnknownMatches()
    host = host_over(bus)
    task = asyncio.create_task(host.get("c" * 32))
    while not bus.asked:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert host._loading == {}


@pytest.mark.parametrize("match_id", ["", "x" * 10_000, "../../etc", "A" * 32])
async def test_malformed_ids_are_refused_before_any_lookup(match_id: str) -> None:
    bus = UnknownMatches()
    host = host_over(bus)
    assert await lookup(host, match_id) is grpc.StatusCode.NOT_FOUND
    assert bus.asked == []
    assert host._loading == {}
