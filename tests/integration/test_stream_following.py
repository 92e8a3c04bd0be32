"""Following the stream in rounds (follow.py) and catching a match up through one consumer.

Why this is tested: scoring's scoreboard and projection follow every batch with a pull
consumer that has no acknowledgements, so nothing on the server remembers what it handed on;
the follower itself must never skip a batch nor hand one on twice, also when nats-server
restarts and forgets the consumer.  And a projection's catch-up (``Bus.batches_after``) must
read exactly the batches after a stream position, as ``iter_batches`` does.
"""

from __future__ import annotations

import asyncio

import pytest

from frontier.runtime.bus import Bus, events_subject
from frontier.v1 import events_pb2

from .test_jetstream_startup import Nats  # one nats-server that can be restarted

pytestmark = pytest.mark.integration


def _batch(match_id: str, seq: int) -> events_pb2.EventBatch:
    batch = events_pb2.EventBatch(match_id=match_id)
    batch.envelopes.add(seq=seq)
    return batch


async def _publish(bus: Bus, match_id: str, first: int, count: int) -> None:
    for seq in range(first, first + count):
        await bus.js.publish(events_subject(match_id), _batch(match_id, seq).SerializeToString())


async def _until(check: object, timeout_s: float = 20.0) -> None:
    assert callable(check)
    for _ in range(int(timeout_s / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


async def _follow_across_a_restart(server: Nats) -> None:
    bus = await Bus.connect(server.url, timeout_s=2.0)
    seen: list[tuple[str, int, int]] = []

    async def handler(stream_seq: int, batch: events_pb2.EventBatch) -> None:
        seen.append((batch.match_id, batch.envelopes[0].seq, stream_seq))

    await _publish(bus, "old", 1, 3)  # before the follower started: not handed on
    follower = await bus.follow_all(handler)
    await _publish(bus, "a", 1, 40)
    await _publish(bus, "b", 1, 30)
    await follower.sync()  # everything stored before it is handed on when it returns
    assert [s for m, s, _ in seen if m == "a"] == list(range(1, 41))
    assert [s for m, s, _ in seen if m == "b"] == list(range(1, 31))
    assert not [m for m, _, _ in seen if m == "old"]

    server.stop()  # the server forgets the follower's consumer (kept in memory only)
    server.start(jetstream=True)
    await _until(lambda: bus.nc.is_connected)
    for _ in range(100):  # JetStream answers again once it has recovered the stream
        try:
            await _publish(bus, "a", 41, 5)
            break
        except Exception:
            await asyncio.sleep(0.1)
    await _until(lambda: len([1 for m, _, _ in seen if m == "a"]) >= 45)
    await follower.sync()
    stream_seqs = [q for _, _, q in seen]
    assert [s for m, s, _ in seen if m == "a"] == list(range(1, 46))  # none missed, none twice
    assert stream_seqs == sorted(set(stream_seqs))
    await bus.close()


async def test_the_follower_hands_on_every_batch_once_also_after_nats_restarts(
    jetstream_server: Nats,
) -> None:
    await _follow_across_a_restart(jetstream_server)


async def _catch_up(server: Nats) -> None:
    bus = await Bus.connect(server.url, timeout_s=2.0)
    await _publish(bus, "m", 1, 300)  # more than one fetch (CATCH_UP_FETCH)
    await _publish(bus, "other", 1, 5)
    expected = [(s.stream_seq, s.batch) for s in await bus.read_batches("m", 0)]
    assert len(expected) == 300
    after = expected[9][0]
    got = [(s.stream_seq, s.batch) async for s in bus.batches_after("m", after)]
    assert got == expected[10:]
    assert [s async for s in bus.batches_after("m", expected[-1][0])] == []
    assert [s async for s in bus.batches_after("unknown", 0)] == []
    await bus.close()


async def test_a_catch_up_reads_exactly_the_batches_after_a_position(
    jetstream_server: Nats,
) -> None:
    await _catch_up(jetstream_server)
