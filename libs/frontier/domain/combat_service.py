"""The combat service (``python -m services.combat``): the command kinds of the combat
domain -- battles, ambushes, hits and removals, the Vagabond's strikes -- decided and listed
on its projection of a match (the kinds are listed in ``frontier.engine.domains``).

Its RPCs are one table (:func:`rpcs`), served both as ``CombatService``'s unary RPCs
(:class:`CombatServicer`) and as DomainCallService messages (see :mod:`.service`).
"""

from __future__ import annotations

from typing import Any

from frontier.engine.domains import Domain
from frontier.runtime.errors import GrpcContext, grpc_errors
from frontier.v1 import combat_pb2, combat_pb2_grpc

from . import main as process
from .core import DomainCore
from .scoreboard import Scoreboard
from .service import DomainService, Rpcs, decide_rpc, list_rpc


def rpcs(core: DomainCore, scoreboard: Scoreboard | None = None) -> Rpcs:
    """``CombatService``'s RPCs, each answered on the request's state by ``core``."""
    return {
        "DecideCombatCommand": decide_rpc(
            core, combat_pb2.DecideCombatCommandRequest, combat_pb2.DecideCombatCommandResponse
        ),
        "ListCombatCommands": list_rpc(
            core, combat_pb2.ListCombatCommandsRequest, combat_pb2.ListCombatCommandsResponse
        ),
    }


class CombatServicer(combat_pb2_grpc.CombatServiceServicer):
    """``CombatService``'s unary RPCs: each runs its handler in :func:`rpcs`' table."""

    def __init__(self, rpcs: Rpcs) -> None:
        self.rpcs = rpcs

    @grpc_errors
    async def DecideCombatCommand(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["DecideCombatCommand"].handler(request)

    @grpc_errors
    async def ListCombatCommands(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["ListCombatCommands"].handler(request)


SERVICE = DomainService(
    Domain.COMBAT, rpcs, CombatServicer, combat_pb2_grpc.add_CombatServiceServicer_to_server
)


def main() -> None:
    """Run the combat service as this process (``python -m services.combat``)."""
    process.main(SERVICE)
