"""The domain services' RPCs as both sides name them: services, methods, limits, span tags.

The orchestrator calls the five domain services, and the domain services serve them; both
sides need the same names (``/frontier.v1.MapService/DecideMapCommand``), the same limit on a
streamed call's request, and the same span attributes, so they live here, in the wire layer
both import, rather than in either side's package.
"""

from __future__ import annotations

from types import ModuleType

from frontier.engine.domains import Domain
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
)

# domain -> (messages module, grpc module, service name, RPC noun)
SPECS: dict[Domain, tuple[ModuleType, ModuleType, str, str]] = {
    Domain.MAP: (map_pb2, map_pb2_grpc, "MapService", "Map"),
    Domain.COMBAT: (combat_pb2, combat_pb2_grpc, "CombatService", "Combat"),
    Domain.CRAFTING: (crafting_pb2, crafting_pb2_grpc, "CraftingService", "Crafting"),
    Domain.TURN_ORDER: (turn_order_pb2, turn_order_pb2_grpc, "TurnOrderService", "Turn"),
    Domain.SCORING: (scoring_pb2, scoring_pb2_grpc, "ScoringService", "Scoring"),
}

CALLS_SERVICE = str(domain_pb2.DESCRIPTOR.services_by_name["DomainCallService"].full_name)

# A call's request bytes at most: gRPC's own limit on one received message (4 MiB, which
# bounds a unary call's request) less room for the ExchangeRequest around them, so that a
# request over it is refused for its id rather than ending the stream.
MAX_CALL_REQUEST_BYTES = 4 * 1024 * 1024 - 64 * 1024

# Set on the span of a call that came as a DomainCallService message, so a trace tells
# the streamed calls from the unary ones.
STREAMED_ATTRIBUTE = "frontier.domain_call_stream"


def full_name(domain: Domain) -> str:
    """The service's full name, e.g. "frontier.v1.MapService"."""
    pb2, _, service, _ = SPECS[domain]
    return str(pb2.DESCRIPTOR.services_by_name[service].full_name)


def method_name(domain: Domain, rpc: str) -> str:
    """The full method name gRPC uses, e.g. "/frontier.v1.MapService/DecideMapCommand"."""
    return f"/{full_name(domain)}/{rpc}"


def span_attributes(method: str) -> dict[str, str | bool]:
    """The attributes the gRPC instrumentation gives a unary call's span, and one saying
    that the call came as a DomainCallService message."""
    service, _, rpc = method.lstrip("/").partition("/")
    return {
        "rpc.system": "grpc",
        "rpc.service": service,
        "rpc.method": rpc,
        STREAMED_ATTRIBUTE: True,
    }
