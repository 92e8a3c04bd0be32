"""Every status carries a machine-readable reason as a google.rpc.ErrorInfo (runtime/errors)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import grpc
import nats.errors
import pytest
from google.rpc.error_details_pb2 import ErrorInfo
from google.rpc.status_pb2 import Status

from frontier.engine.errors import IllegalCommand
from frontier.orchestrator.peers import PEER_RETRY
from frontier.runtime.errors import (
    DETAILS_KEY,
    DOMAIN,
    REASONS,
    WRITER_CONFLICT_MESSAGE,
    ServiceError,
    classify,
    details_metadata,
    error_info_in,
    metadata_of,
    reason_in,
    trailer_of,
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


# gRPC's own text for a call to an address that does not answer: what a client must not see
GRPC_OWN_TEXT = (
    "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:23098: "
    "Failed to connect to remote host: Connection refused"
)
ADDRESS = re.compile(r"\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\]|:\d{2,5}\b|localhost")


def _grpc_own(code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), GRPC_OWN_TEXT)


def test_grpc_s_own_failure_text_never_reaches_a_client(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "frontier.errors")
    for code in (
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    ):
        _, message, reason = classify(_grpc_own(code))
        assert not ADDRESS.search(message), (code, message)
        assert reason in REASONS
    # ... but the operator finds it in the log
    assert any("127.0.0.1:23098" in r.getMessage() + str(r.exc_info) for r in caplog.records)


def _doc_advice() -> dict[str, str]:
    """Each reason's "what the client does" in docs/operations.md's errors table."""
    doc = (ROOT / "docs" / "operations.md").read_text()
    advice: dict[str, str] = {}
    for line in doc.split("## Errors", 1)[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4:
            for reason in re.findall(r"`([A-Z_]+)`", cells[1]):
                advice[reason] = cells[3]
    return advice


def test_every_retry_advice_in_a_message_is_the_docs_one() -> None:
    """A message that tells the client what to do says what docs/operations.md says: retry
    with the same command id exactly where the errors table says so."""
    empty = grpc.aio.Metadata()
    domain_down = grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, empty, empty, "x")
    messages = {
        "WRITER_CONFLICT": WRITER_CONFLICT_MESSAGE,
        "NATS_UNAVAILABLE": classify(nats.errors.TimeoutError())[1],
        "DOMAIN_UNAVAILABLE": classify(domain_down)[1],
        "SERVER_UNAVAILABLE": PEER_RETRY,
    }
    advice = _doc_advice()
    assert set(REASONS) <= set(advice), set(REASONS) - set(advice)
    for reason, message in messages.items():
        said = "same command id" in message
        documented = "same command id" in advice[reason]
        assert said == documented, (reason, message, advice[reason])
        assert "choose again" not in message or "choose again" in advice[reason]
    # the WRITER_CONFLICT row says the command was not applied and to retry with its id
    assert advice["WRITER_CONFLICT"].startswith("retry with the same command id")
    assert "choose again" in advice["STALE_VERSION"]


def test_a_domain_services_metadata_passes_on_with_its_own_reason_only() -> None:
    empty = grpc.aio.Metadata()

    def failed(code: grpc.StatusCode, reason: str) -> grpc.aio.AioRpcError:
        trailer = details_metadata(code, "x", reason, {"field": "command"})
        return grpc.aio.AioRpcError(code, empty, grpc.aio.Metadata(*trailer), "x")

    refused = failed(grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_COMMAND")
    assert metadata_of(refused) == {"field": "command"}
    assert error_info_in(trailer_of(refused)) == ("ILLEGAL_COMMAND", {"field": "command"})
    # a domain that does not answer is this service's DOMAIN_UNAVAILABLE, about no field
    gone = failed(grpc.StatusCode.UNAVAILABLE, "SERVER_UNAVAILABLE")
    assert classify(gone)[2] == "DOMAIN_UNAVAILABLE" and metadata_of(gone) == {}


def test_metadata_values_over_the_limit_are_left_out_never_cut() -> None:
    error = ServiceError(
        grpc.StatusCode.NOT_FOUND, "x", "MATCH_NOT_FOUND", {"match_id": "a" * 65, "field": "m"}
    )
    assert error.metadata == {"field": "m"}
