"""A stack for a bot check: the local process stack, or the compose stack in Docker.

The local stack is the one ``frontier stack`` and ``make run`` start
(:class:`frontier.ops.stack.Stack`): nats-server and every service as processes on free
loopback ports.  The compose stack is the repository's ``docker-compose.yml``, brought up
through testcontainers, as the container tests do; it needs a Docker engine with the compose
plugin, and says so when there is none.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from frontier.engine import Seat
from frontier.ops.stack import Stack, StackConfig, free_port

from .checkbot import CheckOptions, Target, play_match
from .players import BotSpec
from .report import MatchReport

# Where docker-compose.yml publishes the first orchestrator and the web gateway; on an
# engine without a bridge network, the host-network override's loopback ports instead.
COMPOSE_PORTS = {"orchestrator": 50051, "web": 8080}
HOSTNET_OVERRIDE = "deploy/docker-compose.hostnet.yml"
HOSTNET_PORTS = {"orchestrator": 15051, "web": 18080}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class NoDocker(RuntimeError):
    """The compose stack cannot start: no Docker engine, or no compose file."""


class StackFailed(RuntimeError):
    """The compose stack did not come up (its ports taken, or a container that exited or
    turned unhealthy); the message says which, with the containers' states and logs."""


@dataclass(frozen=True, slots=True)
class StackHandle:
    """A running stack, as the ``frontier_stack`` fixture yields it."""

    address: str  # MatchService and BotService, HOST:PORT
    web_url: str = ""  # the browser gateway ("" when the stack runs none)
    nats_url: str = ""
    workdir: Path | None = None  # logs and the JetStream store (the local stack's)

    @property
    def target(self) -> Target:
        return Target(self.address, self.web_url)

    def play_with(
        self,
        bot: BotSpec,
        seat: Seat | str = "marquise",
        opponents: str = "greedy",
        **options: object,
    ) -> MatchReport:
        """One match with ``bot`` (a command line, or a Python bot) in ``seat`` (a seat or a
        faction name) against the built-in ``opponents``; ``options`` are
        :class:`~frontier.testing.checkbot.CheckOptions` fields (``max_rounds=1``...)."""
        where = seat.value if isinstance(seat, Seat) else seat
        settings = CheckOptions(opponents=opponents, **options)  # type: ignore[arg-type]
        return play_match(self.target, bot, where, settings)


@contextmanager
def local_stack(workdir: Path | None = None, web: bool = False) -> Iterator[StackHandle]:
    """NATS and every service on free loopback ports (and the web gateway if ``web``)."""
    folder = workdir or Path(tempfile.mkdtemp(prefix="frontier-check-stack-"))
    config = StackConfig.ephemeral(folder, web_port=free_port() if web else 0)
    with Stack(config):
        yield StackHandle(
            config.address(config.orchestrator_names[0]),
            config.web_url,
            config.nats_url,
            folder,
        )


@contextmanager
def compose_stack(project: Path) -> Iterator[StackHandle]:
    """``docker compose up`` of ``project``'s docker-compose.yml, torn down afterwards."""
    compose_file = project / "docker-compose.yml"
    if not compose_file.is_file():
        raise NoDocker(f"no docker-compose.yml in {project}: run from the repository's root")
    docker = shutil.which("docker")
    if docker is None:
        raise NoDocker("--compose needs Docker, and no `docker` command is installed")
    for check in (["info"], ["compose", "version"]):
        probe = subprocess.run([docker, *check], capture_output=True, text=True, check=False)
        if probe.returncode != 0:
            why = (probe.stderr.strip().splitlines() or ["?"])[-1][:200]
            raise NoDocker(
                f"--compose needs a Docker engine with compose (docker {check[0]}: {why})"
            )
    bridge = subprocess.run(
        [docker, "network", "inspect", "bridge"], capture_output=True, check=False
    )
    files, ports = ["docker-compose.yml"], COMPOSE_PORTS
    if bridge.returncode != 0 and (project / HOSTNET_OVERRIDE).is_file():
        files, ports = [*files, HOSTNET_OVERRIDE], HOSTNET_PORTS
    busy = sorted(port for port in ports.values() if port_taken(port))
    if busy:
        raise StackFailed(
            f"ports {busy} are taken: is a compose stack already up? (docker compose ps)"
        )
    from testcontainers.compose import DockerCompose  # a dev dependency, imported when used

    compose = DockerCompose(str(project), compose_file_name=files, wait=True)
    try:
        compose.start()
    except subprocess.CalledProcessError as exc:
        # `up --wait` gave up (a container exited or turned unhealthy): say which and why,
        # then take down what did start instead of leaving it running.
        why = _compose_report(compose.docker_compose_command(), project, exc)
        compose.stop()
        raise StackFailed(f"docker compose up failed:\n{why}") from None
    try:
        yield StackHandle(f"127.0.0.1:{ports['orchestrator']}", f"http://127.0.0.1:{ports['web']}/")
    finally:
        compose.stop()


def port_taken(port: int) -> bool:
    """Something listens on (or holds) ``port`` of the loopback interface."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _compose_report(
    command: list[str], project: Path, failed: subprocess.CalledProcessError
) -> str:
    """What `up` printed last, each container's state and the last log lines of those not
    running and healthy: what a reader needs to see why the stack did not come up."""

    def run(*args: str) -> str:
        done = subprocess.run(
            [*command, *args], cwd=project, capture_output=True, text=True, check=False
        )
        return _ANSI.sub("", done.stdout)  # compose erases lines even into a pipe

    stderr = failed.stderr.decode(errors="replace") if isinstance(failed.stderr, bytes) else ""
    states = run("ps", "--all", "--format", "{{.Service}}\t{{.State}}\t{{.Status}}")
    rows = [line.split("\t") for line in states.splitlines()]
    unwell = [row[0] for row in rows if len(row) == 3 and not row[2].endswith("(healthy)")]
    logs = run("logs", "--timestamps", "--tail", "20", *unwell) if unwell else ""
    return "\n".join(
        part
        for part in (
            "\n".join(stderr.strip().splitlines()[-10:]),
            f"containers:\n{states.strip()}",
            f"logs of {', '.join(unwell)}:\n{logs.strip()}" if unwell else "",
        )
        if part
    )
