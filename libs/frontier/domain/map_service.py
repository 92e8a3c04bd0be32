"""The map service (``python -m services.map``): the command kinds of the map domain -- placing,
marching, recruiting, building, moving -- decided and listed on its projection of a match
(the kinds are listed in ``frontier.engine.domains``).

Its RPCs are one table (:func:`rpcs`), served both as ``MapService``'s unary RPCs
(:class:`MapServicer`) and as DomainCallService messages (see :mod:`.service`).
"""

from __future__ import annotations

from typing import Any

from frontier.engine.domains import Domain
from frontier.runtime.errors import GrpcContext, grpc_errors
from frontier.v1 import map_pb2, map_pb2_grpc

from . import main as process
from .core import DomainCore
from .scoreboard import Scoreboard
from .service import DomainService, Rpcs, decide_rpc, list_rpc


def rpcs(core: DomainCore, scoreboard: Scoreboard | None = None) -> Rpcs:
    """``MapService``'s RPCs, each answered on the request's state by ``core``."""
    return {
        "DecideMapCommand": decide_rpc(
            core, map_pb2.DecideMapCommandRequest, map_pb2.DecideMapCommandResponse
        ),
        "ListMapCommands": list_rpc(
            core, map_pb2.ListMapCommandsRequest, map_pb2.ListMapCommandsResponse
        ),
    }


class MapServicer(map_pb2_grpc.MapServiceServicer):
    """``MapService``'s unary RPCs: each runs its handler in :func:`rpcs`' table."""

    def __init__(self, rpcs: Rpcs) -> None:
        self.rpcs = rpcs

    @grpc_errors
    async def DecideMapCommand(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["DecideMapCommand"].handler(request)

    @grpc_errors
    async def ListMapCommands(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["ListMapCommands"].handler(request)


SERVICE = DomainService(
    Domain.MAP, rpcs, MapServicer, map_pb2_grpc.add_MapServiceServicer_to_server
)


def main() -> None:
    """Run the map service as this process (``python -m services.map``)."""
    process.main(SERVICE)
