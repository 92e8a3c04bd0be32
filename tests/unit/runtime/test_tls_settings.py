"""The TLS settings refuse what cannot work, at start-up, with a readable message; and a TLS
server picks up rotated certificate files for new connections without a restart."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pydantic import ValidationError

from frontier.ops.stack import free_port
from frontier.runtime.server import serve
from frontier.runtime.settings import ServiceSettings, TlsSettings
from frontier.runtime.tls import aio_channel, channel_credentials, server_credentials
from tests.tls_helpers import Issued, ThrowawayCA


def test_plaintext_when_nothing_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CERT", "KEY", "CA", "CLIENT_AUTH", "SERVER_NAME"):
        monkeypatch.delenv(f"FRONTIER_TLS_{name}", raising=False)
    tls = TlsSettings()
    assert channel_credentials(tls) is None
    assert server_credentials(tls) is None


def test_an_empty_variable_counts_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTIER_TLS_CERT", "")
    monkeypatch.setenv("FRONTIER_TLS_KEY", "")
    assert not TlsSettings().server_tls


def test_a_certificate_needs_its_key(tmp_path: Path) -> None:
    issued = ThrowawayCA(tmp_path).issue("server")
    with pytest.raises(ValidationError, match="FRONTIER_TLS_CERT and FRONTIER_TLS_KEY"):
        TlsSettings(tls_cert=issued.cert)
    with pytest.raises(ValidationError, match="FRONTIER_TLS_CERT and FRONTIER_TLS_KEY"):
        TlsSettings(tls_key=issued.key)


def test_mutual_tls_needs_a_ca(tmp_path: Path) -> None:
    issued = ThrowawayCA(tmp_path).issue("server")
    with pytest.raises(ValidationError, match="FRONTIER_TLS_CLIENT_AUTH needs"):
        TlsSettings(tls_cert=issued.cert, tls_key=issued.key, tls_client_auth=True)


def test_a_missing_file_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FRONTIER_TLS_CA", str(tmp_path / "nowhere.pem"))
    with pytest.raises(ValidationError, match="tls_ca"):
        ServiceSettings()


async def _check(port: int, tls: TlsSettings) -> grpc.StatusCode | None:
    """None when the health check passes over a new channel, else its failure code."""
    async with aio_channel(f"127.0.0.1:{port}", tls) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)  # type: ignore[attr-defined]
        except grpc.aio.AioRpcError as exc:
            return exc.code()
    return None


def _replace(src: Issued, dest: Issued) -> None:
    """What a certificate manager does: each file replaced whole (rename), key first."""
    for new, old in ((src.key, dest.key), (src.cert, dest.cert)):
        os.replace(new, old)


async def test_a_server_serves_rotated_certificates_without_a_restart(tmp_path: Path) -> None:
    old_ca = ThrowawayCA(tmp_path / "old", name="Old CA")
    new_ca = ThrowawayCA(tmp_path / "new", name="New CA")
    live = old_ca.issue("server", tmp_path)
    trusts_old, trusts_new = TlsSettings(tls_ca=old_ca.ca), TlsSettings(tls_ca=new_ca.ca)
    settings = ServiceSettings(
        host="127.0.0.1", port=free_port(), tls_cert=live.cert, tls_key=live.key
    )

    ready, stop = asyncio.Event(), asyncio.Event()
    server = asyncio.ensure_future(
        serve("map", settings, lambda s: None, [], ready=ready, stop=stop)
    )
    await ready.wait()
    try:
        before = [
            await _check(settings.port, trusts_old),
            await _check(settings.port, trusts_new),
        ]
        staged = new_ca.issue("staged", tmp_path / "new")
        _replace(staged, live)
        after = [
            await _check(settings.port, trusts_old),
            await _check(settings.port, trusts_new),
        ]
    finally:
        stop.set()
        await server
    unavailable = grpc.StatusCode.UNAVAILABLE
    assert before + after == [None, unavailable, unavailable, None]


async def test_a_half_rotated_pair_keeps_the_old_one(tmp_path: Path) -> None:
    """Only the key replaced so far: the server goes on with the old, matching pair."""
    ca = ThrowawayCA(tmp_path / "ca")
    live = ca.issue("server", tmp_path)
    settings = ServiceSettings(
        host="127.0.0.1", port=free_port(), tls_cert=live.cert, tls_key=live.key
    )
    trusts = TlsSettings(tls_ca=ca.ca)

    ready, stop = asyncio.Event(), asyncio.Event()
    server = asyncio.ensure_future(
        serve("map", settings, lambda s: None, [], ready=ready, stop=stop)
    )
    await ready.wait()
    try:
        os.replace(ca.issue("staged", tmp_path / "ca").key, live.key)
        assert await _check(settings.port, trusts) is None
    finally:
        stop.set()
        await server


def test_without_tls_variables_a_health_check_does_not_load_the_settings() -> None:
    """The containers' health checks start a Python process every few seconds: without TLS
    they must not pay for pydantic (it doubled their start-up, past Docker's timeout)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTIER_TLS_")}
    probe = "import sys, frontier.ops.healthcheck; print('pydantic' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
