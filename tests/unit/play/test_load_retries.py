"""The load client retries exactly what its docstring says (frontier.play.load)."""

from __future__ import annotations

import grpc
import pytest

from frontier.play import load


def _error(code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details="x")


class _Flaky:
    """Fails with the given codes, in order, then answers "ok"; records each request."""

    def __init__(self, *codes: grpc.StatusCode) -> None:
        self.codes = list(codes)
        self.requests: list[object] = []

    async def __call__(self, request: object, timeout: float) -> str:
        self.requests.append(request)
        if self.codes:
            raise _error(self.codes.pop(0))
        return "ok"


async def test_unknown_outcomes_are_retried_with_the_same_request() -> None:
    call = _Flaky(grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    run = load.MatchRun()
    request = object()
    assert await load._call_with_retry(call, request, run, 1.0, 5) == "ok"
    assert call.requests == [request] * 3 and run.retries == 2


async def test_aborted_is_not_retried() -> None:
    call = _Flaky(grpc.StatusCode.ABORTED)
    with pytest.raises(grpc.aio.AioRpcError):
        await load._call_with_retry(call, object(), load.MatchRun(), 1.0, 5)
    assert len(call.requests) == 1


def test_the_docstring_names_the_retried_codes_and_says_aborted_is_not() -> None:
    doc = load.__doc__ or ""
    assert all(code.name in doc for code in load.RETRYABLE)
    assert "ABORTED is not retried" in doc
    assert grpc.StatusCode.ABORTED not in load.RETRYABLE


def test_a_retry_waits_as_long_as_before_the_hot_path_split() -> None:
    """The hot path makes try 0 itself; the pauses stay 50 ms doubled per try, at most 1 s."""
    run = load.MatchRun()
    unavailable = _error(grpc.StatusCode.UNAVAILABLE)
    pauses = [load._retry_pause(unavailable, attempt, 60, run) for attempt in range(7)]
    assert pauses == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0] and run.retries == 7
    with pytest.raises(grpc.aio.AioRpcError):
        load._retry_pause(unavailable, 4, 5, run)  # the last attempt is not retried
    with pytest.raises(grpc.aio.AioRpcError):
        load._retry_pause(_error(grpc.StatusCode.ABORTED), 0, 5, run)
    assert run.retries == 7


async def test_a_retry_from_a_later_try_counts_its_attempts_from_there() -> None:
    call = _Flaky(grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNAVAILABLE)
    with pytest.raises(grpc.aio.AioRpcError):
        # tries 3 and 4 of 5: the second failure is the last attempt
        await load._call_with_retry(call, object(), load.MatchRun(), 1.0, 5, attempt=3)
    assert len(call.requests) == 2


def test_command_ids_are_unique_within_and_across_matches() -> None:
    first, second = load._command_ids(), load._command_ids()
    ids = [next(first) for _ in range(1000)] + [next(second) for _ in range(1000)]
    assert len(set(ids)) == len(ids)
    assert all(len(i) <= 64 for i in ids)  # well within the request guard's limit per id


async def test_a_cancellation_this_client_did_not_ask_for_is_retried() -> None:
    call = _Flaky(grpc.StatusCode.CANCELLED)
    run = load.MatchRun()
    assert await load._call_with_retry(call, object(), run, 1.0, 5) == "ok"
    assert run.retries == 1
