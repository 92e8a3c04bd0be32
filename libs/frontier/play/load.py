"""Many matches at once through MatchService (asyncio gRPC client).

Shared by the concurrency tests and ``frontier bench stack``: each match is driven by
seeded random choices among the legal command ids, and every SubmitCommand round trip is
timed.  With a *think time* each player waits before each of its commands, as a real bot or
person does (uniformly between half and one and a half times the mean, from the match's
seeded generator, so that matches do not move in lockstep), and each match starts within the
first two think times rather than all at the same instant; with none, every match submits
as fast as the server answers, which measures the server's saturation rather than its
latency under a given load.  A call that fails with UNAVAILABLE or DEADLINE_EXCEEDED (its
outcome unknown: a service or NATS away, or too slow) is sent again unchanged, a submit
with the same command id, which is exactly what docs/operations.md ("Errors") tells a client
to do: the retry returns the first result if the command was applied.  So is one that fails
with CANCELLED: this client never cancels a call, so that status came from the transport or
the server giving the call up (seen once on a loaded machine at 1,500 paced matches, with
replies taking seconds), and its outcome is just as unknown.  ABORTED is not retried: the
match moved on (a stale expected version, or another orchestrator's write, after which the
expected version this client sends is stale too), so the same request would be refused
again; the match's run fails instead.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import grpc

from frontier.engine import Seat
from frontier.engine.rng import below, seed_state
from frontier.runtime.settings import host_key_metadata
from frontier.runtime.tls import aio_channel
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import enum_from_proto

RETRYABLE = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,  # never this client's own doing: see the module
)
THINK_SALT = 0x7468696E6B  # "think"


def think_time(think_rng: int, think_s: float) -> tuple[float, int]:
    """One player's pause before a command: uniform between 0.5x and 1.5x the mean
    ``think_s`` (so that paced matches drift apart), and the generator's next state."""
    spread, think_rng = below(think_rng, 1001)
    return think_s * (0.5 + spread / 1000), think_rng


@dataclass
class MatchRun:
    match_id: str = ""
    seed: int = 0
    winner: str = ""
    commands: int = 0
    retries: int = 0
    latencies_ms: list[float] = field(default_factory=list)


def _retry_pause(exc: grpc.aio.AioRpcError, attempt: int, attempts: int, run: MatchRun) -> float:
    """How long to wait before sending again a call whose ``attempt``-th try (from 0) failed
    with ``exc``; raises ``exc`` when it is not worth a retry or the attempts are spent."""
    if exc.code() not in RETRYABLE or attempt >= attempts - 1:
        raise exc
    run.retries += 1
    return float(min(0.05 * 2**attempt, 1.0))


async def _call_with_retry(
    call: object, request: object, run: MatchRun, timeout: float, attempts: int, attempt: int = 0
) -> object:
    """``call(request)``, sent again unchanged after a retryable failure, from try
    ``attempt`` on (the hot path makes try 0 itself: one coroutine fewer per command)."""
    while True:
        try:
            return await call(request, timeout=timeout)  # type: ignore[operator]
        except grpc.aio.AioRpcError as exc:
            await asyncio.sleep(_retry_pause(exc, attempt, attempts, run))
            attempt += 1


def _command_ids() -> Iterator[str]:
    """A match's command ids: one random prefix per match and a counter, as unique as a
    uuid4 per command (the prefix is one) without drawing 16 random bytes and building a
    UUID for each command."""
    prefix = uuid.uuid4().hex
    return (f"{prefix}{n:x}" for n in itertools.count())


