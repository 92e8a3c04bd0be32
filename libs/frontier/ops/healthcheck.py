"""Container health checks: ``python -m frontier.ops.healthcheck [HOST:PORT]``.

* ``python -m frontier.ops.healthcheck [HOST:PORT] [--service NAME]``: exit 0 when the gRPC server
  answers ``grpc.health.v1.Health/Check`` with SERVING (every Frontier service and the OTel
  collector serve it).  Without an address it checks the server of its own container:
  ``$FRONTIER_HOST:$FRONTIER_PORT``, with 127.0.0.1 for a wildcard host, so one health check
  line serves every service of docker-compose.yml.
* ``python -m frontier.ops.healthcheck --http URL``: exit 0 when an HTTP GET of URL answers
  200 (the browser gateway's ``/healthz``, which is 200 only while its orchestrator serves).
* ``python -m frontier.ops.healthcheck --heartbeat FILE [--max-age S]``: exit 0 when FILE was
  touched within S seconds, for processes that serve no port (``frontier.ops.compose_bot``).

Exit status 1 with one line on stderr when unhealthy (Docker keeps it in the health log), 2
for bad arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from frontier.runtime.tls import sync_channel

WILDCARDS = ("", "0.0.0.0", "::", "[::]")


def default_address(env: Mapping[str, str]) -> str:
    """The address of this container's own server, from FRONTIER_HOST and FRONTIER_PORT."""
    port = env.get("FRONTIER_PORT", "")
    if not port.isdigit() or int(port) == 0:
        raise ValueError("no address given and FRONTIER_PORT is not set")
    host = env.get("FRONTIER_HOST", "")
    return f"{'127.0.0.1' if host in WILDCARDS else host}:{port}"


def check_grpc(address: str, service: str = "", timeout: float = 3.0) -> str | None:
    """None when SERVING, else why not."""
    with sync_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(  # type: ignore[attr-defined]
                health_pb2.HealthCheckRequest(service=service), timeout=timeout
            )
        except grpc.RpcError as exc:
            return f"{address}: {exc.code().name}"
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        return f"{address}: {status}"
    return None


def check_http(url: str, timeout: float = 3.0) -> str | None:
    """None when GET ``url`` answers 200, else why not."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            status = int(reply.status)
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        return f"{url}: {exc}"
    return None if status == 200 else f"{url}: HTTP {status}"


def check_heartbeat(path: Path, max_age: float, now: float | None = None) -> str | None:
    """None when ``path`` was modified within ``max_age`` seconds, else why not."""
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except OSError:
        return f"{path}: no heartbeat yet"
    if age > max_age:
        return f"{path}: last heartbeat {age:.0f}s ago (more than {max_age:g}s)"
    return None


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m frontier.ops.healthcheck", description=__doc__)
    parser.add_argument("address", nargs="?", help="HOST:PORT (default: this container's own)")
    parser.add_argument("--service", default="", help="health service name (default: server)")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds (default 3)")
    parser.add_argument("--heartbeat", type=Path, help="check this file's age instead")
    parser.add_argument("--http", metavar="URL", help="check that GET URL answers 200 instead")
    parser.add_argument("--max-age", type=float, default=300.0, help="seconds (default 300)")
    args = parser.parse_args(argv)
    if args.heartbeat is not None:
        problem = check_heartbeat(args.heartbeat, args.max_age)
    elif args.http is not None:
        problem = check_http(args.http, args.timeout)
    else:
        try:
            address = args.address or default_address(os.environ if env is None else env)
        except ValueError as exc:
            parser.error(str(exc))
        problem = check_grpc(address, args.service, args.timeout)
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
