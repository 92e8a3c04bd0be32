"""Every status carries a machine-readable reason as a google.rpc.ErrorInfo (runtime/errors)."""

from __future__ import annotations

from pathlib import Path

import grpc
import nats.errors
import pytest
from google.rpc.error_details_pb2 import ErrorInfo
from google.rpc.status_pb2 import Status

from frontier.engine.errors import IllegalCommand
from frontier.runtime.errors import (
    DETAILS_KEY,
    DOMAIN,
    REASONS,
    ServiceError,
    classify,
    details_metadata,
    reason_in,
)

ROOT = Path(__file__).resolve().parents[3]


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
    assert classify(ServiceError(grpc.StatusCode.NOT_FOUND, "gone"))[2] == "MATCH_NOT_FOUND"
    assert classify(ServiceError(grpc.StatusCode.ABORTED, "x", "WRITER_CONFLICT"))[2] == (
        "WRITER_CONFLICT"
    )
    assert classify(ValueError("boom")) == (
        grpc.StatusCode.INTERNAL,
        "internal error: ValueError",
        "INTERNAL",
    )


def test_a_reason_errors_proto_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match=r"not in frontier\.v1\.ErrorReason"):
        ServiceError(grpc.StatusCode.ABORTED, "x", "SOMETHING_NEW")


def test_every_failed_precondition_names_its_own_reason() -> None:
    with pytest.raises(ValueError, match="FAILED_PRECONDITION needs a reason"):
        ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "x")


def test_codes_without_a_reason_get_their_default_one() -> None:
    assert ServiceError(grpc.StatusCode.UNAVAILABLE, "x").reason == "SERVER_UNAVAILABLE"
    assert ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "x").reason == "MALFORMED"
    assert ServiceError(grpc.StatusCode.UNAUTHENTICATED, "x").reason == "TOKEN_REQUIRED"


def test_every_reason_is_in_the_operations_doc_and_asserted_by_a_test() -> None:
    doc = (ROOT / "docs" / "operations.md").read_text()
    tests = "".join(p.read_text() for p in (ROOT / "tests").rglob("test_*.py"))
    for reason in sorted(REASONS):
        assert f"`{reason}`" in doc, reason
        assert f'"{reason}"' in tests, f"no test asserts the reason {reason}"


def test_a_domain_service_that_does_not_answer_is_domain_unavailable() -> None:
    empty = grpc.aio.Metadata()
    for code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        failure = grpc.aio.AioRpcError(code, empty, empty, "connection refused")
        assert classify(failure)[0::2] == (grpc.StatusCode.UNAVAILABLE, "DOMAIN_UNAVAILABLE")
    # a domain's own reason passes through; a reason the enum lacks becomes the default
    refused = grpc.aio.AioRpcError(
        grpc.StatusCode.FAILED_PRECONDITION,
        empty,
        grpc.aio.Metadata(
            *details_metadata(grpc.StatusCode.FAILED_PRECONDITION, "x", "ILLEGAL_COMMAND")
        ),
        "x",
    )
    assert classify(refused)[2] == "ILLEGAL_COMMAND"
