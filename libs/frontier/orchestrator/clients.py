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
from frontier.wire.domain_rpc import MAX_CALL_REQUEST_BYTES, method_name

from .call_streams import CallStreams, StreamUnsupported


class DomainClients:
    """The orchestrator's calls to the domain services: decide, advance, evaluate.

    With ``FRONTIER_DOMAIN_STREAMS`` (the default) they go as messages on a few long-lived
    DomainCallService streams per service (:mod:`.call_streams`: far less CPU than unary calls
    on both sides), else, or for a service that does not serve the stream, as the
    unary RPCs.  Either way a call answers, or fails, as the unary RPC would."""

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
        # The streams' own channels have no interceptors: the tracing interceptor would
        # make a span of each stream's whole life; CallStreams traces every call instead.
        self.streams: dict[Domain, CallStreams] = {}
        if settings.domain_streams:
            self.streams = {
                d: CallStreams(
                    aio_channel(url, settings, options=options),
                    settings.domain_streams_per_service,
                    settings.domain_stream_max_age_s,
                )
                for d, url in urls.items()
            }
        self.map = map_pb2_grpc.MapServiceStub(self.channels[Domain.MAP])
        self.combat = combat_pb2_grpc.CombatServiceStub(self.channels[Domain.COMBAT])
        self.crafting = crafting_pb2_grpc.CraftingServiceStub(self.channels[Domain.CRAFTING])
        self.scoring = scoring_pb2_grpc.ScoringServiceStub(self.channels[Domain.SCORING])
        self.turn = turn_order_pb2_grpc.TurnOrderServiceStub(self.channels[Domain.TURN_ORDER])
        self._decide_rpc: dict[Domain, _Rpc] = {
            domain: _rpc(
                domain,
                stub,
                f"Decide{noun}Command",
                pb2,
                f"Decide{noun}CommandRequest",
                f"Decide{noun}CommandResponse",
            )
            for domain, (pb2, stub, noun) in {
                Domain.MAP: (map_pb2, self.map, "Map"),
                Domain.COMBAT: (combat_pb2, self.combat, "Combat"),
                Domain.CRAFTING: (crafting_pb2, self.crafting, "Crafting"),
                Domain.SCORING: (scoring_pb2, self.scoring, "Scoring"),
                Domain.TURN_ORDER: (turn_order_pb2, self.turn, "Turn"),
            }.items()
        }
        self._advance_rpc = _rpc(
            Domain.TURN_ORDER,
            self.turn,
            "AdvanceTurn",
            turn_order_pb2,
            "AdvanceTurnRequest",
            "AdvanceTurnResponse",
        )
        self._evaluate_rpc = _rpc(
            Domain.SCORING,
            self.scoring,
            "EvaluateMatch",
            scoring_pb2,
            "EvaluateMatchRequest",
            "EvaluateMatchResponse",
        )

    async def close(self) -> None:
        for streams in self.streams.values():
            streams.close()
            await streams.channel.close()
        for channel in self.channels.values():
            await channel.close()

    async def decide(
        self, domain: Domain, ctx: domain_pb2.DomainContext, cmd: types_pb2.Command
    ) -> DomainReply:
        """The owning domain's events for one command; turn-order's include the advance
        after it (DecideTurnCommandRequest.advance: one round trip instead of two)."""
        rpc = self._decide_rpc[domain]
        request = rpc.request_type(context=ctx, command=cmd)
        if domain is Domain.TURN_ORDER:
            request.advance = True
        reply = await self._call(rpc, request)
        return DomainReply.of(reply.result)

    async def advance(self, ctx: domain_pb2.DomainContext) -> DomainReply:
        """Turn-order's steps, turns and rounds after the events in ``ctx``."""
        rpc = self._advance_rpc
        reply = await self._call(rpc, rpc.request_type(context=ctx))
        return DomainReply.of(reply.result)

    async def evaluate(self, ctx: domain_pb2.DomainContext) -> DomainReply:
        """Scoring's verdict after the events in ``ctx`` (the match's end at the round
        limit)."""
        rpc = self._evaluate_rpc
        reply = await self._call(rpc, rpc.request_type(context=ctx))
        return DomainReply.of(reply.result)

    async def _call(self, rpc: _Rpc, request: Any) -> Any:
        """``request``'s response, over the domain's streams when it can, else unary."""
        streams = self.streams.get(rpc.domain)
        if streams is not None and streams.streaming():
            data = request.SerializeToString()
            # a request too big for a stream message goes alone, as today
            if len(data) <= MAX_CALL_REQUEST_BYTES:
                try:
                    raw = await streams.call(rpc.method, data, self.timeout)
                except StreamUnsupported:
                    pass  # an older service: the same call as a unary RPC, at once
                else:
                    return rpc.response_type.FromString(raw)
        return await rpc.unary(request, timeout=self.timeout)


@dataclass(frozen=True, slots=True)
class _Rpc:
    """One unary RPC of a domain service, as both ways of calling it need it."""

    domain: Domain
    unary: Any  # the stub's method
    method: str  # its full name on a stream
    request_type: Any
    response_type: Any


def _rpc(domain: Domain, stub: Any, rpc: str, pb2: Any, request: str, response: str) -> _Rpc:
    return _Rpc(
        domain,
        getattr(stub, rpc),
        method_name(domain, rpc),
        getattr(pb2, request),
        getattr(pb2, response),
    )


@dataclass(frozen=True, slots=True)
class DomainReply:
    """A domain service's events for one call, and which of its replicas decided them (see
    tails.py)."""

    events: list[Event]
    replica: str
    # the same events as the service sent them: the batch reuses them rather than
    # converting the events back (the conversion is lossless, so the bytes are the same)
    wire: list[types_pb2.Event]

    @classmethod
    def of(cls, result: domain_pb2.DomainEvents) -> DomainReply:
        """A reply's ``DomainEvents``, its events converted once."""
        wire = list(result.events)
        return cls([event_from_proto(e) for e in wire], result.replica, wire)
