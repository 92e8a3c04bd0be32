"""The load client retries exactly what its docstring says (frontier.play.load)."""

from __future__ import annotations

import asyncio

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


def test_unknown_outcomes_are_retried_with_the_same_request() -> None:
    call = _Flaky(grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    run = load.MatchRun()
    request = object()
    assert asyncio.run(load._call_with_retry(call, request, run, 1.0, 5)) == "ok"
    assert call.requests == [request] * 3 and run.retries == 2


def test_aborted_is_not_retried() -> None:
    call = _Flaky(grpc.StatusCode.ABORTED)
    with pytest.raises(grpc.aio.AioRpcError):
        asyncio.run(load._call_with_retry(call, object(), load.MatchRun(), 1.0, 5))
    assert len(call.requests) == 1


def test_the_docstring_names_the_retried_codes_and_says_aborted_is_not() -> None:
    doc = load.__doc__ or ""
    assert all(code.name in doc for code in load.RETRYABLE)
    assert "ABORTED is not retried" in doc
    assert grpc.StatusCode.ABORTED not in load.RETRYABLE
