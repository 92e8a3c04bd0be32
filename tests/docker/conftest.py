"""Fixtures of the container tests (see support.py for what they need and when they skip)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest
from testcontainers.compose import DockerCompose

from frontier.testing.stacks import port_taken

from .support import (
    MIRROR,
    PROJECT,
    ROOT,
    ComposeStack,
    compose_files,
    exclusive,
    require_docker,
)


@pytest.fixture(autouse=True)
def _needs_docker(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("docker") is not None:
        require_docker()


@pytest.fixture(scope="module")
def compose_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ComposeStack]:
    """docker-compose.yml (+ the host-network override where needed), up and healthy; down
    again after the module, so that the rest of the suite does not share the CPU with it."""
    require_docker()
    with exclusive(PROJECT):
        yield from _compose_stack(tmp_path_factory)


@pytest.fixture(scope="module")
def cluster_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ComposeStack]:
    """The same stack on a three-node JetStream cluster (deploy/docker-compose.cluster.yml)."""
    require_docker()
    with exclusive(PROJECT):
        yield from _compose_stack(tmp_path_factory, cluster=True)


def _compose_stack(
    tmp_path_factory: pytest.TempPathFactory, cluster: bool = False
) -> Iterator[ComposeStack]:
    files, ports = compose_files(cluster)
    env_file = tmp_path_factory.mktemp("compose") / "test.env"
    env_file.write_text(
        f"COMPOSE_PROJECT_NAME={PROJECT}\n"
        "FRONTIER_HEALTH_INTERVAL=2s\n"  # healthy sooner; each check costs a Python start
        f"FRONTIER_BOT_LINEUP={MIRROR}\n"
        "FRONTIER_BOT_PAUSE_S=2\n"  # leave the 2 cores to the tests' own matches
    )
    compose = DockerCompose(ROOT, compose_file_name=files, env_file=str(env_file), wait=True)
    # Either kind of stack goes down with the cluster's files, so that the extra nodes of an
    # interrupted cluster run go with the rest.
    cleanup = DockerCompose(ROOT, compose_file_name=compose_files(True)[0], env_file=str(env_file))
    stack = ComposeStack(compose, ports)
    cleanup.stop()  # what an interrupted run may have left
    busy = sorted(p for p in ports.values() if port_taken(p))
    if busy:
        pytest.fail(f"ports {busy} are taken: is another compose stack running? (docker ps)")
    try:
        compose.start()
    except subprocess.CalledProcessError as exc:
        logs = subprocess.run(
            [*compose.docker_compose_command(), "logs", "--no-color", "--tail", "30"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        cleanup.stop()
        pytest.fail(f"docker compose up failed: {exc.stderr.decode()[-2000:]}\n{logs.stdout}")
    try:
        yield stack
    finally:
        cleanup.stop()
