"""A batch's publish against a real nats-server: every outcome ``Bus.publish_batch`` tells.

Why this is tested on its own: the publish reads JetStream's acknowledgement itself
(``Bus._js_publish``, not ``JetStreamContext.publish``), and the commit path's guarantees
rest on what it makes of each answer -- a new batch's stream sequence; the same batch
published again after an unknown outcome recognised as already in (a duplicate, or the
expected sequence already passed), never stored twice; another writer's batch at that
position a WriterConflict; an error answer raised as JetStream's error class; no stream
for the subject NoStreamResponseError (one of the "outcome unknown" errors the commit path
publishes again after).
"""

from __future__ import annotations

import asyncio

import nats
import pytest
from nats.js.api import StreamConfig
from nats.js.errors import BadRequestError, NoStreamResponseError

from frontier.runtime.bus import ALL_EVENTS, Bus, WriterConflict, events_subject
from frontier.v1 import events_pb2

from .test_jetstream_startup import Nats

pytestmark = pytest.mark.integration


def _batch(match_id: str, seq: int, command_id: str) -> events_pb2.EventBatch:
    batch = events_pb2.EventBatch(match_id=match_id, command_id=command_id)
    batch.envelopes.add(match_id=match_id, seq=seq, state_version=seq)
    return batch


async def _outcomes(server: Nats) -> None:
    bus = await Bus.connect(server.url, timeout_s=2.0)
    try:
        first = _batch("m", 1, "c1")
        seq = await bus.publish_batch(first, 0)
        assert seq >= 1
        # the same batch again (its first answer was lost): a duplicate of the same bytes
        assert await bus.publish_batch(first, 0) == seq
        # another batch with the same message id: another writer's
        with pytest.raises(WriterConflict):
            await bus.publish_batch(_batch("m", 1, "other"), 0)
        second = _batch("m", 2, "c2")
        seq2 = await bus.publish_batch(second, seq)
        assert seq2 > seq
        # a batch at a position another batch holds, with a new message id: a conflict
        with pytest.raises(WriterConflict):
            await bus.publish_batch(_batch("m", 3, "c3"), seq)
        # one batch per message: the stream holds exactly the two
        stored = await bus.read_batches("m")
        assert [(s.stream_seq, s.batch) for s in stored] == [(seq, first), (seq2, second)]
        # an error answer is raised as JetStream's error class, with its codes
        with pytest.raises(BadRequestError) as refused:
            await bus._js_publish(
                events_subject("m"), b"x", {"Nats-Expected-Stream": "NOT_THIS_ONE"}
            )
        assert refused.value.code == 400 and refused.value.err_code
        # a subject no stream takes: no answer from JetStream, the publish is retried
        with pytest.raises(NoStreamResponseError):
            await bus._js_publish("no.stream.here", b"x", {})
    finally:
        await bus.close()


async def test_every_publish_outcome_is_told_apart(jetstream_server: Nats) -> None:
    await _outcomes(jetstream_server)


async def _after_the_duplicate_window(server: Nats) -> None:
    """Once the duplicate window has passed, the expected sequence tells the outcome: the
    batch published again with the position it expected is found in the stream after it."""
    nc = await nats.connect(server.url)
    await nc.jetstream().add_stream(
        StreamConfig(name="FRONTIER_EVENTS", subjects=[ALL_EVENTS], duplicate_window=0.2)
    )
    await nc.close()
    bus = await Bus.connect(server.url, timeout_s=2.0)
    try:
        first = _batch("m", 1, "c1")
        seq = await bus.publish_batch(first, 0)
        await asyncio.sleep(0.5)  # the message id is forgotten
        assert await bus.publish_batch(first, 0) == seq
        with pytest.raises(WriterConflict):  # another batch there: another writer's
            await bus.publish_batch(_batch("m", 1, "other"), 0)
        assert [s.stream_seq for s in await bus.read_batches("m")] == [seq]
    finally:
        await bus.close()


async def test_a_batch_published_again_after_the_duplicate_window_is_not_stored_twice(
    jetstream_server: Nats,
) -> None:
    await _after_the_duplicate_window(jetstream_server)


async def _answers_find_their_requests(server: Nats) -> None:
    """Many publishes at once each get their own answer (the reply subject names it), and
    a request nobody answers times out and leaves nothing waiting behind."""
    bus = await Bus.connect(server.url, timeout_s=2.0)
    try:
        batches = [_batch(f"m{n}", 1, f"c{n}") for n in range(40)]
        seqs = await asyncio.gather(*(bus.publish_batch(b, 0) for b in batches))
        assert len(set(seqs)) == len(seqs)
        for batch, seq in zip(batches, seqs, strict=True):
            assert [(s.stream_seq, s.batch) for s in await bus.read_batches(batch.match_id)] == [
                (seq, batch)
            ]
        silent = await bus.nc.subscribe("silent.subject")  # takes it, never answers
        answers = bus._answers
        assert answers is not None
        with pytest.raises(nats.errors.TimeoutError):
            await answers.request("silent.subject", b"x", {}, 0.2)
        assert answers._waiting == {}
        await silent.unsubscribe()
    finally:
        await bus.close()


async def test_concurrent_publishes_get_their_own_answers_and_silence_times_out(
    jetstream_server: Nats,
) -> None:
    await _answers_find_their_requests(jetstream_server)
