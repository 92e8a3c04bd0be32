"""The common core of the five domain services: projection lookup and the engine call.

A domain service answers "decide this command" and "list legal commands" for the command
kinds its domain owns (``frontier.engine.domains``), plus turn-order's Advance and
scoring's Evaluate.  Each call names a match, the committed version the caller is at, and
events decided earlier in the same command; the service folds those onto a private copy of
its projection and runs the pure engine function.
"""

from __future__ import annotations

import logging
import uuid

import grpc

from frontier.engine import Seat
from frontier.engine.ctx import Ctx
from frontier.engine.decide import advance, apply_command, check, finish, legal_commands
from frontier.engine.domains import Domain, owner
from frontier.engine.evolve import fold
from frontier.engine.model import Command, Event
from frontier.engine.state import State
from frontier.runtime.errors import ServiceError
from frontier.v1 import domain_pb2, types_pb2
from frontier.wire.convert import (
    command_from_proto,
    enum_from_proto,
    event_from_proto,
    events_into_proto,
)
from frontier.wire.labels import legal_command_to_proto

from .projection import Projections

log = logging.getLogger("frontier.domain")


class DomainCore:
    def __init__(self, domain: Domain, projections: Projections) -> None:
        self.domain = domain
        self.projections = projections
        # tells the orchestrator which replica answered (DomainEvents.replica), so that it
        # knows which events this one already holds
        self.replica = uuid.uuid4().hex

    async def state_for(self, ctx_msg: domain_pb2.DomainContext) -> State:
        """A private copy of the projection at the request's version, the request's pending
        events folded onto it."""
        _check_context(ctx_msg)
        committed = await self.projections.at(
            ctx_msg.match_id,
            ctx_msg.base_version,
            ctx_msg.committed_tail,
            ctx_msg.base_stream_seq,
            ctx_msg.start if ctx_msg.HasField("start") else None,
        )
        return _private(committed, ctx_msg)  # no await since at(): nothing can interleave

    def state_now(self, ctx_msg: domain_pb2.DomainContext) -> State | None:
        """What :meth:`state_for` returns, when it can be had without waiting (see
        ``Projections.at_now``); None when it cannot."""
        _check_context(ctx_msg)
        committed = self.projections.at_now(
            ctx_msg.match_id,
            ctx_msg.base_version,
            ctx_msg.committed_tail,
            ctx_msg.base_stream_seq,
            ctx_msg.start if ctx_msg.HasField("start") else None,
        )
        return None if committed is None else _private(committed, ctx_msg)

    def decide_on(
        self,
        state: State,
        command: types_pb2.Command,
        then_advance: bool = False,
        legal_checked: bool = False,
    ) -> domain_pb2.DomainEvents:
        """The command's events on ``state``, a private copy (it is changed: see
        :meth:`state_for`); with ``then_advance`` (turn-order only), followed by what
        advancing the match after it emits, in the same call (as AdvanceTurn would)."""
        cmd = command_from_proto(command)
        routed = owner(state, cmd)
        if routed is not self.domain:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"{cmd.kind.value} belongs to the {routed.value} domain, not {self.domain.value}",
                "ILLEGAL_COMMAND",
            )
        # legal_checked: the caller listed the seat's legal commands at this very version
        # and found the command among them (the orchestrator does, from its cache), so
        # listing them again here -- the dearest part of a decide call -- is skipped; the
        # match, seat and turn are still checked.
        check(state, cmd, [cmd] if legal_checked else None)
        ctx = Ctx(state)
        apply_command(ctx, cmd)
        if then_advance:
            advance(ctx)
        return events_message(ctx.events, self.replica)

    def legal_on(self, state: State, seat_value: int) -> list[types_pb2.LegalCommand]:
        seat = enum_from_proto(Seat, seat_value)
        out: list[types_pb2.LegalCommand] = []
        for cmd in legal_commands(state, seat):
            if owner(state, cmd) is self.domain:
                out.append(legal_command_to_proto(cmd, state=state))
        return out

    def advance_on(self, state: State) -> domain_pb2.DomainEvents:
        ctx = Ctx(state)
        advance(ctx)
        return events_message(ctx.events, self.replica)

    def finish_on(self, state: State) -> domain_pb2.DomainEvents:
        ctx = Ctx(state)
        finish(ctx)
        return events_message(ctx.events, self.replica)


def _check_context(ctx_msg: domain_pb2.DomainContext) -> None:
    if not ctx_msg.match_id:
        raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "match_id is required")


def _private(committed: State, ctx_msg: domain_pb2.DomainContext) -> State:
    """A copy of the committed state to decide on, the request's pending events folded."""
    state = committed.clone()
    pending = ctx_msg.pending_events
    if pending:
        fold(state, [event_from_proto(e) for e in pending])
    return state


def events_message(events: list[Event], replica: str = "") -> domain_pb2.DomainEvents:
    message = domain_pb2.DomainEvents(replica=replica)
    events_into_proto(events, message.events)  # written in place, not built and copied
    return message


__all__ = ["Command", "DomainCore", "events_message"]
