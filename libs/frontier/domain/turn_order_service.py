"""The turn-order service (``python -m services.turn_order``): the command kinds that move
a turn on -- ending phases, discarding, the Eyrie's leaders and Decree -- decided and listed
on its projection of a match, and the advance of a match from one step of a turn to the
next (the kinds are listed in ``frontier.engine.domains``).

Its RPCs are one table (:func:`rpcs`), served both as ``TurnOrderService``'s unary RPCs
(:class:`TurnOrderServicer`) and as DomainCallService messages (see :mod:`.service`).
"""

from __future__ import annotations

from typing import Any

from frontier.engine.domains import Domain
from frontier.engine.state import State
from frontier.runtime.errors import GrpcContext, grpc_errors
from frontier.v1 import turn_order_pb2, turn_order_pb2_grpc

from . import main as process
from .core import DomainCore
from .scoreboard import Scoreboard
from .service import DomainService, Rpcs, list_rpc, on_state


def rpcs(core: DomainCore, scoreboard: Scoreboard | None = None) -> Rpcs:
    """``TurnOrderService``'s RPCs, each answered on the request's state by ``core``."""

    def decide(
        request: turn_order_pb2.DecideTurnCommandRequest, state: State
    ) -> turn_order_pb2.DecideTurnCommandResponse:
        # ``advance``: the advance after the command in the same call, as AdvanceTurn
        # would give it (the orchestrator asks for it: one round trip instead of two)
        result = core.decide_on(
            state, request.command, request.advance, request.context.legal_checked
        )
        return turn_order_pb2.DecideTurnCommandResponse(result=result)

    def advance_turn(
        request: turn_order_pb2.AdvanceTurnRequest, state: State
    ) -> turn_order_pb2.AdvanceTurnResponse:
        return turn_order_pb2.AdvanceTurnResponse(result=core.advance_on(state))

    return {
        "DecideTurnCommand": on_state(core, turn_order_pb2.DecideTurnCommandRequest, decide),
        "ListTurnCommands": list_rpc(
            core, turn_order_pb2.ListTurnCommandsRequest, turn_order_pb2.ListTurnCommandsResponse
        ),
        "AdvanceTurn": on_state(core, turn_order_pb2.AdvanceTurnRequest, advance_turn),
    }


class TurnOrderServicer(turn_order_pb2_grpc.TurnOrderServiceServicer):
    """``TurnOrderService``'s unary RPCs: each runs its handler in :func:`rpcs`' table."""

    def __init__(self, rpcs: Rpcs) -> None:
        self.rpcs = rpcs

    @grpc_errors
    async def DecideTurnCommand(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["DecideTurnCommand"].handler(request)

    @grpc_errors
    async def ListTurnCommands(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["ListTurnCommands"].handler(request)

    @grpc_errors
    async def AdvanceTurn(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["AdvanceTurn"].handler(request)


SERVICE = DomainService(
    Domain.TURN_ORDER,
    rpcs,
    TurnOrderServicer,
    turn_order_pb2_grpc.add_TurnOrderServiceServicer_to_server,
)


def main() -> None:
    """Run the turn-order service as this process (``python -m services.turn_order``)."""
    process.main(SERVICE)
