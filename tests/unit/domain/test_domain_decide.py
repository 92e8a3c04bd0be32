"""A domain service's decide: what ``legal_checked`` spares and what it still checks, and
turn-order's ``advance`` in the same call.  The service's core runs on a fixed state (its
projection stands in: a match's initial state at version 0)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from frontier.domain.all_services import SERVICES
from frontier.domain.core import DomainCore
from frontier.domain.scoreboard import Scoreboard
from frontier.engine import initial_state, legal_commands, make_config, to_act
from frontier.engine.ctx import Ctx
from frontier.engine.decide import advance, apply_command
from frontier.engine.domains import Domain, owner
from frontier.engine.errors import IllegalCommand, WrongSeat
from frontier.engine.model import Command, CommandKind
from frontier.engine.state import State
from frontier.v1 import domain_pb2
from frontier.wire.convert import command_to_proto, event_from_proto
from frontier.wire.domain_rpc import SPECS

LINEUP = "A=marquise;B=marquise"


class _Fixed:
    def __init__(self, state: State) -> None:
        self.state = state

    async def at(
        self, match_id: str, version: int, tail: Any = (), seq: int = 0, start: Any = None
    ) -> State:
        return self.state


def _core(domain: Domain, state: State) -> DomainCore:
    projections: Any = _Fixed(state)
    return DomainCore(domain, projections)


def _context(checked: bool) -> domain_pb2.DomainContext:
    return domain_pb2.DomainContext(match_id="m", base_version=0, legal_checked=checked)


async def _decide(core: DomainCore, cmd: Command, checked: bool, then_advance: bool = False) -> Any:
    context = _context(checked)
    state = await core.state_for(context)
    return core.decide_on(state, command_to_proto(cmd), then_advance, context.legal_checked)


async def test_legal_checked_still_refuses_a_seat_whose_turn_it_is_not() -> None:
    state = initial_state(make_config(seed=1, lineup=LINEUP))
    actor = to_act(state)
    assert actor is not None
    cmd = legal_commands(state, actor)[0]
    other = next(s for s in state.seats if s is not actor)
    theirs = dataclasses.replace(cmd, seat=other)
    core = _core(owner(state, cmd), state)
    for checked in (False, True):
        with pytest.raises(WrongSeat):
            await _decide(core, theirs, checked)
    assert state.version == 0  # the projection is untouched


async def test_without_legal_checked_an_illegal_command_is_refused() -> None:
    state = initial_state(make_config(seed=1, lineup=LINEUP))
    actor = to_act(state)
    assert actor is not None
    cmd = legal_commands(state, actor)[0]
    bogus = Command(cmd.kind, actor, clearing="no-such-clearing")
    with pytest.raises(IllegalCommand):
        await _decide(_core(owner(state, cmd), state), bogus, checked=False)


async def test_turn_order_decides_and_advances_in_one_call() -> None:
    """Played until a turn-order command leaves steps to run: its one call gives the
    command's events and then the advance's, exactly as the engine emits them."""
    state = initial_state(make_config(seed=2, lineup=LINEUP))
    for _ in range(2000):
        actor = to_act(state)
        assert actor is not None
        legal = legal_commands(state, actor)
        ends = [c for c in legal if c.kind is CommandKind.END_PHASE]
        cmd = ends[0] if ends else legal[0]
        alone = Ctx(state.clone())
        apply_command(alone, cmd)
        both = Ctx(state.clone())
        apply_command(both, cmd)
        advance(both)
        if owner(state, cmd) is Domain.TURN_ORDER and len(both.events) > len(alone.events):
            core = _core(Domain.TURN_ORDER, state)
            advanced = await _decide(core, cmd, checked=True, then_advance=True)
            plain = await _decide(core, cmd, checked=True)
            assert [event_from_proto(e) for e in advanced.events] == both.events
            assert [event_from_proto(e) for e in plain.events] == alone.events
            return
        apply_command(Ctx(state), cmd)
        advance(Ctx(state))
    raise AssertionError("no turn-order command left steps to run")


class _AtHand(_Fixed):
    """A projection at hand (``at_now`` gives it) or not (None: the caller must wait)."""

    def __init__(self, state: State, at_hand: bool) -> None:
        super().__init__(state)
        self.at_hand = at_hand

    def at_now(
        self, match_id: str, version: int, tail: Any = (), seq: int = 0, start: Any = None
    ) -> State | None:
        return self.state if self.at_hand else None


async def test_a_decide_answered_synchronously_is_the_one_its_handler_gives() -> None:
    """The stream answers a call with ``Method.now`` when its projection is at hand: the
    same reply, byte for byte, as the asynchronous handler's; None when not at hand."""
    state = initial_state(make_config(seed=1, lineup=LINEUP))
    actor = to_act(state)
    assert actor is not None
    cmd = legal_commands(state, actor)[0]
    domain = owner(state, cmd)
    pb2, _, _, noun = SPECS[domain]
    request = getattr(pb2, f"Decide{noun}CommandRequest")(
        context=_context(True), command=command_to_proto(cmd)
    )
    replies: list[Any] = []
    for at_hand in (True, False):
        projections: Any = _AtHand(state, at_hand)
        core = DomainCore(domain, projections)
        core.replica = "r"
        method = SERVICES[domain].rpcs(core, Scoreboard())[f"Decide{noun}Command"]
        assert method.now is not None
        now = method.now(request)
        assert (now is None) is not at_hand
        replies.append(now)
        replies.append(await method.handler(request))
    assert replies[0].SerializeToString() == replies[1].SerializeToString()
    assert replies[1].SerializeToString() == replies[3].SerializeToString()
    assert state.version == 0  # the projection is untouched: each decide ran on a copy
