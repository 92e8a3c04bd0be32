"""What runtime/nats_internals.py relies on in nats-py, pinned on the installed version.

Each test names one internal behaviour the adapter uses and checks it on a real
``nats.aio.client.Client`` (never connected: a fake transport stands for the socket), so a
nats-py upgrade that renames an attribute, changes its type or its meaning, or writes other
bytes fails here rather than quietly sending every message down the slower path (or worse).
"""

from __future__ import annotations

import asyncio
from typing import Any

import nats.errors
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.protocol import command as protocol

from frontier.runtime import nats_internals
from frontier.runtime.nats_internals import (
    SettlingQueue,
    fail_waiting_requests,
    settle_on_arrival,
    settles_on_arrival,
    write_now,
)


class _Transport:
    """Stands for nats-py's transport: records what is written."""

    def __init__(self, fail: bool = False) -> None:
        self.written: list[bytes] = []
        self.fail = fail

    def writelines(self, payload: list[bytes]) -> None:
        if self.fail:
            raise ConnectionResetError("the socket is gone")
        self.written.extend(payload)


def _connected(transport: _Transport | None = None) -> Client:
    """A client in the state nats-py gives a live connection: connected, a transport."""
    nc = Client()
    nc._status = Client.CONNECTED
    nc._transport = transport or _Transport()  # type: ignore[assignment]
    return nc


async def _as_nats_py_sends(
    subject: str, payload: bytes, reply: str, headers: dict[str, str] | None
) -> bytes:
    """The bytes nats-py's own publish path queues for the message."""
    nc = Client()
    await nc._send_publish(subject, reply, payload, len(payload), headers)
    return b"".join(nc._pending)


# ----- what the adapter reads and writes on the client ---------------------------------------


def test_a_new_client_has_no_transport_and_nothing_buffered() -> None:
    nc = Client()
    assert hasattr(nc, "_transport") and nc._transport is None
    assert nc.pending_data_size == 0
    assert isinstance(nc.max_payload, int) and nc.max_payload > 0
    assert nc.stats["out_msgs"] == 0 and nc.stats["out_bytes"] == 0


async def test_pending_data_size_counts_what_nats_py_buffered() -> None:
    nc = Client()
    await nc._send_publish("s", "", b"abc", 3, None)
    assert nc.pending_data_size == len(b"".join(nc._pending)) > 0


def _states(nc: Client) -> tuple[bool, bool]:
    return nc.is_connected, nc.is_draining_pubs


def test_the_states_write_now_checks_are_nats_py_properties() -> None:
    nc = Client()
    assert _states(nc) == (False, False)
    nc._status = Client.CONNECTED
    assert _states(nc) == (True, False)
    nc._status = Client.DRAINING_PUBS
    assert _states(nc) == (True, True)


@pytest.mark.parametrize(
    ("reply", "headers"),
    [
        ("", None),
        ("the.reply", None),
        ("the.reply", {"Nats-Msg-Id": "m:1", "Nats-Expected-Last-Subject-Sequence": "0"}),
        ("", {"traceparent": "00-abc-def-01"}),
    ],
)
async def test_write_now_writes_the_bytes_nats_py_would(
    reply: str, headers: dict[str, str] | None
) -> None:
    transport = _Transport()
    nc = _connected(transport)
    assert write_now(nc, "frontier.match.m.events", b"payload", reply, headers)
    assert transport.written == [
        await _as_nats_py_sends("frontier.match.m.events", b"payload", reply, headers)
    ]
    assert nc.stats["out_msgs"] == 1 and nc.stats["out_bytes"] == len(b"payload")


def test_the_protocol_module_builds_pub_and_hpub() -> None:
    assert protocol.pub_cmd("s", "r", b"xy") == b"PUB s r 2\r\nxy\r\n"
    header = b"NATS/1.0\r\nK: v\r\n\r\n"
    expected = b"HPUB s r %d %d\r\n" % (len(header), len(header) + 2) + header + b"xy\r\n"
    assert protocol.hpub_cmd("s", "r", header, b"xy") == expected


async def test_write_now_declines_whenever_nats_py_must_handle_the_message() -> None:
    nc = Client()  # not connected, no transport
    assert not write_now(nc, "s", b"x")
    nc = _connected()
    await nc._send_publish("s", "", b"first", 5, None)  # something buffered before it
    assert not write_now(nc, "s", b"x")
    nc = _connected()
    assert not write_now(nc, "s", b"x" * (nc.max_payload + 1))
    for headers in ({"Bad Key": "v"}, {"K": "two\r\nlines"}, {"K": " padded "}, {"": "v"}):
        assert not write_now(nc, "s", b"x", headers=headers)
    nc._status = Client.DRAINING_PUBS
    assert not write_now(nc, "s", b"x")
    assert nc.stats["out_msgs"] == 0


