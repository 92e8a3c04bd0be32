"""Where a SubmitCommand's wall time goes inside the orchestrator: a tool, not part of the product.

Put this directory on PYTHONPATH and set FRONTIER_PHASE_PROBE to a file name, then run a
bench (``frontier bench stack`` passes its environment to every process)::

    PYTHONPATH=bench/phase_probe FRONTIER_PHASE_PROBE=/tmp/phases.json \\
        frontier bench stack --matches 50 --think-ms 200 --json

Only the orchestrator is probed (the hook waits for ``frontier.orchestrator.main``).  Every
SubmitCommand gets a timeline, stamped with ``time.perf_counter_ns`` by wrappers around the
methods on its path, tied to the command by a context variable (and, across the domain
call stream's writer and reader tasks and nats-py's tasks, by the call id and the reply
subject); the file is rewritten every 5 s with the mean, p50 and p90 of each step's
share over every command so far:

  entered    handler entered                    (gRPC has parsed the request)
  locked     CommitPath.commit entered          (the work's task started, lock taken)
  queued     the first domain request queued    (CallStream.call)
  written    its write completed                (grpc aio's write awaited by the writer)
  read       its reply read                     (the stream's reader task)
  resumed    the commit path running again      (the domain call returned)
  published  the batch handed to nats-py
  answered   JetStream's ack settled            (the answers' callback)
  acked      the commit path running again      (publish_batch returned)
  committed  CommitPath.commit returned
  replied    the handler returned               (the reply goes to gRPC)

Why outside the product: each wrapper costs ~1-3 µs and a dict per command; a permanent
histogram by phase would be ~11 observations per command where round five removes
per-command work.  It works on main's code as on this branch's (it looks the names up).
"""

from __future__ import annotations

import contextvars
import importlib.abc
import importlib.util
import itertools
import json
import os
import sys
import threading
import time
from typing import Any

OUT = os.environ.get("FRONTIER_PHASE_PROBE", "")
PHASES = (
    "entered",
    "locked",
    "queued",
    "written",
    "read",
    "resumed",
    "published",
    "answered",
    "acked",
    "committed",
    "replied",
)
_now = time.perf_counter_ns
_current: contextvars.ContextVar[dict[str, int] | None] = contextvars.ContextVar(
    "_current", default=None
)
_done: list[dict[str, int]] = []
_by_call: dict[int, dict[str, int]] = {}
_by_reply: dict[str, dict[str, int]] = {}


def _stamp(record: dict[str, int] | None, phase: str) -> None:
    if record is not None and phase not in record:
        record[phase] = _now()


