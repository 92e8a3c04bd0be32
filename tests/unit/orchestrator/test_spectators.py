"""Watching costs the players nothing: spectators share one conversion of each event, every
watch stream counts against a cap per match and per address, and a spectator that falls too
far behind is cut with the version to resume from -- against an in-memory bus and a match
committed batch by batch as the commit path does."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import cast

import grpc
import pytest

from frontier.engine import Seat, initial_state, legal_commands, make_config, to_act
from frontier.engine.decide import execute
from frontier.orchestrator import history, spectators
from frontier.orchestrator.hosted_match import HostedMatch
from frontier.orchestrator.spectators import (
    Watchers,
    WatchLimits,
    spectate,
    trusted_networks,
)
from frontier.runtime.bus import Bus, StoredBatch
from frontier.runtime.errors import ServiceError
from frontier.v1 import events_pb2, match_pb2, types_pb2

from .test_recent_history import committed

MATCH_ID = "cd" * 16


class LiveMatch:
    """A match played one batch at a time by its first legal commands: the stream holds
    every committed batch, the hosted match what it keeps, its readers woken as on a
    commit."""

    def __init__(self) -> None:
        config = make_config(seed=5, lineup="A=marquise;B=marquise")
        self.hosted = HostedMatch(MATCH_ID, config, initial_state(config), 0, {}, {})
        self.batches: list[events_pb2.EventBatch] = []
        self.reads = 0

    async def iter_batches(self, match_id: str, after: int = 0) -> AsyncIterator[StoredBatch]:
        self.reads += 1
        for seq, batch in enumerate(list(self.batches), start=1):
            if seq > after:
                yield StoredBatch(seq, batch)

    async def commit(self) -> None:
        """As the commit path does: a new state object (never one edited in place)."""
        state = self.hosted.state.clone()
        seat = to_act(state)
        assert seat is not None
        first = state.version + 1
        events = execute(state, legal_commands(state, seat)[0])
        record = events_pb2.DecisionRecord(decision_id=str(first - 1))
        self.hosted.state = state
        if self.hosted.delay is not None:
            self.hosted.delay.committed(state)
        self.batches.append(committed(self.hosted, seat, events, first, record))
        await self.hosted.tell_readers()

    @property
    def bus(self) -> Bus:
        return cast(Bus, self)


async def _read(
    replies: AsyncIterator[match_pb2.WatchEventsResponse], until: int
) -> list[match_pb2.WatchEventsResponse]:
    out = []
    async for reply in replies:
        out.append(reply)
        if reply.envelope.seq >= until:
            break
    return out


def _spectate(
    match: LiveMatch, feed: spectators.SpectatorFeed, from_version: int = 0, max_lag: int = 512
) -> AsyncIterator[match_pb2.WatchEventsResponse]:
    return spectate(
        match.bus, match.hosted, feed, from_version, max_lag, lambda: False, lambda: False
    )


async def test_spectators_share_one_reply_per_event_and_see_every_event() -> None:
    match = LiveMatch()
    for _ in range(5):
        await match.commit()
    watchers = Watchers()
    with (
        watchers.admit(match.hosted, "ipv4:10.0.0.1:1000", True) as first,
        watchers.admit(match.hosted, "ipv4:10.0.0.2:1000", True) as second,
    ):
        assert first is not None and second is first
        readers = [asyncio.create_task(_read(_spectate(match, first), until=250)) for _ in range(3)]
        while match.hosted.state.version < 250:
            await match.commit()
            await asyncio.sleep(0)
        got = await asyncio.gather(*readers)
    # every reader saw every event from the start, in order
    for replies in got:
        assert [r.envelope.seq for r in replies] == list(range(1, len(replies) + 1))
    # the events committed while they watched are one shared message each
    live = [r.envelope.seq for r in got[0] if r.envelope.seq >= first.replies.start]
    assert live
    for seq in live:
        assert got[0][seq - 1] is got[1][seq - 1] is got[2][seq - 1]
    # what a spectator sees is the spectator's view: a hidden draw stays hidden
    drawn = [r for r in got[0] if r.envelope.event.kind == types_pb2.EVENT_KIND_CARDS_DRAWN]
    assert drawn and all(set(r.envelope.event.cards) <= {"hidden"} for r in drawn)
    assert watchers.feeds == {}  # the last spectator gone, the feed went with it


async def test_a_spectator_that_falls_behind_is_cut_with_where_to_resume() -> None:
    match = LiveMatch()
    watchers = Watchers(WatchLimits(max_lag=16))
    with watchers.admit(match.hosted, "ipv4:10.0.0.1:1000", True) as feed:
        assert feed is not None
        replies = _spectate(match, feed, max_lag=16)
        await match.commit()
        seen = [await anext(replies)]
        while match.hosted.state.version < 40:  # it reads nothing meanwhile
            await match.commit()
        with pytest.raises(ServiceError) as cut:
            async for reply in replies:
                seen.append(reply)
    assert cut.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert cut.value.reason == "WATCHER_TOO_SLOW"
    resume = seen[-1].envelope.seq
    assert f"watch again from version {resume}" in cut.value.message
    # resuming there misses nothing
    with watchers.admit(match.hosted, "ipv4:10.0.0.1:1000", True) as again:
        assert again is not None
        rest = await _read(_spectate(match, again, from_version=resume), until=40)
    assert [r.envelope.seq for r in rest] == list(range(resume + 1, 41))


async def test_caps_per_match_and_per_address_and_trusted_networks() -> None:
    match = LiveMatch()
    limits = WatchLimits(per_match=2, per_address=2, trusted=trusted_networks("10.9.0.0/16"))
    watchers = Watchers(limits)

    def refused(peer: str, spectator: bool) -> ServiceError:
        with pytest.raises(ServiceError) as caught, watchers.admit(match.hosted, peer, spectator):
            pass
        assert caught.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
        return caught.value

    with contextlib.ExitStack() as held:
        held.enter_context(watchers.admit(match.hosted, "ipv4:10.0.0.1:1", True))
        held.enter_context(watchers.admit(match.hosted, "ipv4:10.0.0.1:2", False))  # a seat's
        assert refused("ipv4:10.0.0.1:3", False).reason == "WATCHERS_LIMIT"  # per address
        held.enter_context(watchers.admit(match.hosted, "ipv4:10.0.0.2:1", True))
        assert refused("ipv4:10.0.0.3:1", True).reason == "WATCHERS_LIMIT"  # per match
        # a seat's watch is not a spectator: the match's cap does not apply to it
        with watchers.admit(match.hosted, "ipv4:10.0.0.3:1", False) as seat_feed:
            assert seat_feed is None
    # a gateway's network is not counted per address
    with contextlib.ExitStack() as held:
        for port in range(5):
            held.enter_context(watchers.admit(match.hosted, f"ipv4:10.9.3.4:{port}", False))
        assert "10.9.3.4" not in watchers.per_address
    assert not watchers.per_address and not watchers.feeds  # every count given back


def test_trusted_networks_name_addresses_and_networks() -> None:
    with pytest.raises(ValueError):
        trusted_networks("10.0.0.1, not-an-address")


async def test_an_abandoned_match_ends_the_watches_waiting_on_it() -> None:
    # an abandonment adds no event: its end alone must wake the waiting watches, which
    # then complete after the events they had
    match = LiveMatch()
    for _ in range(3):
        await match.commit()
    watchers = Watchers()
    with watchers.admit(match.hosted, "ipv4:10.0.0.1:1000", True) as feed:
        assert feed is not None
        spectator = _spectate(match, feed)
        seat = history.watch(match.bus, match.hosted, Seat.A1, 0, lambda: False)
        played = list(range(1, match.hosted.state.version + 1))
        assert [r.envelope.seq for r in await _read(spectator, until=played[-1])] == played
        assert [(await anext(seat))[0] for _ in played] == played
        rest = asyncio.gather(_rest(spectator), _rest(seat))
        for _ in range(10):  # both run on to where they wait for the match's next change
            await asyncio.sleep(0)
        assert not rest.done()
        match.hosted.abandon(match.hosted.stream_seq + 1)
        await match.hosted.tell_readers()
        assert list(await rest) == [[], []]


async def _rest(replies: AsyncIterator[object]) -> list[object]:
    return [reply async for reply in replies]
