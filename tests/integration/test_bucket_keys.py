"""The keys of the server's KV buckets (host keys, the arena's bots and matches, standing
answers) are every key stored, also while other keys are being written: ``Bus`` opens each
bucket as a ``ListedKeyValue``, whose ``keys()`` is the stream's own list of subjects, not a
watcher that may end its replay before it has seen them all (an operator's
``frontier keys list`` once missed a key just created)."""

from __future__ import annotations

import asyncio

import pytest
from nats.js.errors import KeyNotFoundError, NoKeysError

from frontier.runtime.bus import Bus
from frontier.runtime.stream_subjects import ListedKeyValue
from frontier.store.host_keys import HostKeyStore, Quotas

from .test_jetstream_startup import Nats

STORED = 300  # keys made before the listings
LISTINGS = 15  # listings made while more keys are made


async def test_every_host_key_is_listed_while_keys_are_being_made(
    jetstream_server: Nats,
) -> None:
    bus = await Bus.connect(jetstream_server.url)
    writer_bus = await Bus.connect(jetstream_server.url)
    try:
        bucket = await bus.host_keys_bucket()
        store = HostKeyStore(bucket)
        writer = HostKeyStore(await writer_bus.host_keys_bucket())
        made = [(await store.create(f"k{n}", Quotas()))[0].key_id for n in range(STORED)]
        more: list[str] = []
        stop = asyncio.Event()

        async def make_more() -> None:
            while not stop.is_set():
                record, _ = await writer.create("more", Quotas())
                more.append(record.key_id)

        making = asyncio.create_task(make_more())
        try:
            for _ in range(LISTINGS):
                before = set(more)
                listed = set(await bucket.keys())  # what store.all() reads
                assert set(made) <= listed, f"{len(set(made) - listed)} missing"
                assert before <= listed
                await asyncio.sleep(0)
        finally:
            stop.set()
            await making
        assert more, "nothing was made meanwhile"
        assert sorted(k.key_id for k in await store.all()) == sorted([*made, *more])
    finally:
        await writer_bus.close()
        await bus.close()


async def test_an_empty_bucket_has_no_keys_and_a_deleted_key_reads_as_missing(
    jetstream_server: Nats,
) -> None:
    bus = await Bus.connect(jetstream_server.url)
    try:
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
