"""TLS on every gRPC hop, from the environment, with a throwaway CA.

The whole stack -- two orchestrators, the five domain services -- runs with mutual TLS
(FRONTIER_TLS_CERT / _KEY / _CA, FRONTIER_TLS_CLIENT_AUTH=true): a match is played through
it by the CLI's client and by the load client, a request is forwarded between the
orchestrators, and a plaintext client, a client without a certificate and a client that does
not trust the server's CA are all refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from frontier.ops.stack import Stack, StackConfig
from frontier.play.load import play_many
from frontier.play.remote_match import play_remote
from frontier.runtime.settings import TlsSettings
from frontier.runtime.tls import sync_channel
from frontier.v1 import match_pb2, match_pb2_grpc
from tests.tls_helpers import Issued, ThrowawayCA

pytestmark = pytest.mark.integration

MIRROR = "A=marquise;B=marquise"


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> ThrowawayCA:
    return ThrowawayCA(tmp_path_factory.mktemp("ca"))


@pytest.fixture(scope="module")
def client_cert(ca: ThrowawayCA) -> Issued:
    return ca.issue("client")


@pytest.fixture(scope="module")
def mtls_stack(tmp_path_factory: pytest.TempPathFactory, ca: ThrowawayCA) -> Iterator[Stack]:
    services = ca.issue("services")
    env = {
        "FRONTIER_TLS_CERT": str(services.cert),
        "FRONTIER_TLS_KEY": str(services.key),
        "FRONTIER_TLS_CA": str(ca.ca),
        "FRONTIER_TLS_CLIENT_AUTH": "true",
    }
    config = StackConfig.ephemeral(
        tmp_path_factory.mktemp("tls-stack"), orchestrators=2, sync="2m", extra_env=env
    )
    with Stack(config) as stack:  # waits until every service answers its health check
        yield stack


def _health(channel: grpc.Channel) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=5)  # type: ignore[attr-defined]
    return int(reply.status)


def _as_client(monkeypatch: pytest.MonkeyPatch, ca: ThrowawayCA, cert: Issued) -> None:
    """What a player's process sets: the CA it trusts and its client certificate."""
    monkeypatch.setenv("FRONTIER_TLS_CA", str(ca.ca))
    monkeypatch.setenv("FRONTIER_TLS_CERT", str(cert.cert))
    monkeypatch.setenv("FRONTIER_TLS_KEY", str(cert.key))


def test_a_match_over_mutual_tls(
    mtls_stack: Stack, ca: ThrowawayCA, client_cert: Issued, monkeypatch: pytest.MonkeyPatch
) -> None:
    _as_client(monkeypatch, ca, client_cert)
    result = play_remote(mtls_stack.config.address("orchestrator"), seed=5, lineup=MIRROR)
    assert result.verified, result.message  # the server's events equal the engine's


async def test_the_load_client_and_forwarding_between_orchestrators_over_mutual_tls(
    mtls_stack: Stack, ca: ThrowawayCA, client_cert: Issued, monkeypatch: pytest.MonkeyPatch
) -> None:
    _as_client(monkeypatch, ca, client_cert)
    # a target of several addresses has no one host name to check the certificate against
    monkeypatch.setenv("FRONTIER_TLS_SERVER_NAME", "localhost")
    cfg = mtls_stack.config
    # round_robin over both orchestrators: half the calls are forwarded to the match's owner
    [run] = await play_many([cfg.orchestrator_target], [6], MIRROR)
    assert run.winner and run.commands > 0
    with sync_channel(cfg.address("orchestrator-2")) as channel:
        view = match_pb2_grpc.MatchServiceStub(channel).GetView(
            match_pb2.GetViewRequest(match_id=run.match_id), timeout=10
        )
    assert view.view.winner == run.winner


def test_a_plaintext_client_is_refused(mtls_stack: Stack) -> None:
    for name in ("orchestrator", "map", "turn_order"):
        with grpc.insecure_channel(mtls_stack.config.address(name)) as channel:
            with pytest.raises(grpc.RpcError) as refused:
                _health(channel)
            assert refused.value.code() is grpc.StatusCode.UNAVAILABLE, name


def test_a_client_without_a_certificate_is_refused_by_mutual_tls(
    mtls_stack: Stack, ca: ThrowawayCA
) -> None:
    no_cert = TlsSettings(tls_ca=ca.ca)
    with (
        sync_channel(mtls_stack.config.address("orchestrator"), no_cert) as channel,
        pytest.raises(grpc.RpcError) as refused,
    ):
        _health(channel)
    assert refused.value.code() is grpc.StatusCode.UNAVAILABLE


def test_a_client_that_does_not_trust_the_servers_ca_is_refused(
    mtls_stack: Stack, tmp_path: Path
) -> None:
    other = ThrowawayCA(tmp_path, name="Another CA")
    stranger = other.issue("stranger")
    tls = TlsSettings(tls_ca=other.ca, tls_cert=stranger.cert, tls_key=stranger.key)
    with (
        sync_channel(mtls_stack.config.address("orchestrator"), tls) as channel,
        pytest.raises(grpc.RpcError) as refused,
    ):
        _health(channel)
    assert refused.value.code() is grpc.StatusCode.UNAVAILABLE


def test_the_stack_itself_dials_with_the_services_certificate(mtls_stack: Stack) -> None:
    with sync_channel(
        mtls_stack.config.address("scoring"), mtls_stack.config.client_tls()
    ) as channel:
        assert _health(channel) == health_pb2.HealthCheckResponse.SERVING
