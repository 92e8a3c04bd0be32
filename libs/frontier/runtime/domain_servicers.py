"""gRPC servicers of the five domain services, built on :class:`DomainCore`.

Map, combat and crafting have the same two RPCs under different names; rather than three
copies of the same glue, ``command_servicer`` builds each from the generated base class.
Turn-order and scoring add their own RPCs on top.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import grpc

from frontier.engine.domains import Domain
from frontier.v1 import (
    combat_pb2,
    combat_pb2_grpc,
    crafting_pb2,
    crafting_pb2_grpc,
    map_pb2,
    map_pb2_grpc,
    scoring_pb2,
    scoring_pb2_grpc,
    turn_order_pb2,
    turn_order_pb2_grpc,
)

from .domain import DomainCore, GrpcContext, grpc_errors
from .scoreboard import Scoreboard

# domain -> (messages module, grpc module, service name, RPC noun)
SPECS: dict[Domain, tuple[ModuleType, ModuleType, str, str]] = {
    Domain.MAP: (map_pb2, map_pb2_grpc, "MapService", "Map"),
    Domain.COMBAT: (combat_pb2, combat_pb2_grpc, "CombatService", "Combat"),
    Domain.CRAFTING: (crafting_pb2, crafting_pb2_grpc, "CraftingService", "Crafting"),
    Domain.TURN_ORDER: (turn_order_pb2, turn_order_pb2_grpc, "TurnOrderService", "Turn"),
    Domain.SCORING: (scoring_pb2, scoring_pb2_grpc, "ScoringService", "Scoring"),
}


def full_name(domain: Domain) -> str:
    pb2, _, service, _ = SPECS[domain]
    return str(pb2.DESCRIPTOR.services_by_name[service].full_name)


def command_servicer(domain: Domain, core: DomainCore) -> Any:
    """An instance of the generated servicer with Decide<Noun>Command / List<Noun>Commands."""
    pb2, pb2_grpc, service, noun = SPECS[domain]
    base = getattr(pb2_grpc, f"{service}Servicer")
    decide_response = getattr(pb2, f"Decide{noun}CommandResponse")
    list_response = getattr(pb2, f"List{noun}CommandsResponse")

    advances = domain is Domain.TURN_ORDER  # only DecideTurnCommandRequest has `advance`

    @grpc_errors
    async def decide(self: Any, request: Any, context: GrpcContext) -> Any:
        then_advance = advances and request.advance
        return decide_response(
            result=await core.decide(request.context, request.command, then_advance)
        )

    @grpc_errors
    async def list_commands(self: Any, request: Any, context: GrpcContext) -> Any:
        return list_response(commands=await core.legal(request.context, request.seat))

    methods: dict[str, Any] = {
        f"Decide{noun}Command": decide,
        f"List{noun}Commands": list_commands,
    }
    if domain is Domain.TURN_ORDER:

        @grpc_errors
        async def advance_turn(
            self: Any, request: Any, context: GrpcContext
        ) -> turn_order_pb2.AdvanceTurnResponse:
            return turn_order_pb2.AdvanceTurnResponse(result=await core.advance(request.context))

        methods["AdvanceTurn"] = advance_turn
    cls = type(f"{noun}Servicer", (base,), methods)
    return cls()


def register(domain: Domain, core: DomainCore, scoreboard: Scoreboard | None) -> Any:
    """Returns a function adding this domain's servicer to a server."""
    _, pb2_grpc, service, _ = SPECS[domain]
    servicer = command_servicer(domain, core)
    if domain is Domain.SCORING:
        assert scoreboard is not None
        servicer = _with_scoring(servicer, core, scoreboard)
    add = getattr(pb2_grpc, f"add_{service}Servicer_to_server")

    def _register(server: grpc.aio.Server) -> None:
        add(servicer, server)

    return _register


def _with_scoring(servicer: Any, core: DomainCore, scoreboard: Scoreboard) -> Any:
    @grpc_errors
    async def evaluate(
        self: Any, request: Any, context: GrpcContext
    ) -> scoring_pb2.EvaluateMatchResponse:
        return scoring_pb2.EvaluateMatchResponse(result=await core.finish(request.context))

    @grpc_errors
    async def get_scoreboard(
        self: Any, request: Any, context: GrpcContext
    ) -> scoring_pb2.GetScoreboardResponse:
        return scoring_pb2.GetScoreboardResponse(matches=await scoreboard.current())

    cls = type(
        "ScoringServicer",
        (type(servicer),),
        {"EvaluateMatch": evaluate, "GetScoreboard": get_scoreboard},
    )
    return cls()
