"""The match ids the server lists (ListMatches, and the matches resumed after a restart) are
every match stored, also while other matches are being written: read from the bucket
stream's own list of subjects, not from a watcher that may stop before it has seen them
all."""

from __future__ import annotations

import asyncio

from frontier.runtime.bus import Bus

from .test_jetstream_startup import Nats

STORED = 400  # matches stored before the listings
LISTINGS = 15  # listings made while more matches are written


async def test_every_stored_match_is_listed_while_matches_are_being_written(
    jetstream_server: Nats,
) -> None:
    bus = await Bus.connect(jetstream_server.url)
    writer_bus = await Bus.connect(jetstream_server.url)
    try:
        stored = [f"{n:032x}" for n in range(STORED)]
        await asyncio.gather(*(bus.put_match(match_id, {"n": 1}) for match_id in stored))
        written: list[str] = []
        stop = asyncio.Event()

        async def write_more() -> None:
            while not stop.is_set():
                match_id = f"f{len(written):031x}"
                await writer_bus.put_match(match_id, {"n": 2})
                written.append(match_id)

        writing = asyncio.create_task(write_more())
        try:
            for _ in range(LISTINGS):
                before = set(written)
                listed = await bus.match_ids()
                assert listed == sorted(listed)
                assert set(stored) <= set(listed), f"{len(set(stored) - set(listed))} missing"
                assert before <= set(listed)
                await asyncio.sleep(0)
        finally:
            stop.set()
            await writing
        assert written, "nothing was written meanwhile"
        assert await bus.match_ids() == sorted([*stored, *written])
    finally:
        await writer_bus.close()
        await bus.close()


async def test_an_empty_bucket_lists_no_match(jetstream_server: Nats) -> None:
    bus = await Bus.connect(jetstream_server.url)
    try:
        assert await bus.match_ids() == []
    finally:
        await bus.close()
