"""The crafting service (``python -m services.crafting``): the command kinds of the
crafting domain -- crafting, the Vagabond's items, ruins, quests and aid, contraband --
decided and listed on its projection of a match (the kinds are listed in
``frontier.engine.domains``).

Its RPCs are one table (:func:`rpcs`), served both as ``CraftingService``'s unary RPCs
(:class:`CraftingServicer`) and as DomainCallService messages (see :mod:`.service`).
"""

from __future__ import annotations

from typing import Any

from frontier.engine.domains import Domain
from frontier.runtime.errors import GrpcContext, grpc_errors
from frontier.v1 import crafting_pb2, crafting_pb2_grpc

from . import main as process
from .core import DomainCore
from .scoreboard import Scoreboard
from .service import DomainService, Rpcs, decide_rpc, list_rpc


def rpcs(core: DomainCore, scoreboard: Scoreboard | None = None) -> Rpcs:
    """``CraftingService``'s RPCs, each answered on the request's state by ``core``."""
    return {
        "DecideCraftingCommand": decide_rpc(
            core,
            crafting_pb2.DecideCraftingCommandRequest,
            crafting_pb2.DecideCraftingCommandResponse,
        ),
        "ListCraftingCommands": list_rpc(
            core,
            crafting_pb2.ListCraftingCommandsRequest,
            crafting_pb2.ListCraftingCommandsResponse,
        ),
    }


class CraftingServicer(crafting_pb2_grpc.CraftingServiceServicer):
    """``CraftingService``'s unary RPCs: each runs its handler in :func:`rpcs`' table."""

    def __init__(self, rpcs: Rpcs) -> None:
        self.rpcs = rpcs

    @grpc_errors
    async def DecideCraftingCommand(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["DecideCraftingCommand"].handler(request)

    @grpc_errors
    async def ListCraftingCommands(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["ListCraftingCommands"].handler(request)


SERVICE = DomainService(
    Domain.CRAFTING, rpcs, CraftingServicer, crafting_pb2_grpc.add_CraftingServiceServicer_to_server
)


def main() -> None:
    """Run the crafting service as this process (``python -m services.crafting``)."""
    process.main(SERVICE)
