"""The orchestrator's client of the five domain services, with deadlines and tracing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from frontier.engine.domains import Domain
from frontier.engine.model import Event
from frontier.runtime.settings import OrchestratorSettings
from frontier.runtime.tls import aio_channel
from frontier.v1 import domain_pb2, types_pb2
from frontier.wire.convert import event_from_proto
from frontier.wire.domain_rpc import SPECS, method_name

from .call_streams import CallStreams


class DomainClients:
    """The orchestrator's calls to the domain services: decide, advance, evaluate.

    Every call goes as a message on one of a few long-lived DomainCallService streams per
    service (:mod:`.call_streams`: a fraction of a unary call's CPU on both sides), and
    answers, or fails, as the service's unary RPC would."""

    def __init__(self, settings: OrchestratorSettings) -> None:
        self.timeout = settings.call_timeout_s
        urls = {
            Domain.MAP: settings.map_url,
            Domain.COMBAT: settings.combat_url,
            Domain.CRAFTING: settings.crafting_url,
            Domain.SCORING: settings.scoring_url,
            Domain.TURN_ORDER: settings.turn_order_url,
        }
        # round_robin: a domain name that resolves to several replicas (compose --scale,
        # a Kubernetes headless service) spreads the streams over all of them.  No client
        # interceptors: the tracing one would make a span of each stream's whole life;
        # CallStreams traces every call instead.
        options = (("grpc.lb_policy_name", "round_robin"),)
        self.streams: dict[Domain, CallStreams] = {
            d: CallStreams(
                aio_channel(url, settings, options=options),
                settings.domain_streams_per_service,
                settings.domain_stream_max_age_s,
            )
            for d, url in urls.items()
        }
        self._decide_rpc = {
            domain: _rpc(domain, f"Decide{SPECS[domain][3]}Command") for domain in urls
        }
        self._advance_rpc = _rpc(Domain.TURN_ORDER, "AdvanceTurn")
        self._evaluate_rpc = _rpc(Domain.SCORING, "EvaluateMatch")

    async def close(self) -> None:
        for streams in self.streams.values():
            streams.close()
            await streams.channel.close()

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
        """``request``'s response, over the domain's streams."""
        data = request.SerializeToString()
        raw = await self.streams[rpc.domain].call(rpc.method, data, self.timeout)
        return rpc.response_type.FromString(raw)


@dataclass(frozen=True, slots=True)
class _Rpc:
    """One RPC of a domain service: its full name on a stream and its message types."""

    domain: Domain
    method: str
    request_type: Any
    response_type: Any


def _rpc(domain: Domain, rpc: str) -> _Rpc:
    """``rpc`` of ``domain``'s service, whose messages are ``<rpc>Request`` and
    ``<rpc>Response``."""
    pb2 = SPECS[domain][0]
    return _Rpc(
        domain,
        method_name(domain, rpc),
        getattr(pb2, f"{rpc}Request"),
        getattr(pb2, f"{rpc}Response"),
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
