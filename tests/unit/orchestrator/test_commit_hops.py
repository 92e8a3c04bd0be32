"""The commit path's domain round trips: as few as the rules allow, with the engine's events.

A whole match goes through the real :class:`CommitPath` and the real domain services' core
(:class:`DomainCore`, as each service runs it), with the network left out: the clients call
the cores directly and count the calls, and the bus keeps what is published.  The events
must be exactly those of the in-process engine (``decide``) for the same commands, while
a turn-order command comes back advanced already (no AdvanceTurn after it), and every
decide request tells the service that its command was checked against the legal list.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from frontier.domain.core import DomainCore
from frontier.engine import Seat, decide, fold, initial_state, legal_commands, make_config, to_act
from frontier.engine.domains import Domain, owner
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Event, EventKind
from frontier.engine.rng import below, seed_state
from frontier.engine.state import State
from frontier.orchestrator.clients import DomainReply
from frontier.orchestrator.commit import CommitPath
from frontier.orchestrator.hosted_match import HostedMatch
from frontier.orchestrator.referee import SEAT
from frontier.v1 import domain_pb2, events_pb2, types_pb2
from frontier.wire.convert import command_to_proto


class _Committed:
    """Stands for a domain service's projections: the match's committed state, as the
    orchestrator holds it (the cores clone it before changing anything)."""

    def __init__(self, hosted: HostedMatch) -> None:
        self.hosted = hosted

    async def at(
        self, match_id: str, version: int, tail: Any = (), seq: int = 0, start: Any = None
    ) -> State:
        assert version == self.hosted.state.version
        return self.hosted.state


class _Clients:
    """DomainClients without the network: each call goes to that domain's core."""

    def __init__(self, hosted: HostedMatch) -> None:
        projections: Any = _Committed(hosted)
        self.cores = {d: DomainCore(d, projections) for d in Domain}
        self.calls: Counter[str] = Counter()
        self.after_turn_order: list[str] = []  # what followed a turn-order decide
        self.unchecked = 0  # decide requests without legal_checked
        self._last: Domain | None = None  # the domain of the last decide

    async def decide(
        self, domain: Domain, ctx: domain_pb2.DomainContext, cmd: types_pb2.Command
    ) -> DomainReply:
        self.calls[f"decide {domain.value}"] += 1
        self.unchecked += not ctx.legal_checked
        self._last = domain
        then_advance = domain is Domain.TURN_ORDER
        core = self.cores[domain]
        state = await core.state_for(ctx)
        return DomainReply.of(core.decide_on(state, cmd, then_advance, ctx.legal_checked))

    async def advance(self, ctx: domain_pb2.DomainContext) -> DomainReply:
        self.calls["advance"] += 1
        if self._last is Domain.TURN_ORDER:
            self.after_turn_order.append("advance")
        core = self.cores[Domain.TURN_ORDER]
        return DomainReply.of(core.advance_on(await core.state_for(ctx)))

    async def evaluate(self, ctx: domain_pb2.DomainContext) -> DomainReply:
        self.calls["evaluate"] += 1
        core = self.cores[Domain.SCORING]
        return DomainReply.of(core.finish_on(await core.state_for(ctx)))


class _Bus:
    """Takes every batch (the stream sequence is its count) and every notice."""

    def __init__(self) -> None:
        self.batches: list[events_pb2.EventBatch] = []
        self.notices: list[dict[str, Any]] = []
        self.nc = self

    async def publish_batch(self, batch: events_pb2.EventBatch, expected_last_seq: int) -> int:
        assert expected_last_seq == len(self.batches)
        self.batches.append(batch)
        return len(self.batches)

    async def put_snapshot(self, match_id: str, blob: bytes) -> None:
        pass

    async def publish(
        self, subject: str, payload: bytes, reply: str = "", headers: Any = None
    ) -> None:  # nats' Client.publish
        self.notices.append(json.loads(payload))  # the turn notice is JSON


async def _play(
    lineup: str, seed: int
) -> tuple[_Clients, list[Event], list[Event], int, list[dict[str, Any]]]:
    """One match through the commit path; its events, the engine's events for the same
    commands, and how many commands a turn-order decide ended with steps left to run."""
    config = make_config(seed=seed, lineup=lineup)
    hosted = HostedMatch("m-hops", config, initial_state(config), 0, {}, {})
    clients = _Clients(hosted)
    bus = _Bus()
    commits = CommitPath(
        bus,  # type: ignore[arg-type]
        clients,  # type: ignore[arg-type]
        snapshot_every=10_000,
        on_conflict=lambda h: None,
    )
    engine = initial_state(config)
    expected: list[Event] = []
    got: list[Event] = []  # as committed (the hosted match keeps only its latest events)
    chooser = seed_state(seed)
    saved = 0  # turn-order commands that left steps to run, whose advance came along
    while (seat := to_act(hosted.state)) is not None:
        legal = legal_commands(hosted.state, seat)
        index, chooser = below(chooser, len(legal))
        cmd = legal[index]
        events = decide(engine, cmd)
        fold(engine, events)
        expected.extend(events)
        if owner(hosted.state, cmd) is Domain.TURN_ORDER:
            core = clients.cores[Domain.TURN_ORDER]
            state = await core.state_for(_bare(hosted))
            alone = core.decide_on(state, command_to_proto(cmd))
            saved += len(alone.events) < len(events)
        async with hosted.lock:
            committed = await commits.commit(hosted, Seat(seat), cmd, "", SEAT)
        got.extend(event for _, event in committed.events)
    return clients, got, expected, saved, bus.notices


def _bare(hosted: HostedMatch) -> domain_pb2.DomainContext:
    return domain_pb2.DomainContext(match_id=hosted.match_id, base_version=hosted.state.version)


@pytest.mark.parametrize("lineup", ["A=marquise;B=marquise", R2_DEFAULT_LINEUP])
async def test_a_match_needs_no_advance_after_a_turn_order_command(lineup: str) -> None:
    clients, got, expected, folded, notices = await _play(lineup, seed=3)
    assert got == expected  # the same events as the engine in one process
    assert clients.after_turn_order == []
    assert folded > 0  # turn-order commands that did leave steps to run: each saved a call
    assert clients.unchecked == 0
    assert clients.calls["advance"] > 0  # other domains' commands still advance apart
    # one turn notice per command, the last one saying that nobody is to act any more
    assert len(notices) == sum(clients.calls[k] for k in clients.calls if k.startswith("decide"))
    assert notices[-1] == {"version": len(got), "to_act": "", "deadline_unix_ms": 0}
    assert {n["to_act"] for n in notices[:-1]} <= {s.value for s in Seat}
    limit = any(e.kind is EventKind.ROUND_LIMIT_REACHED for e in got)
    assert clients.calls["evaluate"] == int(limit)  # scoring only at the round limit
