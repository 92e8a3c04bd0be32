"""NATS failures that a retry can fix reach clients as UNAVAILABLE (retry with the same
command id), not INTERNAL: on a JetStream cluster that is what a client sees while a node is
down and the stream elects a new leader."""

from __future__ import annotations

import grpc
import nats.errors
import nats.js.errors
import pytest

from frontier.runtime.errors import status_for


@pytest.mark.parametrize(
    "exc",
    [
        nats.errors.TimeoutError(),
        nats.errors.NoRespondersError(),
        nats.errors.ConnectionClosedError(),
        nats.errors.ConnectionReconnectingError(),
        nats.js.errors.ServiceUnavailableError(code=503, description="no leader"),
    ],
)
def test_transient_nats_failures_are_unavailable(exc: Exception) -> None:
    code, message = status_for(exc)
    assert code is grpc.StatusCode.UNAVAILABLE
    assert "NATS is unavailable" in message


def test_other_nats_failures_stay_internal() -> None:
    code, _ = status_for(nats.errors.BadSubjectError())
    assert code is grpc.StatusCode.INTERNAL