async def play_match(
    stub: match_pb2_grpc.MatchServiceAsyncStub,
    seed: int,
    lineup: str,
    timeout: float = 10.0,
    attempts: int = 60,
    think_s: float = 0.0,
    max_commands: int = 0,
) -> MatchRun:
    """One match from creation to its end, or to its ``max_commands``-th command (0: no
    limit), left unfinished then (a benchmark of playing matches).

    Per command the loop does as little as it can besides the round trip it times, because
    at 1,500 paced matches its CPU shares the machine's two cores with the servers: the seat
    tokens are looked up by the proto's seat number, command ids come from a counter, and
    the first try of a submit is awaited directly (:func:`_call_with_retry` only after a
    failure).
    """
    run = MatchRun(seed=seed)
    think_rng = seed_state(seed ^ THINK_SALT)  # apart, so thinking never changes the choices
    if think_s > 0:
        # matches paced like real play also start at different moments, not all at once
        start, think_rng = below(think_rng, 1001)
        await asyncio.sleep(2 * think_s * start / 1000)
    config = match_pb2.MatchConfig(seed=seed, lineup=lineup)
    created = await stub.CreateMatch(
        match_pb2.CreateMatchRequest(config=config), timeout=timeout, metadata=host_key_metadata()
    )
    run.match_id = match_id = created.match_id
    for s in created.seats:
        enum_from_proto(Seat, s.seat)  # a seat the engine does not know is refused here
    tokens = {s.seat: s.token for s in created.seats}
    view = await stub.GetView(match_pb2.GetViewRequest(match_id=match_id), timeout=timeout)
    to_act = view.view.to_act
    rng = seed_state(seed)
    ids = _command_ids()
    submit = stub.SubmitCommand
    latencies = run.latencies_ms
    clock = time.perf_counter
    # the acting seat's legal commands and their version, when the last reply brought them
    known: tuple[Sequence[types_pb2.LegalCommand], int] | None = None
    while to_act and not (max_commands and run.commands >= max_commands):
        token = tokens[to_act]
        if known is None:
            legal = await _call_with_retry(
                stub.ListLegalCommands,
                match_pb2.ListLegalCommandsRequest(match_id=match_id, seat_token=token),
                run,
                timeout,
                attempts,
            )
            assert isinstance(legal, match_pb2.ListLegalCommandsResponse)
            known = (legal.commands, legal.version)
        commands, version = known
        if think_s > 0:
            pause, think_rng = think_time(think_rng, think_s)
            await asyncio.sleep(pause)
        index, rng = below(rng, len(commands))
        request = match_pb2.SubmitCommandRequest(
            match_id=match_id,
            seat_token=token,
            command_id=next(ids),
            expected_version=version,
            legal_id=commands[index].id,
        )
        started = clock()
        reply: object
        try:
            reply = await submit(request, timeout=timeout)
        except grpc.aio.AioRpcError as exc:
            await asyncio.sleep(_retry_pause(exc, 0, attempts, run))
            reply = await _call_with_retry(submit, request, run, timeout, attempts, attempt=1)
        latencies.append((clock() - started) * 1000)
        assert isinstance(reply, match_pb2.SubmitCommandResponse)
        run.commands += 1
        to_act = reply.to_act
        run.winner = reply.winner
        next_legal = reply.next_legal
        known = (next_legal, reply.version) if next_legal else None
    return run


# Spread calls over every address of a multi-address target ("ipv4:a:1,b:2"): with several
# orchestrators each takes part of the load, and a dead one is skipped.
ROUND_ROBIN = (("grpc.lb_policy_name", "round_robin"),)


async def play_many(
    targets: list[str],
    seeds: list[int],
    lineup: str,
    think_s: float = 0.0,
    max_commands: int = 0,
) -> list[MatchRun]:
    """Match ``i`` talks to ``targets[i % len(targets)]`` from creation to end.

    With one orchestrator per target each match stays with the orchestrator that created
    (and owns) it, so no request is forwarded; a multi-address target instead spreads every
    call (see ROUND_ROBIN), which survives a dead orchestrator at the cost of forwarding.
    """
    channels = [aio_channel(t, options=ROUND_ROBIN) for t in targets]
    try:
        stubs = [match_pb2_grpc.MatchServiceStub(c) for c in channels]
        return list(
            await asyncio.gather(
                *(
                    play_match(
                        stubs[i % len(stubs)],
                        s,
                        lineup,
                        think_s=think_s,
                        max_commands=max_commands,
                    )
                    for i, s in enumerate(seeds)
                )
            )
        )
    finally:
        for channel in channels:
            await channel.close()


async def create_idle(targets: list[str], count: int, lineup: str) -> list[str]:
    """Create ``count`` matches (spread over ``targets``) that nobody plays; their ids.
    The stack benchmark measures what a hosted match costs while its players think."""
    channels = [aio_channel(t) for t in targets]
    try:
        stubs = [match_pb2_grpc.MatchServiceStub(c) for c in channels]
        created = await asyncio.gather(
            *(
                stubs[i % len(stubs)].CreateMatch(
                    match_pb2.CreateMatchRequest(
                        config=match_pb2.MatchConfig(seed=i + 1, lineup=lineup)
                    ),
                    timeout=30,
                    metadata=host_key_metadata(),
                )
                for i in range(count)
            )
        )
        return [reply.match_id for reply in created]
    finally:
        for channel in channels:
            await channel.close()
