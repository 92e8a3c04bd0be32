"""``python -m frontier.ops.healthcheck``: the containers' health checks."""

from __future__ import annotations

import http.server
import os
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from frontier.ops.healthcheck import (
    check_grpc,
    check_heartbeat,
    check_http,
    default_address,
    main,
)
from frontier.ops.stack import free_port


@pytest.mark.parametrize(
    ("env", "address"),
    [
        ({"FRONTIER_PORT": "50052"}, "127.0.0.1:50052"),
        ({"FRONTIER_HOST": "0.0.0.0", "FRONTIER_PORT": "50051"}, "127.0.0.1:50051"),
        ({"FRONTIER_HOST": "127.0.0.2", "FRONTIER_PORT": "15051"}, "127.0.0.2:15051"),
    ],
)
def test_the_default_address_is_the_containers_own_server(
    env: dict[str, str], address: str
) -> None:
    assert default_address(env) == address


@pytest.mark.parametrize("env", [{}, {"FRONTIER_PORT": "0"}, {"FRONTIER_PORT": "x"}])
def test_no_port_is_a_usage_error(env: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="FRONTIER_PORT"):
        default_address(env)
    with pytest.raises(SystemExit) as exited:
        main([], env)
    assert exited.value.code == 2


def test_heartbeat_age(tmp_path: Path) -> None:
    beat = tmp_path / "beat"
    assert check_heartbeat(beat, 60) == f"{beat}: no heartbeat yet"
    beat.touch()
    assert check_heartbeat(beat, 60) is None
    stale = time.time() + 120
    assert "more than 60s" in (check_heartbeat(beat, 60, now=stale) or "")
    assert main(["--heartbeat", str(beat), "--max-age", "60"]) == 0
    os.utime(beat, (stale - 1000, stale - 1000))
    assert main(["--heartbeat", str(beat), "--max-age", "60"]) == 1


@pytest.fixture
def health_server() -> Iterator[tuple[str, health.HealthServicer]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    address = f"127.0.0.1:{free_port()}"
    server.add_insecure_port(address)
    server.start()
    try:
        yield address, servicer
    finally:
        server.stop(None)


def test_grpc_health(health_server: tuple[str, health.HealthServicer]) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert check_grpc(address) is None
    host, port = address.split(":")
    assert main([], {"FRONTIER_HOST": host, "FRONTIER_PORT": port}) == 0
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert check_grpc(address) == f"{address}: NOT_SERVING"
    assert main([address]) == 1
    assert check_grpc(address, service="frontier.v1.Nothing") == f"{address}: NOT_FOUND"


def test_nobody_listening_is_unhealthy() -> None:
    address = f"127.0.0.1:{free_port()}"
    assert check_grpc(address, timeout=2) == f"{address}: UNAVAILABLE"


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/healthz" else 503)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_http_health() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert main(["--http", f"{base}/healthz"]) == 0
        assert check_http(f"{base}/other") == f"{base}/other: HTTP 503"
        assert main(["--http", f"{base}/other"]) == 1
    finally:
        server.shutdown()
        server.server_close()
    problem = check_http(f"{base}/healthz", timeout=1)
    assert problem is not None and problem.startswith(base)
