"""What the five domain services share: the RPC table each is, and how it is served.

A domain service is one table of RPCs (:data:`Rpcs`: RPC name -> request type and
handler, request message in, response message out), written out in its own module
(:mod:`.map_service`, :mod:`.combat_service`, :mod:`.crafting_service`,
:mod:`.turn_order_service`, :mod:`.scoring_service`).  Two servers run that one table: the
service's unary servicer (its public gRPC shape, each RPC a method that calls its handler)
and the DomainCallService stream the orchestrator calls it through
(:mod:`.call_service`), so a call behaves the same whichever way it came: one code path,
one error mapping (``errors.failure``).

Most RPCs answer from the match's state at the request's version (:func:`on_state`): the
handler waits for the projection when it must, and the synchronous form (``Method.now``)
answers at once when the projection is at hand, which is how the stream answers most calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from frontier.engine.domains import Domain
from frontier.engine.state import State
from frontier.runtime.server import Register
from frontier.v1 import domain_pb2_grpc
from frontier.wire.domain_rpc import method_name

from .call_service import DomainCallServicer, Method
from .core import DomainCore
from .scoreboard import Scoreboard

# one service's RPCs by their name in the service ("DecideMapCommand")
Rpcs = dict[str, Method]


def on_state(core: DomainCore, request_type: Any, op: Callable[[Any, State], Any]) -> Method:
    """An RPC answered from the request's state (``op(request, state)``): its handler, and
    its synchronous form for a state that is there without waiting (``DomainCore.state_now``;
    None otherwise, and the handler answers)."""

    async def handler(request: Any) -> Any:
        return op(request, await core.state_for(request.context))

    def now(request: Any) -> Any:
        state = core.state_now(request.context)
        return None if state is None else op(request, state)

    return Method(request_type, handler, now)


def decide_rpc(core: DomainCore, request_type: Any, response_type: Any) -> Method:
    """``Decide<Noun>Command``: the command's events, on the request's state."""

    def decide(request: Any, state: State) -> Any:
        result = core.decide_on(state, request.command, False, request.context.legal_checked)
        return response_type(result=result)

    return on_state(core, request_type, decide)


def list_rpc(core: DomainCore, request_type: Any, response_type: Any) -> Method:
    """``List<Noun>Commands``: the seat's legal commands of this domain's kinds."""

    def list_commands(request: Any, state: State) -> Any:
        return response_type(commands=core.legal_on(state, request.seat))

    return on_state(core, request_type, list_commands)


def by_method_name(domain: Domain, rpcs: Mapping[str, Method]) -> dict[str, Method]:
    """``rpcs`` by full method name ("/frontier.v1.MapService/DecideMapCommand"), as
    DomainCallService messages name them."""
    return {method_name(domain, rpc): method for rpc, method in rpcs.items()}


@dataclass(frozen=True, slots=True)
class DomainService:
    """One of the five services: its domain, its RPC table, its unary servicer."""

    domain: Domain
    # the RPC table, from the service's core (and the scoreboard, for the one that keeps it)
    rpcs: Callable[[DomainCore, Scoreboard | None], Rpcs]
    # the generated servicer's subclass, built on the table
    servicer: Callable[[Rpcs], Any]
    # the generated ``add_<Service>Servicer_to_server``
    add_servicer: Callable[[Any, grpc.aio.Server], None]
    # scoring: a live scoreboard of every match, so it follows every batch on NATS
    keeps_scoreboard: bool = False

    def register(
        self, core: DomainCore, scoreboard: Scoreboard | None, timed: bool = False
    ) -> tuple[Register, DomainCallServicer]:
        """A function adding this service's servicer and its DomainCallService to a server,
        and the latter (to drain it at shutdown).  ``timed``: the stream's calls are
        recorded in the RPC metrics, as the unary calls are when /metrics is on."""
        rpcs = self.rpcs(core, scoreboard)
        servicer = self.servicer(rpcs)
        calls = DomainCallServicer(by_method_name(self.domain, rpcs), timed=timed)

        def register(server: grpc.aio.Server) -> None:
            self.add_servicer(servicer, server)
            domain_pb2_grpc.add_DomainCallServiceServicer_to_server(calls, server)

        return register, calls
