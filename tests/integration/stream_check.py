"""Check a match's committed JetStream history against the in-process engine."""

from __future__ import annotations

from frontier.engine import decide, evolve, initial_state, make_config
from frontier.engine.state import State
from frontier.runtime.bus import Bus
from frontier.v1 import events_pb2
from frontier.wire.convert import command_from_proto, event_from_proto


async def stored_batches(nats_url: str, match_id: str) -> list[events_pb2.EventBatch]:
    """The match's committed batches, read from JetStream with a connection of its own."""
    bus = await Bus.connect(nats_url)
    try:
        return [b.batch for b in await bus.read_batches(match_id)]
    finally:
        await bus.close()


async def check_stream(nats_url: str, match_id: str, seed: int, lineup: str) -> int:
    """Every committed event exactly once, in order, equal to the engine's; returns count."""
    state, seq = await replay_stream(nats_url, match_id, seed, lineup)
    assert state.over, "the match was played to its end"
    return seq


async def replay_stream(nats_url: str, match_id: str, seed: int, lineup: str) -> tuple[State, int]:
    """The state the committed stream leads to in-process, checking every batch against
    the engine's ``decide`` on the way; with the number of events."""
    batches = await stored_batches(nats_url, match_id)
    state = initial_state(make_config(seed=seed, lineup=lineup))
    seq = 0
    for batch in batches:
        cmd = command_from_proto(batch.command)
        expected = decide(state, cmd)
        got = [event_from_proto(e.event) for e in batch.envelopes]
        assert [e.seq for e in batch.envelopes] == list(range(seq + 1, seq + 1 + len(got)))
        assert got == expected, f"batch for {cmd.key()} differs from the engine"
        for event in expected:
            evolve(state, event)
        seq += len(got)
    return state, seq
