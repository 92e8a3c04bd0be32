"""runtime/answers.py and runtime/nats_internals.py against a real nats-server: a message
written at once arrives exactly as nats-py would have sent it, only when nothing is buffered
before it (the order of messages is kept); an answer settles its request without the
subscription's task, and is not left counted as pending (which would end in nats-py
dropping answers as a slow consumer); after a reconnect both still hold."""

from __future__ import annotations

import asyncio

import nats
import pytest

from frontier.bench import publish as bench_publish
from frontier.runtime.answers import Answers
from frontier.runtime.bus import Bus
from frontier.runtime.errors import NATS_UNREACHABLE
from frontier.runtime.nats_internals import settles_on_arrival, write_now

from .test_jetstream_startup import Nats
from .test_publish_outcomes import _batch

pytestmark = pytest.mark.integration


async def test_a_message_is_written_now_only_when_nothing_is_buffered(
    jetstream_server: Nats,
) -> None:
    nc = await nats.connect(jetstream_server.url)
    reader = await nats.connect(jetstream_server.url)
    try:
        got = await reader.subscribe("direct.>")
        await reader.flush()
        await nc.flush()
        headers = {"Nats-Msg-Id": "m:1", "Nats-Expected-Last-Subject-Sequence": "0"}
        assert write_now(nc, "direct.a", b"one", "the.reply", headers)
        assert nc.pending_data_size == 0  # nothing went through nats-py's buffer
        msg = await got.next_msg(timeout=2)
        assert (msg.subject, msg.data, msg.reply) == ("direct.a", b"one", "the.reply")
        assert msg.headers == headers
        # something buffered first: not written now, so it cannot overtake
        await nc.publish("direct.b", b"buffered")
        assert not write_now(nc, "direct.c", b"later")
        await nc.publish("direct.c", b"later")
        assert [(await got.next_msg(timeout=2)).data for _ in range(2)] == [b"buffered", b"later"]
        # a header nats-py must check or clean is left to it
        await nc.flush()
        assert not write_now(nc, "direct.d", b"x", headers={"Bad\nKey": "v"})
        assert not write_now(nc, "direct.d", b"x", headers={"Key": "two\r\nlines"})
        assert write_now(nc, "direct.e", b"")
        assert (await got.next_msg(timeout=2)).data == b""
    finally:
        await nc.close()
        await reader.close()


async def test_answers_settle_as_they_are_parsed_and_after_a_reconnect(
    jetstream_server: Nats,
) -> None:
    server = jetstream_server
    bus = await Bus.connect(server.url, timeout_s=2.0)
    try:
        await asyncio.gather(*(bus.publish_batch(_batch(f"m{n}", 1, "c"), 0) for n in range(30)))
        answers = bus._answers
        assert isinstance(answers, Answers) and answers._subscription is not None
        subscription = answers._subscription
        assert settles_on_arrival(subscription)
        assert subscription.pending_bytes == 0 and subscription.pending_msgs == 0
        assert answers._waiting == {}
        # the server restarts: nats-py reconnects and subscribes again, answers still settle
        server.stop()
        server.start(jetstream=True)
        seq = 0
        for _ in range(100):  # until nats-py reconnected and JetStream is ready again
            try:
                seq = await bus.publish_batch(_batch("after", 1, "c"), 0)
                break
            except NATS_UNREACHABLE:
                await asyncio.sleep(0.1)
        assert seq >= 1
        assert answers._subscription is subscription  # subscribed again, the same object
        assert settles_on_arrival(subscription)
        assert subscription.pending_bytes == 0 and answers._waiting == {}
    finally:
        await bus.close()


async def test_the_publish_bench_publishes_every_batch_it_times(jetstream_server: Nats) -> None:
    """``frontier bench publish``: every publish it times is one batch in the stream, in
    order on each match's subject."""

    async def run() -> list[list[int]]:
        wall_us, cpu_us = await bench_publish.publish_round(jetstream_server.url, 40, 4)
        assert wall_us > 0 and cpu_us >= 0
        bus = await Bus.connect(jetstream_server.url, timeout_s=2.0)
        try:
            return [
                [s.batch.envelopes[0].seq for s in await bus.read_batches(f"bench{lane}")]
                for lane in range(4)
            ]
        finally:
            await bus.close()

    # one warm-up publish per match, then 10 rounds of 4 at once: 11 batches each
    assert await run() == [[1 + 4 * n for n in range(11)]] * 4