def test_write_now_declines_when_the_socket_fails() -> None:
    nc = _connected(_Transport(fail=True))
    assert not write_now(nc, "s", b"x")
    assert nc.stats["out_msgs"] == 0


def test_header_names_are_remembered_only_when_plain() -> None:
    assert nats_internals._plain("Nats-Msg-Id") and "Nats-Msg-Id" in nats_internals._PLAIN_KEYS
    assert not nats_internals._plain("Bad Key")
    assert "Bad Key" not in nats_internals._PLAIN_KEYS


# ----- what the adapter replaces on a subscription --------------------------------------------


async def _subscribed(nc: Client, seen: list[Msg]) -> Subscription:
    """A callback subscription made by nats-py's own subscribe (no server: nothing is
    flushed while disconnected)."""
    nc._flush_queue = asyncio.Queue()

    async def callback(msg: Msg) -> None:
        seen.append(msg)

    return await nc.subscribe("answers.*", cb=callback)


async def test_a_subscription_queues_its_messages_as_the_adapter_expects() -> None:
    """Without the adapter: the client puts each parsed message on ``_pending_queue`` (an
    asyncio.Queue) and counts its bytes in ``_pending_size`` until the task takes it."""
    nc = Client()
    seen: list[Msg] = []
    sub = await _subscribed(nc, seen)
    assert isinstance(sub._pending_queue, asyncio.Queue)
    assert isinstance(sub._pending_size, int) and sub._pending_size == 0
    sub._stop_processing()  # the task would take the message: keep it queued to look at it
    await nc._process_msg(sub._id, b"answers.1", b"", b"four", b"")
    assert sub._pending_queue.qsize() == 1 and sub._pending_size == 4
    assert sub.pending_bytes == 4 and sub.pending_msgs == 1


async def test_settle_on_arrival_hands_each_parsed_message_over_at_once() -> None:
    nc = Client()
    callback_saw: list[Msg] = []
    sub = await _subscribed(nc, callback_saw)
    settled: list[Msg] = []
    assert settle_on_arrival(sub, settled.append)
    assert settles_on_arrival(sub) and isinstance(sub._pending_queue, SettlingQueue)
    await nc._process_msg(sub._id, b"answers.7", b"", b"data", b"")
    # settled in the client's own step, not counted as pending, the callback never called
    assert [(m.subject, m.data) for m in settled] == [("answers.7", b"data")]
    assert sub.pending_bytes == 0 and sub.pending_msgs == 0
    for _ in range(3):
        await asyncio.sleep(0)  # the subscription's task runs: it has nothing to take
    assert callback_saw == []
    await sub.unsubscribe()  # its task, waiting on the stand-in, ends with it
    task: Any = sub._wait_for_msgs_task
    assert isinstance(task, asyncio.Task)
    await asyncio.wait([task])


def test_settle_on_arrival_leaves_a_subscription_it_does_not_recognise() -> None:
    class _Other:
        _pending_queue: Any = None
        _pending_size: Any = 0

    other: Any = _Other()
    assert not settle_on_arrival(other, lambda msg: None)
    assert other._pending_queue is None and not settles_on_arrival(other)


# ----- a lost connection's waiting requests --------------------------------------------------


class _Lost(nats.errors.TimeoutError):
    pass


class _FlushingTransport(_Transport):
    """A transport nats-py's own flush can use too."""

    def write(self, payload: bytes) -> None:
        self.written.append(payload)

    async def drain(self) -> None:
        return None


async def test_a_waiting_request_is_in_resp_map_and_failing_it_ends_the_request() -> None:
    nc = _connected(_FlushingTransport())
    nc._flush_queue = asyncio.Queue()  # what connect() gives it (no flusher task reads it)
    request = asyncio.ensure_future(nc.request("s", b"x", timeout=600))
    while not nc._resp_map and not request.done():  # published, waiting for its answer
        await asyncio.sleep(0)
    assert not request.done(), request
    assert fail_waiting_requests(nc, _Lost) == 1
    with pytest.raises(nats.errors.TimeoutError):  # nats-py's own, for any timeout
        await asyncio.wait_for(request, 10)
    assert fail_waiting_requests(nc, _Lost) == 0  # nothing waits any more


def test_fail_waiting_requests_does_nothing_without_resp_map() -> None:
    nc = Client()
    del nc._resp_map
    assert fail_waiting_requests(nc, _Lost) == 0
