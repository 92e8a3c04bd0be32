"""Every status carries a machine-readable reason as a google.rpc.ErrorInfo (runtime/errors)."""

from __future__ import annotations

import grpc
import nats.errors
from google.rpc.error_details_pb2 import ErrorInfo
from google.rpc.status_pb2 import Status

from frontier.engine.errors import IllegalCommand
from frontier.runtime.errors import (
    DETAILS_KEY,
    DOMAIN,
    ServiceError,
    classify,
    details_metadata,
    reason_in,
)


def test_the_details_trailer_is_a_standard_google_rpc_status() -> None:
    ((key, blob),) = details_metadata(grpc.StatusCode.ABORTED, "stale", "STALE_VERSION")
    assert key == DETAILS_KEY
    status = Status.FromString(blob)
    assert (status.code, status.message) == (grpc.StatusCode.ABORTED.value[0], "stale")
    info = ErrorInfo()
    assert status.details[0].Unpack(info)
    assert (info.reason, info.domain) == ("STALE_VERSION", DOMAIN)
    assert reason_in(((key, blob),)) == "STALE_VERSION"
    assert reason_in((("other", b"x"),)) == "" and reason_in(None) == ""


def test_failures_are_classified_with_a_reason() -> None:
    assert classify(nats.errors.TimeoutError())[0::2] == (
        grpc.StatusCode.UNAVAILABLE,
        "NATS_UNAVAILABLE",
    )
    assert classify(IllegalCommand("no"))[2] == "ILLEGAL_COMMAND"
    assert classify(ServiceError(grpc.StatusCode.NOT_FOUND, "gone"))[2] == "NOT_FOUND"
    assert classify(ServiceError(grpc.StatusCode.ABORTED, "x", "WRITER_CONFLICT"))[2] == (
        "WRITER_CONFLICT"
    )
    assert classify(ValueError("boom")) == (
        grpc.StatusCode.INTERNAL,
        "internal error: ValueError",
        "INTERNAL",
    )
