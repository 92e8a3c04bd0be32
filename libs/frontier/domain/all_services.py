"""The five domain services by domain, for what starts or inspects them all (tests, tools)."""

from __future__ import annotations

from frontier.engine.domains import Domain

from . import combat_service, crafting_service, map_service, scoring_service, turn_order_service
from .service import DomainService

SERVICES: dict[Domain, DomainService] = {
    Domain.MAP: map_service.SERVICE,
    Domain.COMBAT: combat_service.SERVICE,
    Domain.CRAFTING: crafting_service.SERVICE,
    Domain.TURN_ORDER: turn_order_service.SERVICE,
    Domain.SCORING: scoring_service.SERVICE,
}
