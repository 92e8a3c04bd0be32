"""The compose files and image recipes agree with the pins (no Docker needed)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from .support import FRONTIER_VERSION, HOSTNET_PORTS, NATS_VERSION, ROOT


def _services(text: str) -> dict[str, str]:
    """Service name -> its block, for the compose files' own simple layout."""
    body = text.split("\nservices:\n", 1)[1].split("\nvolumes:\n", 1)[0]
    names = re.findall(r"^  ([a-z0-9-]+):$", body, re.MULTILINE)
    blocks = re.split(r"^  [a-z0-9-]+:$", body, flags=re.MULTILINE)[1:]
    return dict(zip(names, blocks, strict=True))


def test_the_compose_file_uses_the_pinned_image_tags() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    assert f"image: frontier:${{FRONTIER_TAG:-{FRONTIER_VERSION}}}" in text
    assert f"image: frontier-nats:${{NATS_TAG:-{NATS_VERSION}}}" in text


def test_the_base_image_tag_is_the_same_everywhere() -> None:
    makefile = (ROOT / "Makefile").read_text()
    found = re.search(r"^BASE_IMAGE\s+\?= (frontier-base:bookworm-\d{8})$", makefile, re.M)
    assert found is not None
    tag = found.group(1)
    for dockerfile in ("deploy/Dockerfile", "deploy/nats/Dockerfile"):
        assert f"ARG BASE_IMAGE={tag}\n" in (ROOT / dockerfile).read_text(), dockerfile
    assert f"`{tag}`" in (ROOT / "docs" / "operations.md").read_text()


def test_the_host_network_override_covers_every_service_with_its_own_port() -> None:
    base = _services((ROOT / "docker-compose.yml").read_text())
    override = _services((ROOT / "deploy/docker-compose.hostnet.yml").read_text() + "\n")
    assert set(base) == set(override)
    assert len(base) == 13  # with the web gateway and the arena
    for name, block in override.items():
        assert "network_mode: host" in block, name
    every = "".join(override.values())
    ports = [int(p) for p in re.findall(r'FRONTIER_(?:WEB_)?PORT: "(\d+)"', every)]
    nats = re.findall(r'NATS(?:_HTTP)?_PORT: "(\d+)"', override["nats"])
    ports += [int(p) for p in nats]
    assert len(ports) == len(set(ports)) == 12  # 9 services, the gateway, NATS and monitoring
    assert sorted(ports) == sorted(HOSTNET_PORTS.values())


class _ComposeLoader(yaml.SafeLoader):
    """YAML of compose files: ``!reset`` (an override's "drop the base value") reads as None."""


_ComposeLoader.add_constructor("!reset", lambda loader, node: None)


