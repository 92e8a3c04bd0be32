"""The canary match of ``frontier bench public``: one match played at a human-ish pace, whose
command latency says what a player feels while the public load runs.

Like :func:`frontier.play.load.play_match` (seeded random legal choices, a think time before
each command) but it also notes, per command, when it was submitted and which versions it
produced, so that a watcher's receipt of an event can be dated from the submit of the command
that produced it (an event envelope carries no time).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from frontier.engine.rng import below, seed_state
from frontier.play.load import THINK_SALT, think_time
from frontier.v1 import match_pb2, match_pb2_grpc

TIMEOUT_S = 30.0


@dataclass
class Canary:
    match_id: str = ""
    latencies_ms: list[float] = field(default_factory=list)
    # per command: (monotonic submit time, version before it, version after it)
    submits: list[tuple[float, int, int]] = field(default_factory=list)
    finished: bool = False

    def submitted_at(self) -> dict[int, float]:
        """When the command that produced each event seq was submitted."""
        out: dict[int, float] = {}
        for at, before, after in self.submits:
            for seq in range(before + 1, after + 1):
                out[seq] = at
        return out


async def play(
    stub: match_pb2_grpc.MatchServiceAsyncStub,
    seed: int,
    lineup: str,
    think_s: float,
    commands: int,
    seconds: float,
    created: Callable[[str, int], Awaitable[None]] | None = None,
) -> Canary:
    """Create a match and play up to ``commands`` commands of it (or for ``seconds``, or to
    its end), ``think_s`` on average before each; ``created(match_id, version)`` runs before
    the first command (the watchers scenario opens its streams then)."""
    canary = Canary()
    reply = await stub.CreateMatch(
        match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(seed=seed, lineup=lineup)),
        timeout=TIMEOUT_S,
    )
    canary.match_id = reply.match_id
    tokens = {s.seat: s.token for s in reply.seats}
    view = await stub.GetView(match_pb2.GetViewRequest(match_id=reply.match_id), timeout=TIMEOUT_S)
    to_act = view.view.to_act
    legal = await stub.ListLegalCommands(
        match_pb2.ListLegalCommandsRequest(match_id=reply.match_id, seat_token=tokens[to_act]),
        timeout=TIMEOUT_S,
    )
    options, version = list(legal.commands), legal.version
    if created is not None:
        await created(reply.match_id, version)
    rng, think_rng = seed_state(seed), seed_state(seed ^ THINK_SALT)
    stop_at = time.monotonic() + seconds
    while len(canary.latencies_ms) < commands and time.monotonic() < stop_at:
        pause, think_rng = think_time(think_rng, think_s)
        await asyncio.sleep(pause)
        index, rng = below(rng, len(options))
        started = time.monotonic()
        answer = await stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=reply.match_id,
                seat_token=tokens[to_act],
                command_id=f"{reply.match_id}-{len(canary.submits)}",
                expected_version=version,
                legal_id=options[index].id,
            ),
            timeout=TIMEOUT_S,
        )
        canary.latencies_ms.append((time.monotonic() - started) * 1000)
        canary.submits.append((started, version, answer.version))
        if not answer.to_act:
            canary.finished = True
            break
        to_act, version = answer.to_act, answer.version
        options = list(answer.next_legal)
        if not options:
            legal = await stub.ListLegalCommands(
                match_pb2.ListLegalCommandsRequest(
                    match_id=reply.match_id, seat_token=tokens[to_act]
                ),
                timeout=TIMEOUT_S,
            )
            options, version = list(legal.commands), legal.version
    return canary
