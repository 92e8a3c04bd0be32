"""gRPC clients of the five domain services, with deadlines and trace propagation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from frontier.engine.domains import Domain
from frontier.engine.model import Event
from frontier.runtime.settings import OrchestratorSettings
from frontier.runtime.telemetry import grpc_client_interceptors
from frontier.runtime.tls import aio_channel
from frontier.v1 import (
    combat_pb2,
    combat_pb2_grpc,
    crafting_pb2,
    crafting_pb2_grpc,
    domain_pb2,
    map_pb2,
    map_pb2_grpc,
    scoring_pb2,
    scoring_pb2_grpc,
    turn_order_pb2,
    turn_order_pb2_grpc,
    types_pb2,
)
from frontier.wire.convert import event_from_proto


class DomainClients:
    def __init__(self, settings: OrchestratorSettings) -> None:
        self.timeout = settings.call_timeout_s
        urls = {
            Domain.MAP: settings.map_url,
            Domain.COMBAT: settings.combat_url,
            Domain.CRAFTING: settings.crafting_url,
            Domain.SCORING: settings.scoring_url,
            Domain.TURN_ORDER: settings.turn_order_url,
        }
        interceptors = grpc_client_interceptors()
        # round_robin: a domain name that resolves to several replicas (compose --scale,
        # a Kubernetes headless service) spreads the calls over all of them.
        options = (("grpc.lb_policy_name", "round_robin"),)
        self.channels = {
            d: aio_channel(url, settings, options=options, interceptors=interceptors)
            for d, url in urls.items()
        }
        self.map = map_pb2_grpc.MapServiceStub(self.channels[Domain.MAP])
        self.combat = combat_pb2_grpc.CombatServiceStub(self.channels[Domain.COMBAT])
        self.crafting = crafting_pb2_grpc.CraftingServiceStub(self.channels[Domain.CRAFTING])
        self.scoring = scoring_pb2_grpc.ScoringServiceStub(self.channels[Domain.SCORING])
        self.turn = turn_order_pb2_grpc.TurnOrderServiceStub(self.channels[Domain.TURN_ORDER])
        self._decide_rpc: dict[Domain, tuple[Any, Any]] = {
            Domain.MAP: (self.map.DecideMapCommand, map_pb2.DecideMapCommandRequest),
            Domain.COMBAT: (self.combat.DecideCombatCommand, combat_pb2.DecideCombatCommandRequest),
            Domain.CRAFTING: (
                self.crafting.DecideCraftingCommand,
                crafting_pb2.DecideCraftingCommandRequest,
            ),
            Domain.SCORING: (
                self.scoring.DecideScoringCommand,
                scoring_pb2.DecideScoringCommandRequest,
            ),
            Domain.TURN_ORDER: (
                self.turn.DecideTurnCommand,
                turn_order_pb2.DecideTurnCommandRequest,
            ),
        }

    async def close(self) -> None:
        for channel in self.channels.values():
            await channel.close()

    async def decide(
        self, domain: Domain, ctx: domain_pb2.DomainContext, cmd: types_pb2.Command
    ) -> Answer:
        """The owning domain's events for one command; turn-order's include the advance
        after it (DecideTurnCommandRequest.advance: one round trip instead of two)."""
        call, request_type = self._decide_rpc[domain]
        request = request_type(context=ctx, command=cmd)
        if domain is Domain.TURN_ORDER:
            request.advance = True
        reply = await call(request, timeout=self.timeout)
        return answer(reply.result)

    async def advance(self, ctx: domain_pb2.DomainContext) -> Answer:
        reply = await self.turn.AdvanceTurn(
            turn_order_pb2.AdvanceTurnRequest(context=ctx), timeout=self.timeout
        )
        return answer(reply.result)

    async def evaluate(self, ctx: domain_pb2.DomainContext) -> Answer:
        reply = await self.scoring.EvaluateMatch(
            scoring_pb2.EvaluateMatchRequest(context=ctx), timeout=self.timeout
        )
        return answer(reply.result)


@dataclass(frozen=True, slots=True)
class Answer:
    """A domain's events, and which of its replicas decided them (see tails.py)."""

    events: list[Event]
    replica: str
    # the same events as the service sent them: the batch reuses them rather than
    # converting the events back (the conversion is lossless, so the bytes are the same)
    wire: list[types_pb2.Event]


def answer(result: domain_pb2.DomainEvents) -> Answer:
    wire = list(result.events)
    return Answer([event_from_proto(e) for e in wire], result.replica, wire)