def _compose(path: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.load((ROOT / path).read_text(), Loader=_ComposeLoader)
    return data


NATS_USERS = {
    "map",
    "combat",
    "crafting",
    "scoring",
    "turn-order",
    "orchestrator-1",
    "orchestrator-2",
    "arena",
}


def test_the_cluster_override_gives_every_nats_user_all_three_nodes_and_replicas_3() -> None:
    base = _compose("docker-compose.yml")["services"]
    cluster = _compose("deploy/docker-compose.cluster.yml")["services"]
    users = {name for name, s in base.items() if "FRONTIER_NATS_URL" in s.get("environment", {})}
    assert users == NATS_USERS
    assert set(cluster) == {"nats", "nats-2", "nats-3", *NATS_USERS}
    for name in NATS_USERS:
        env = cluster[name]["environment"]
        assert env["FRONTIER_NATS_REPLICAS"] == "3"
        assert env["FRONTIER_NATS_URL"].split(",") == [
            f"nats://{node}:4222" for node in ("nats", "nats-2", "nats-3")
        ]
        assert set(cluster[name]["depends_on"]) == {"nats-2", "nats-3"}
    for node in ("nats", "nats-2", "nats-3"):
        spec = cluster[node]
        assert spec["entrypoint"] == ["nats-server", "-c", "/etc/nats/cluster.conf"]
        env = spec["environment"]
        assert env["NATS_SERVER_NAME"] == node
        routes = [env[f"NATS_ROUTE_{i}"] for i in (1, 2, 3)]
        assert routes == [
            f"nats://{n}:{env['NATS_CLUSTER_PORT']}" for n in ("nats", "nats-2", "nats-3")
        ]
    conf = (ROOT / "deploy/nats/cluster.conf").read_text()
    for variable in ("NATS_SERVER_NAME", "NATS_CLUSTER_PORT", "NATS_ROUTE_1", "NATS_ROUTE_3"):
        assert f"${variable}" in conf
    assert "sync_interval" not in conf.replace("`sync_interval: always`", "")
    assert "cluster.conf" in (ROOT / "deploy/nats/Dockerfile").read_text()


def test_the_cluster_host_network_override_gives_each_node_its_own_ports() -> None:
    cluster = _compose("deploy/docker-compose.cluster.yml")["services"]
    hostnet = _compose("deploy/docker-compose.cluster-hostnet.yml")["services"]
    base_hostnet = _compose("deploy/docker-compose.hostnet.yml")["services"]
    assert set(hostnet) == set(cluster)
    nodes = {"nats": {**base_hostnet["nats"]["environment"], **hostnet["nats"]["environment"]}}
    for node in ("nats-2", "nats-3"):
        assert hostnet[node]["network_mode"] == "host"
        nodes[node] = hostnet[node]["environment"]
    ports = [int(env[k]) for env in nodes.values() for k in ("NATS_PORT", "NATS_HTTP_PORT")]
    cluster_ports = [int(env["NATS_CLUSTER_PORT"]) for env in nodes.values()]
    assert len(set(ports + cluster_ports)) == 9
    assert not set(ports + cluster_ports) & set(HOSTNET_PORTS.values()) - {14222, 18222}
    for env in nodes.values():
        assert [env[f"NATS_ROUTE_{i}"] for i in (1, 2, 3)] == [
            f"nats://127.0.0.1:{p}" for p in cluster_ports
        ]
    clients = ",".join(f"nats://127.0.0.1:{env['NATS_PORT']}" for env in nodes.values())
    for name in NATS_USERS:
        assert hostnet[name]["environment"]["FRONTIER_NATS_URL"] == clients


def test_with_host_networking_every_process_has_its_own_metrics_port() -> None:
    override = _compose("deploy/docker-compose.hostnet.yml")["services"]
    ports = {
        name: int(spec["environment"]["FRONTIER_METRICS_PORT"])
        for name, spec in override.items()
        if name not in ("nats", "bot-1", "bot-2", "web")  # the web gateway serves no metrics
    }
    assert len(ports) == 9
    assert len(set(ports.values())) == 9
    assert not set(ports.values()) & set(HOSTNET_PORTS.values())


COMPOSE_FILES = [
    "docker-compose.yml",
    *sorted(f"deploy/{p.name}" for p in (ROOT / "deploy").glob("docker-compose*.yml")),
]
LOOPBACK = {"127.0.0.1", "::1", "[::1]", "localhost"}
BIND_DEFAULT = re.compile(r"^\$\{FRONTIER_BIND_ADDRESS:-(?P<default>[^}]+)\}$")


def _published_host_address(port: object) -> str:
    """The host address a ``ports:`` entry publishes on, with ``${VAR:-default}`` read as
    its default (what ``docker compose up`` uses when the variable is unset); "" = every
    interface."""
    if isinstance(port, dict):  # the long syntax
        return str(port.get("host_ip", ""))
    text = str(port)
    if text.startswith("${"):  # "${FRONTIER_BIND_ADDRESS:-127.0.0.1}:8080:8080"
        variable, _, rest = text.partition("}:")
        found = BIND_DEFAULT.match(variable + "}")
        assert found is not None, f"{text}: only FRONTIER_BIND_ADDRESS chooses the interface"
        return found.group("default") if rest.count(":") == 1 else ""
    parts = text.rsplit(":", 2)
    return parts[0] if len(parts) == 3 else ""  # "8080:8080" has no address: every interface


@pytest.mark.parametrize("path", COMPOSE_FILES)
def test_every_published_port_is_bound_to_loopback_by_default(path: str) -> None:
    """The stack speaks plaintext gRPC and HTTP: nothing listens beyond the machine unless
    the operator asks for it (FRONTIER_BIND_ADDRESS).  With host networking there is nothing
    to publish, and each process itself must listen on loopback."""
    services = _compose(path)["services"]
    published = 0
    for name, spec in services.items():
        for port in spec.get("ports") or []:
            published += 1
            assert _published_host_address(port) in LOOPBACK, (path, name, port)
        if spec.get("network_mode") == "host":
            env = spec.get("environment") or {}
            for key in ("FRONTIER_HOST", "NATS_HOST"):
                assert env.get(key, "127.0.0.1") in LOOPBACK, (path, name, key)
    if path == "docker-compose.yml":
        assert published == 6  # two orchestrators, the arena, the gateway, NATS, monitoring


@pytest.mark.parametrize(
    ("port", "address"),
    [
        ("8080:8080", ""),
        ("0.0.0.0:8080:8080", "0.0.0.0"),
        ("127.0.0.1:4222:4222", "127.0.0.1"),
        ("${FRONTIER_BIND_ADDRESS:-127.0.0.1}:8080:8080", "127.0.0.1"),
        ("${FRONTIER_BIND_ADDRESS:-0.0.0.0}:8080:8080", "0.0.0.0"),
        ({"target": 8080, "published": 8080}, ""),
        ({"target": 8080, "published": 8080, "host_ip": "127.0.0.1"}, "127.0.0.1"),
    ],
)
def test_the_port_reader_sees_an_unbound_port(port: object, address: str) -> None:
    """The check above would catch the ports of old: the forms compose accepts, read right."""
    assert _published_host_address(port) == address
