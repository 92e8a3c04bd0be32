"""Helpers for the BotService, clock and secrecy tests: raw streams, watching, replaying."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc

from frontier.engine import Seat, State, decide, evolve, initial_state, make_config
from frontier.engine.model import Command
from frontier.v1 import bot_pb2, bot_pb2_grpc, events_pb2, match_pb2, match_pb2_grpc
from frontier.wire.convert import command_from_proto, enum_from_proto, event_from_proto

MIRROR = "A=marquise;B=marquise"


@dataclass
class Created:
    match_id: str
    tokens: dict[Seat, str]
    config: dict[str, Any]  # what make_config needs to replay it in-process


def create(
    stub: match_pb2_grpc.MatchServiceStub, seed: int, lineup: str = MIRROR, **extra: Any
) -> Created:
    """CreateMatch with a fixed seed (so the test can replay it in-process)."""
    config = match_pb2.MatchConfig(seed=seed, lineup=lineup, **extra)
    reply = stub.CreateMatch(match_pb2.CreateMatchRequest(config=config))
    values: dict[str, Any] = {"seed": seed, "lineup": lineup}
    for key in ("team_hands_visible", "max_rounds"):
        if extra.get(key):
            values[key] = extra[key]
    return Created(
        reply.match_id, {enum_from_proto(Seat, s.seat): s.token for s in reply.seats}, values
    )


def bot_processes(
    address: str, match: Created, kinds: dict[Seat, str], timeout: float = 120
) -> dict[Seat, dict[str, Any]]:
    """Play each seat with its own ``frontier bot --kind K --json`` process (the token from
    the environment) and return each process's JSON result once all have finished."""
    procs = {
        seat: subprocess.Popen(
            [
                str(Path(sys.executable).parent / "frontier"),
                *("bot", "--url", address, "--match", match.match_id, "--seat", seat.value),
                *("--kind", kinds[seat], "--json"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "FRONTIER_BOT_TOKEN": token},
        )
        for seat, token in match.tokens.items()
    }
    outputs: dict[Seat, dict[str, Any]] = {}
    for seat, proc in procs.items():
        out, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, err
        outputs[seat] = json.loads(out)
    return outputs


def watch(
    stub: match_pb2_grpc.MatchServiceStub, match_id: str, token: str = "", timeout: float = 60
) -> list[match_pb2.WatchEventsResponse]:
    """Every event until the match is over (the server ends the stream then)."""
    return list(
        stub.WatchEvents(
            match_pb2.WatchEventsRequest(match_id=match_id, seat_token=token), timeout=timeout
        )
    )


def records(replies: list[match_pb2.WatchEventsResponse]) -> list[events_pb2.DecisionRecord]:
    """The decision records of a watched match, in order (one per command batch)."""
    return [r.decision for r in replies if r.HasField("decision")]


def replay(
    config: dict[str, Any], stored: list[events_pb2.EventBatch]
) -> Iterator[tuple[events_pb2.EventBatch, Command, State, State]]:
    """(batch, command, state before, state after) for each committed batch, checking that
    the batch's events are exactly what the in-process engine decides for its command."""
    state = initial_state(make_config(**config))
    for batch in stored:
        cmd = command_from_proto(batch.command)
        before = state.clone()
        expected = decide(state, cmd)
        assert [event_from_proto(e.event) for e in batch.envelopes] == expected, cmd.key()
        assert [e.seq for e in batch.envelopes] == list(
            range(state.version + 1, state.version + 1 + len(expected))
        )
        for event in expected:
            evolve(state, event)
        yield batch, cmd, before, state.clone()


def wait_until(predicate: Any, timeout: float = 30, every: float = 0.05) -> None:
    """Poll ``predicate`` until it holds; ``timeout`` is a generous bound, never a measure."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        time.sleep(every)


async def wait_for(
    predicate: Callable[[], Awaitable[bool]],
    timeout: float = 30,
    every: float = 0.05,
    what: str = "condition not met in time",
) -> None:
    """Await ``predicate`` until it holds; ``timeout`` is a generous bound, never a measure."""
    deadline = time.monotonic() + timeout
    while not await predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(every)


class RawStream:
    """One BotService.Play stream driven message by message (no SDK), for protocol tests."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._out: asyncio.Queue[bot_pb2.PlayRequest | None] = asyncio.Queue()

    async def __aenter__(self) -> RawStream:
        self.channel = grpc.aio.insecure_channel(self.address)
        stub = bot_pb2_grpc.BotServiceStub(self.channel)
        self.call = stub.Play(self._requests())
        self._replies = self.call.__aiter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._out.put_nowait(None)
        self.call.cancel()
        await self.channel.close()

    async def _requests(self) -> AsyncIterator[bot_pb2.PlayRequest]:
        while (request := await self._out.get()) is not None:
            yield request

    def send(self, request: bot_pb2.PlayRequest) -> None:
        self._out.put_nowait(request)

    def hello(self, match_id: str, token: str) -> None:
        self.send(bot_pb2.PlayRequest(hello=bot_pb2.Hello(match_id=match_id, seat_token=token)))

    def answer(self, decision_id: str, command_id: str) -> None:
        self.send(
            bot_pb2.PlayRequest(
                answer=bot_pb2.Answer(decision_id=decision_id, command_id=command_id)
            )
        )

    async def next(self, timeout: float = 15) -> bot_pb2.PlayResponse:
        """The next message that is not a heartbeat."""
        while True:
            reply: bot_pb2.PlayResponse = await asyncio.wait_for(self._replies.__anext__(), timeout)
            if reply.WhichOneof("message") != "heartbeat":
                return reply

    async def expect(self, kind: str, timeout: float = 15) -> bot_pb2.PlayResponse:
        reply = await self.next(timeout)
        assert reply.WhichOneof("message") == kind, reply
        return reply
