"""A forwarded request's failure as the client sees it (orchestrator/peers.py), and the web
gateway's (web/inputs.py): the owner's own answers pass on, gRPC's text (which names
internal addresses) never does."""

from __future__ import annotations

import re

import grpc

from frontier.orchestrator.peers import PEER_RETRY, peer_failure
from frontier.runtime.errors import details_metadata
from frontier.web.inputs import grpc_error

GRPC_OWN_TEXT = (
    "failed to connect to all addresses; last error: UNKNOWN: ipv4:10.1.2.3:50051: "
    "Failed to connect to remote host: Connection refused"
)
ADDRESS = re.compile(r"\d{1,3}(\.\d{1,3}){3}|:\d{2,5}\b")
EMPTY = grpc.aio.Metadata()


def _grpc_own(code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, EMPTY, EMPTY, GRPC_OWN_TEXT)


def _owner_s(code: grpc.StatusCode, message: str, reason: str) -> grpc.aio.AioRpcError:
    trailer = grpc.aio.Metadata(*details_metadata(code, message, reason))
    return grpc.aio.AioRpcError(code, EMPTY, trailer, message)


def test_an_owner_that_does_not_answer_is_unavailable_without_its_address() -> None:
    for code in (
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
    ):
        failure = peer_failure(_grpc_own(code))
        assert (failure.code, failure.reason) == (grpc.StatusCode.UNAVAILABLE, "SERVER_UNAVAILABLE")
        assert failure.message == PEER_RETRY and not ADDRESS.search(failure.message)
    odd = peer_failure(_grpc_own(grpc.StatusCode.UNKNOWN))
    assert odd.code is grpc.StatusCode.INTERNAL and not ADDRESS.search(odd.message)


def test_the_owner_s_own_answer_passes_on_unchanged() -> None:
    refused = peer_failure(
        _owner_s(grpc.StatusCode.FAILED_PRECONDITION, "not your turn: A2", "NOT_YOUR_TURN")
    )
    assert (refused.code, refused.message, refused.reason) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "not your turn: A2",
        "NOT_YOUR_TURN",
    )


def test_the_web_gateway_shows_the_orchestrator_s_messages_and_hides_grpc_s() -> None:
    down = grpc_error(_grpc_own(grpc.StatusCode.UNAVAILABLE))
    assert (down.status, down.error) == (503, "unavailable")
    assert not ADDRESS.search(down.detail) and "try again" in down.detail
    late = grpc_error(_grpc_own(grpc.StatusCode.DEADLINE_EXCEEDED))
    assert late.status == 504 and not ADDRESS.search(late.detail)
    full = grpc_error(
        _owner_s(grpc.StatusCode.RESOURCE_EXHAUSTED, "this server hosts 3", "TOO_MANY_MATCHES")
    )
    assert (full.status, full.error, full.detail) == (
        429,
        "too_many_matches",
        "this server hosts 3",
    )
