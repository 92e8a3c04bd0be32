"""The five domain services' modules: each one's RPC table holds every RPC its proto
service declares, with the proto's request type, and its unary servicer implements them
all; the process entry point runs the right one."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from frontier.domain.all_services import SERVICES
from frontier.domain.core import DomainCore
from frontier.domain.scoreboard import Scoreboard
from frontier.engine.domains import Domain
from frontier.wire.domain_rpc import SPECS


@pytest.mark.parametrize("domain", list(Domain))
def test_each_service_serves_every_rpc_its_proto_declares(domain: Domain) -> None:
    service = SERVICES[domain]
    assert service.domain is domain
    projections: Any = None  # nothing is called here
    rpcs = service.rpcs(DomainCore(domain, projections), Scoreboard())
    pb2, _, name, _ = SPECS[domain]
    declared = pb2.DESCRIPTOR.services_by_name[name].methods
    assert set(rpcs) == {m.name for m in declared}
    for method in declared:
        request_type = rpcs[method.name].request_type
        assert request_type.DESCRIPTOR.full_name == method.input_type.full_name
    servicer = service.servicer(rpcs)  # instantiable: no abstract RPC left
    for method in declared:
        assert callable(getattr(servicer, method.name))


def test_only_scoring_keeps_a_scoreboard_and_it_needs_one() -> None:
    assert [d for d, s in SERVICES.items() if s.keeps_scoreboard] == [Domain.SCORING]
    projections: Any = None
    with pytest.raises(ValueError, match="scoreboard"):
        SERVICES[Domain.SCORING].rpcs(DomainCore(Domain.SCORING, projections), None)


@pytest.mark.parametrize("domain", list(Domain))
def test_each_services_package_runs_its_own_module(domain: Domain) -> None:
    """``python -m services.<name>`` runs frontier.domain.<name>_service."""
    entry = importlib.import_module(f"services.{domain.value}.__main__")
    module = importlib.import_module(f"frontier.domain.{domain.value}_service")
    assert entry.main is module.main
    assert module.SERVICE is SERVICES[domain]
