"""A competitive match's spectators see it as it stood ``spectator_delay_s`` ago
(spectator_delay.py): the view, the events a spectator is sent, nothing sooner, everything
once the match has ended -- with a clock the test moves."""

from __future__ import annotations

import asyncio

from frontier.engine import initial_state, legal_commands, make_config, to_act
from frontier.engine.decide import execute
from frontier.orchestrator.hosted_match import HostedMatch
from frontier.orchestrator.referee import ClockConfig
from frontier.orchestrator.spectator_delay import SpectatorDelay
from frontier.orchestrator.spectators import Watchers
from frontier.v1 import match_pb2

from .test_spectators import LiveMatch, _spectate


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_spectators_see_each_state_once_it_is_older_than_the_delay() -> None:
    clock = Clock()
    delay = SpectatorDelay(30, clock)
    config = make_config(seed=2)
    state = initial_state(config)
    delay.committed(state, at=float("-inf"))
    states = [state]
    for step in range(3):
        clock.now += 10
        nxt = state.clone()
        seat = to_act(nxt)
        assert seat is not None
        execute(nxt, legal_commands(nxt, seat)[0])
        delay.committed(nxt)
        states.append(nxt)
        state = nxt
        assert delay.shown() is states[0], step  # nothing is 30 s old yet
    assert delay.next_release_s() == 10  # the first move was made 20 s ago
    clock.now += 10
    assert delay.shown() is states[1] and delay.next_release_s() == 10
    clock.now += 25
    assert delay.shown() is states[3] and delay.next_release_s() is None
    assert len(delay.states) == 1  # what no spectator will see again is forgotten


def delayed_match(clock: Clock) -> LiveMatch:
    match = LiveMatch()
    match.hosted.clock = ClockConfig(spectator_delay_s=60)
    match.hosted.delay_spectators(match.hosted.state, clock=clock)
    return match


async def test_a_delayed_spectator_is_sent_each_event_only_once_its_delay_passed() -> None:
    clock = Clock()
    match = delayed_match(clock)
    watchers = Watchers()
    with watchers.admit(match.hosted, "ipv4:10.0.0.1:1", True) as feed:
        assert feed is not None
        got: list[match_pb2.WatchEventsResponse] = []

        async def read() -> None:
            async for reply in _spectate(match, feed):
                got.append(reply)

        reader = asyncio.create_task(read())
        for _ in range(5):
            await match.commit()  # each at the same moment of the test's clock
        played = match.hosted.state.version
        for _ in range(20):
            await asyncio.sleep(0)
        assert got == []  # the moves are 0 s old: none is shown
        assert match.hosted.spectator_state().version == 0
        clock.now += 60
        await match.hosted.tell_readers()  # what the delay's timer does in the server
        while len(got) < played:
            await asyncio.sleep(0)
        assert [r.envelope.seq for r in got] == list(range(1, played + 1))
        reader.cancel()


def test_a_loaded_delayed_match_shows_its_setup_until_the_delay_has_passed() -> None:
    clock = Clock()
    config = make_config(seed=4)
    played = initial_state(config)
    for _ in range(6):
        seat = to_act(played)
        assert seat is not None
        execute(played, legal_commands(played, seat)[0])
    hosted = HostedMatch("ef" * 16, config, played, 0, {}, {})
    hosted.clock = ClockConfig(spectator_delay_s=60)
    hosted.delay_spectators(initial_state(config), since=clock(), clock=clock)
    assert hosted.spectator_state().version == 0 and hosted.state.version > 0
    clock.now += 60
    assert hosted.spectator_state() is played


def test_a_match_without_a_delay_shows_its_present() -> None:
    match = LiveMatch()
    match.hosted.delay_spectators(match.hosted.state)
    assert match.hosted.delay is None
    assert match.hosted.spectator_state() is match.hosted.state
