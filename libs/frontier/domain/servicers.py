"""gRPC servicers of the five domain services, built on :class:`DomainCore`.

Each domain's RPCs are first one table, :func:`methods`: full method name -> request type
and handler (request message in, response message out).  The unary servicer and the
DomainCallService stream (:mod:`.domain_calls`) both run the handlers of that table, so a
call behaves the same whichever way it came: one code path, one error mapping.

Map, combat and crafting have the same two RPCs under different names; rather than three
copies of the same glue, the table is built from the generated modules.  Turn-order and
scoring add their own RPCs on top.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc

from frontier.engine.domains import Domain
from frontier.engine.state import State
from frontier.runtime.errors import GrpcContext, grpc_errors
from frontier.v1 import (
    domain_pb2_grpc,
    scoring_pb2,
    turn_order_pb2,
)
from frontier.wire.domain_rpc import SPECS, method_name

from .call_service import DomainCallServicer, Handler, Method
from .core import DomainCore
from .scoreboard import Scoreboard


def methods(domain: Domain, core: DomainCore, scoreboard: Scoreboard | None) -> dict[str, Method]:
    """Every RPC of ``domain``'s service, by full method name."""
    pb2, _, _, noun = SPECS[domain]
    decide_request = getattr(pb2, f"Decide{noun}CommandRequest")
    decide_response = getattr(pb2, f"Decide{noun}CommandResponse")
    list_request = getattr(pb2, f"List{noun}CommandsRequest")
    list_response = getattr(pb2, f"List{noun}CommandsResponse")

    advances = domain is Domain.TURN_ORDER  # only DecideTurnCommandRequest has `advance`

    def decide(request: Any, state: State) -> Any:
        then_advance = advances and request.advance
        result = core.decide_on(state, request.command, then_advance, request.context.legal_checked)
        return decide_response(result=result)

    def list_commands(request: Any, state: State) -> Any:
        return list_response(commands=core.legal_on(state, request.seat))

    table: dict[str, Method] = {
        f"Decide{noun}Command": _on_state(core, decide_request, decide),
        f"List{noun}Commands": _on_state(core, list_request, list_commands),
    }
    if domain is Domain.TURN_ORDER:

        def advance_turn(request: Any, state: State) -> turn_order_pb2.AdvanceTurnResponse:
            return turn_order_pb2.AdvanceTurnResponse(result=core.advance_on(state))

        table["AdvanceTurn"] = _on_state(core, turn_order_pb2.AdvanceTurnRequest, advance_turn)
    if domain is Domain.SCORING:
        assert scoreboard is not None
        board = scoreboard

        def evaluate(request: Any, state: State) -> scoring_pb2.EvaluateMatchResponse:
            return scoring_pb2.EvaluateMatchResponse(result=core.finish_on(state))

        async def get_scoreboard(request: Any) -> scoring_pb2.GetScoreboardResponse:
            return scoring_pb2.GetScoreboardResponse(matches=await board.current())

        table["EvaluateMatch"] = _on_state(core, scoring_pb2.EvaluateMatchRequest, evaluate)
        table["GetScoreboard"] = Method(scoring_pb2.GetScoreboardRequest, get_scoreboard)
    return {method_name(domain, rpc): method for rpc, method in table.items()}


def _on_state(core: DomainCore, request_type: Any, op: Callable[[Any, State], Any]) -> Method:
    """An RPC answered from the request's state (``op(request, state)``): its handler, and
    its synchronous form for a state that is there without waiting (``DomainCore.state_now``;
    None otherwise, and the handler answers)."""

    async def handler(request: Any) -> Any:
        return op(request, await core.state_for(request.context))

    def now(request: Any) -> Any:
        state = core.state_now(request.context)
        return None if state is None else op(request, state)

    return Method(request_type, handler, now)


def unary_servicer(domain: Domain, table: dict[str, Method]) -> Any:
    """An instance of the generated servicer whose RPCs run ``table``'s handlers."""
    _, pb2_grpc, service, _ = SPECS[domain]
    base = getattr(pb2_grpc, f"{service}Servicer")
    prefix = method_name(domain, "")
    rpcs = {name.removeprefix(prefix): _unary(name, m.handler) for name, m in table.items()}
    return type(f"{service}Servicer", (base,), rpcs)()


def _unary(name: str, handler: Handler) -> Any:
    async def rpc(self: Any, request: Any, context: GrpcContext) -> Any:
        return await handler(request)

    rpc.__name__ = name.rsplit("/", 1)[1]
    return grpc_errors(rpc)


def register(
    domain: Domain, core: DomainCore, scoreboard: Scoreboard | None, timed: bool = False
) -> tuple[Any, DomainCallServicer]:
    """A function adding this domain's servicer and its DomainCallService to a server, and
    the latter (to drain it at shutdown).  ``timed``: the stream's calls are recorded in
    the RPC metrics, as the unary calls are when /metrics is on."""
    _, pb2_grpc, service, _ = SPECS[domain]
    table = methods(domain, core, scoreboard)
    servicer = unary_servicer(domain, table)
    calls = DomainCallServicer(table, timed=timed)
    add = getattr(pb2_grpc, f"add_{service}Servicer_to_server")

    def _register(server: grpc.aio.Server) -> None:
        add(servicer, server)
        domain_pb2_grpc.add_DomainCallServiceServicer_to_server(calls, server)

    return _register, calls
