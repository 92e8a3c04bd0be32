"""What the server lists -- the match ids (ListMatches, and the matches resumed after a
restart), the host keys (``frontier keys list``), the arena's bots and matches -- is every
entry stored, also while others are being written: read from each bucket stream's own list
of subjects (``ListedKeyValue``), not from nats-py's watcher, which may end its replay before
it has seen them all (an operator's ``frontier keys list`` once missed a key just made)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from nats.js.errors import KeyNotFoundError, NoKeysError

from frontier.runtime.bus import Bus
from frontier.runtime.stream_subjects import ListedKeyValue
from frontier.store.host_keys import HostKeyStore, Quotas

from .test_jetstream_startup import Nats

STORED = 300  # entries stored before the listings
LISTINGS = 15  # listings made while more entries are written


async def listed_while_writing(
    stored: list[str],
    listing: Callable[[], Awaitable[list[str]]],
    write: Callable[[], Awaitable[str]],
) -> None:
    """List ``LISTINGS`` times while ``write`` adds entries: each listing holds ``stored``
    and every entry written before it; at the end, exactly everything."""
    written: list[str] = []
    stop = asyncio.Event()

    async def write_more() -> None:
        while not stop.is_set():
            written.append(await write())

    writing = asyncio.create_task(write_more())
    try:
        for _ in range(LISTINGS):
            before = set(written)
            listed = await listing()
            assert listed == sorted(listed)
            assert set(stored) <= set(listed), f"{len(set(stored) - set(listed))} missing"
            assert before <= set(listed)
            await asyncio.sleep(0)
    finally:
        stop.set()
        await writing
    assert written, "nothing was written meanwhile"
    assert await listing() == sorted([*stored, *written])


async def test_every_stored_match_is_listed_while_matches_are_being_written(
    jetstream_server: Nats,
) -> None:
    bus = await Bus.connect(jetstream_server.url)
    writer_bus = await Bus.connect(jetstream_server.url)
    try:
        stored = [f"{n:032x}" for n in range(STORED)]
        await asyncio.gather(*(bus.put_match(match_id, {"n": 1}) for match_id in stored))
        count = iter(range(10**9))

        async def write() -> str:
            match_id = f"f{next(count):031x}"
            await writer_bus.put_match(match_id, {"n": 2})
            return match_id

        await listed_while_writing(stored, bus.match_ids, write)
    finally:
        await writer_bus.close()
        await bus.close()


async def test_every_host_key_is_listed_while_keys_are_being_made(
    jetstream_server: Nats,
) -> None:
    bus = await Bus.connect(jetstream_server.url)
    writer_bus = await Bus.connect(jetstream_server.url)
    try:
        bucket = await bus.host_keys_bucket()  # what HostKeyStore.all() lists
        store = HostKeyStore(bucket)
        writer = HostKeyStore(await writer_bus.host_keys_bucket())
        stored = [(await store.create(f"k{n}", Quotas()))[0].key_id for n in range(STORED)]

        async def write() -> str:
            return (await writer.create("more", Quotas()))[0].key_id

        await listed_while_writing(stored, bucket.keys, write)
        assert len(await store.all()) == len(await bucket.keys())
    finally:
        await writer_bus.close()
        await bus.close()


async def test_an_empty_bucket_lists_nothing_and_a_deleted_key_reads_as_missing(
    jetstream_server: Nats,
) -> None:
    bus = await Bus.connect(jetstream_server.url)
    try:
        assert await bus.match_ids() == []
        bucket = await bus.arena_bucket()
        assert isinstance(bucket, ListedKeyValue)
        with pytest.raises(NoKeysError):
            await bucket.keys()
        await bucket.put("bot.a", b"1")
        await bucket.put("match.b", b"2")
        await bucket.delete("match.b")
        assert await bucket.keys() == ["bot.a", "match.b"]  # a delete leaves its subject
        assert await bucket.keys(filters=["bot."]) == ["bot.a"]
        with pytest.raises(KeyNotFoundError):
            await bucket.get("match.b")
        assert (await bucket.get("bot.a")).value == b"1"
    finally:
        await bus.close()