def _patch() -> None:
    from frontier.orchestrator import call_streams, commit, servicer
    from frontier.runtime import bus

    cls = servicer.MatchServicer
    submit = cls.SubmitCommand

    async def submit_command(self: Any, request: Any, context: Any) -> Any:
        record = {"entered": _now()}
        token = _current.set(record)
        try:
            return await submit(self, request, context)
        finally:
            record["replied"] = _now()
            _current.reset(token)
            if len(record) == len(PHASES):
                _done.append(record)

    cls.SubmitCommand = submit_command

    path = commit.CommitPath
    commit_fn = path.commit

    async def commit_wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        record = _current.get()
        _stamp(record, "locked")
        try:
            return await commit_fn(self, *args, **kwargs)
        finally:
            _stamp(record, "committed")

    path.commit = commit_wrapped

    stream = call_streams.CallStream
    init, call = stream.__init__, stream.call

    def init_wrapped(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        outbox, rpc = self._outbox, self._call
        put, write, read = outbox.put_nowait, rpc.write, rpc.read

        def put_wrapped(message: Any) -> None:
            if hasattr(message, "method"):  # an ExchangeRequest, not a write under way
                _queued(message)
            put(message)

        async def write_wrapped(message: Any) -> Any:
            try:
                return await write(message)
            finally:
                record = _by_call.get(message.id)
                _stamp(record, "written")

        async def read_wrapped() -> Any:
            reply = await read()
            record = _by_call.pop(getattr(reply, "id", -1), None)
            _stamp(record, "read")
            return reply

        if hasattr(self, "_send"):  # this branch's: a write may start at once
            send = self._send

            def send_wrapped(message: Any) -> None:
                _queued(message)
                send(message)

            self._send = send_wrapped
        else:
            outbox.put_nowait = put_wrapped
        rpc.write, rpc.read = write_wrapped, read_wrapped

    async def call_wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await call(self, *args, **kwargs)
        finally:
            _stamp(_current.get(), "resumed")

    stream.__init__, stream.call = init_wrapped, call_wrapped

    answers_cls = getattr(bus, "_Answers", None)
    if answers_cls is None:
        from frontier.runtime import answers

        answers_cls = answers.Answers
        settle_name = "_settle"
        publish = answers.publish

        async def publish_wrapped(
            nc: Any, subject: str, payload: bytes, reply: str = "", headers: Any = None
        ) -> None:
            _note_reply(reply)
            await publish(nc, subject, payload, reply, headers)

        answers.publish = publish_wrapped
    else:  # main's code: the request publishes through nats-py, the answer comes to a task
        settle_name = "_answered"
        from nats.aio.client import Client

        client_publish = Client.publish

        async def publish_noted(
            self: Any, subject: str, payload: bytes = b"", reply: str = "", headers: Any = None
        ) -> None:
            _note_reply(reply)
            await client_publish(self, subject, payload, reply=reply, headers=headers)

        Client.publish = publish_noted  # type: ignore[method-assign]
    settle = getattr(answers_cls, settle_name)

    if settle_name == "_settle":

        def settle_wrapped(self: Any, msg: Any) -> None:
            _stamp(_by_reply.pop(msg.subject, None), "answered")
            settle(self, msg)

        answers_cls._settle = settle_wrapped
    else:

        async def answered_wrapped(self: Any, msg: Any) -> None:
            _stamp(_by_reply.pop(msg.subject, None), "answered")
            await settle(self, msg)

        answers_cls._answered = answered_wrapped

    publish_batch = bus.Bus.publish_batch

    async def publish_batch_wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await publish_batch(self, *args, **kwargs)
        finally:
            _stamp(_current.get(), "acked")

    bus.Bus.publish_batch = publish_batch_wrapped
    threading.Thread(target=_report, daemon=True).start()


def _queued(message: Any) -> None:
    record = _current.get()
    if record is not None and "queued" not in record:
        record["queued"] = _now()
        _by_call[message.id] = record


def _note_reply(reply: str) -> None:
    record = _current.get()
    if reply and record is not None and "published" not in record:
        record["published"] = _now()
        _by_reply[reply] = record


def _report() -> None:
    while True:
        time.sleep(5)
        records = list(_done)
        if not records:
            continue
        summary: dict[str, Any] = {"commands": len(records)}
        for before, after in itertools.pairwise(PHASES):
            gaps = sorted((r[after] - r[before]) / 1000 for r in records)
            summary[f"{before}->{after}"] = {
                "mean_us": round(sum(gaps) / len(gaps), 1),
                "p50_us": round(gaps[len(gaps) // 2], 1),
                "p90_us": round(gaps[len(gaps) * 9 // 10], 1),
            }
        total = sorted((r["replied"] - r["entered"]) / 1000 for r in records)
        summary["total"] = {
            "mean_us": round(sum(total) / len(total), 1),
            "p50_us": total[len(total) // 2],
        }
        with open(OUT, "w") as out:
            json.dump(summary, out, indent=1)


class _Hook(importlib.abc.MetaPathFinder):
    """Patches once ``frontier.orchestrator.main`` is imported (only the orchestrator)."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "frontier.orchestrator.main":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader: Any = spec.loader
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            _patch()

        loader.exec_module = exec_module
        return spec


if OUT:
    sys.meta_path.insert(0, _Hook())
