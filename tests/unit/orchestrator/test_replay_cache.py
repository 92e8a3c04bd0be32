"""An ended match's replay is computed once per reader: concurrent requests share the one
computation, later ones are served from the table, the table stays within its bound, and a
failed computation is not kept."""

from __future__ import annotations

import asyncio

import pytest

from frontier.orchestrator.replay_cache import ReplayCache


class Computation:
    """A replay computation the test releases by hand, counting its runs."""

    def __init__(self, text: str = "{}") -> None:
        self.text = text
        self.runs = 0
        self.release = asyncio.Event()
        self.fail = False

    async def __call__(self) -> str:
        self.runs += 1
        await self.release.wait()
        if self.fail:
            raise RuntimeError("the stream went away")
        return self.text


async def test_concurrent_requests_share_one_computation() -> None:
    cache = ReplayCache()
    compute = Computation('{"batches": []}')
    waiting = [asyncio.create_task(cache.get(("m", "spectator"), compute)) for _ in range(200)]
    await asyncio.sleep(0)
    compute.release.set()
    assert set(await asyncio.gather(*waiting)) == {'{"batches": []}'}
    assert compute.runs == 1
    # and later ones come from the table
    again = Computation("never computed")
    assert await cache.get(("m", "spectator"), again) == '{"batches": []}'
    assert again.runs == 0


async def test_each_reader_has_its_own_replay() -> None:
    cache = ReplayCache()
    for reader, text in (("A1", "a1's"), ("spectator", "public")):
        compute = Computation(text)
        compute.release.set()
        assert await cache.get(("m", reader), compute) == text
    assert cache.chars == len("a1's") + len("public")


async def test_a_caller_that_goes_away_does_not_cancel_the_others() -> None:
    cache = ReplayCache()
    compute = Computation("replay")
    first = asyncio.create_task(cache.get(("m", "B2"), compute))
    second = asyncio.create_task(cache.get(("m", "B2"), compute))
    await asyncio.sleep(0)
    first.cancel()
    compute.release.set()
    assert await second == "replay"
    with pytest.raises(asyncio.CancelledError):
        await first
    assert compute.runs == 1


async def test_a_failed_computation_is_not_kept() -> None:
    cache = ReplayCache()
    compute = Computation("replay")
    compute.fail = True
    compute.release.set()
    with pytest.raises(RuntimeError):
        await cache.get(("m", "A1"), compute)
    compute.fail = False
    assert await cache.get(("m", "A1"), compute) == "replay"
    assert compute.runs == 2


async def test_the_table_keeps_the_most_recent_within_its_bound() -> None:
    cache = ReplayCache(max_chars=10)
    for match in ("m1", "m2", "m3"):
        compute = Computation("x" * 4)
        compute.release.set()
        await cache.get((match, "spectator"), compute)
    assert cache.chars == 8  # m1 went, the two most recent stay
    recomputed = Computation("y" * 4)
    recomputed.release.set()
    assert await cache.get(("m1", "spectator"), recomputed) == "yyyy"
    assert recomputed.runs == 1
    too_big = Computation("z" * 11)
    too_big.release.set()
    assert await cache.get(("m4", "spectator"), too_big) == "z" * 11
    assert cache.chars <= 10
