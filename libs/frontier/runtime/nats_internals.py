"""Every use of nats-py's internals in Frontier, behind a small typed API.

Two hops of nats-py sit on the path of every accepted command (its JetStream publish and the
acknowledgement it waits for), each a loop iteration behind everything else ready -- on a
loaded orchestrator, a long queue:

- ``Client.publish`` appends the message to a buffer and wakes the client's flusher task,
  which writes the buffer out on the loop's next iteration.  :func:`write_now` hands the
  message to the socket in the caller's step instead, when nothing is buffered before it
  (so the order of messages is kept).
- a message for a subscription with a callback is queued for the subscription's own task,
  which runs the callback on a later iteration.  :func:`settle_on_arrival` hands each
  message to a function as the client parses it instead.

And when the connection is lost, :func:`fail_waiting_requests` fails nats-py's own requests
still waiting for an answer at once, rather than each at the end of its timeout.

They rely on nats-py's private attributes -- the client's ``_transport`` (the socket
writer) and ``_resp_map`` (its waiting requests), a subscription's ``_pending_queue`` and
``_pending_size`` -- and on its protocol
module (``nats.protocol.command``) to write the bytes nats-py would write.  nats-py is
pinned in constraints.txt, and tests/unit/runtime/test_nats_internals.py pins each of these
behaviours on the installed version, so an upgrade that changes one fails there, loudly.
At run time each function checks what it needs and, when it is missing or the connection is
not in the plain connected state (reconnecting: nats-py buffers), leaves nats-py's own path
in place, so what a caller sees -- messages, answers, errors -- is the same either way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Protocol

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.protocol import command as protocol


class _Writer(Protocol):
    """What :func:`write_now` needs of nats-py's transport."""

    def writelines(self, payload: list[bytes]) -> None: ...


def write_now(
    nc: Client,
    subject: str,
    payload: bytes,
    reply: str = "",
    headers: Mapping[str, str] | None = None,
) -> bool:
    """Write one message to ``nc``'s socket now, byte for byte as ``nc.publish`` would
    queue it, and count it in ``nc.stats`` as nats-py does; False (nothing done) when it
    cannot be written now -- something is buffered before it, the connection is not
    plainly connected, the payload is over the server's limit, or a header needs nats-py's
    checks or cleaning -- and the caller should ``await nc.publish(...)`` instead."""
    transport: _Writer | None = getattr(nc, "_transport", None)
    if (
        transport is None
        or nc.pending_data_size != 0
        or not nc.is_connected
        or nc.is_draining_pubs
        or len(payload) > nc.max_payload
    ):
        return False
    if headers:
        lines = [b"NATS/1.0\r\n"]
        for key, value in headers.items():
            if not _plain(key) or value != value.strip() or "\r" in value or "\n" in value:
                return False
            lines.append(f"{key}: {value}\r\n".encode())
        lines.append(b"\r\n")
        message = protocol.hpub_cmd(subject, reply, b"".join(lines), payload)
    else:
        message = protocol.pub_cmd(subject, reply, payload)
    try:
        transport.writelines([message])
    except OSError:
        return False  # nats-py's path meets the error and reconnects
    nc.stats["out_msgs"] += 1
    nc.stats["out_bytes"] += len(payload)
    return True


def _plain(key: str) -> bool:
    """Whether ``key`` is a header name nats-py would send as it is (letters, digits, ``-_.``).
    The names are a handful of constants: each is checked once."""
    if key in _PLAIN_KEYS:
        return True
    plain = bool(key) and key.isascii() and all(c.isalnum() or c in "-_." for c in key)
    if plain and len(_PLAIN_KEYS) < 64:
        _PLAIN_KEYS.add(key)
    return plain


_PLAIN_KEYS: set[str] = set()


def fail_waiting_requests(nc: Client, error: Callable[[], Exception]) -> int:
    """Fail every ``nc.request`` still waiting for its answer with ``error()``; how many.
    nats-py keeps those futures in the client's ``_resp_map`` (token -> future); without
    it (another nats-py) nothing is done and each request waits out its own timeout."""
    waiting = getattr(nc, "_resp_map", None)
    if not isinstance(waiting, dict):
        return 0
    failed = 0
    for future in list(waiting.values()):
        if isinstance(future, asyncio.Future) and not future.done():
            future.set_exception(error())
            failed += 1
    return failed


def settle_on_arrival(subscription: Subscription, settle: Callable[[Msg], None]) -> bool:
    """Hand each message of ``subscription`` (one made with a callback) to ``settle`` as the
    client parses it, rather than queueing it for the subscription's task; False (nothing
    changed: the callback keeps receiving them) when the subscription lacks what this needs.
    The subscription's task then waits on a queue nothing fills, until it ends; nats-py
    keeps the same subscription object across a reconnect, so this holds after one."""
    if not isinstance(getattr(subscription, "_pending_queue", None), asyncio.Queue):
        return False
    if not isinstance(getattr(subscription, "_pending_size", None), int):
        return False
    subscription._pending_queue = SettlingQueue(subscription, settle)  # type: ignore[assignment]
    return True


def settles_on_arrival(subscription: Subscription) -> bool:
    """Whether :func:`settle_on_arrival` holds for ``subscription``."""
    return isinstance(getattr(subscription, "_pending_queue", None), SettlingQueue)


class SettlingQueue:
    """Stands for a subscription's queue of pending messages: each message put is handed to
    ``settle`` at once (and no longer counted as pending, as the subscription's task would
    do when it takes one), so the queue is always empty and nats-py never counts its
    subscription as a slow consumer."""

    def __init__(self, subscription: Subscription, settle: Callable[[Msg], None]) -> None:
        self.subscription = subscription
        self.settle = settle

    def put_nowait(self, msg: Msg) -> None:
        self.subscription._pending_size -= len(msg.data)
        self.settle(msg)

    async def get(self) -> Msg:
        """What the subscription's task waits on: nothing ever comes (it is cancelled when
        the subscription ends)."""
        await asyncio.get_running_loop().create_future()
        raise AssertionError("never settled")

    def qsize(self) -> int:
        return 0

    def empty(self) -> bool:
        return True

    def task_done(self) -> None:
        return None

    async def join(self) -> None:
        return None
