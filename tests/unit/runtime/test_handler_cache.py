"""HandlerCache runs the interceptors behind it once per method, in gRPC's order, and never
keeps what no service knows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import grpc

from frontier.runtime.handler_cache import HandlerCache


class _Details(NamedTuple):
    method: str
    invocation_metadata: tuple[tuple[str, str], ...] = ()


class _Tagging(grpc.aio.ServerInterceptor):
    """Wraps the handler it is given in a tuple naming itself, and counts its calls."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], handler_call_details: Any
    ) -> Any:
        self.calls += 1
        inner = await continuation(handler_call_details)
        return None if inner is None else (self.name, inner)


async def test_each_method_goes_through_the_interceptors_once() -> None:
    outer, inner = _Tagging("outer"), _Tagging("inner")
    cache = HandlerCache([outer, inner])
    found: list[str] = []

    async def lookup(details: Any) -> Any:
        found.append(details.method)
        return f"handler of {details.method}" if details.method.startswith("/known") else None

    out: list[Any] = []
    for method in ("/known/A", "/known/A", "/known/B", "/unknown/X", "/unknown/X"):
        out.append(await cache.intercept_service(lookup, _Details(method)))  # type: ignore[arg-type]
    a1, a2, b, x1, x2 = out
    assert a1 == ("outer", ("inner", "handler of /known/A")) and a2 is a1
    assert b == ("outer", ("inner", "handler of /known/B"))
    assert x1 is None and x2 is None
    # /known/A looked up once; an unknown method every time (nothing kept for it)
    assert found == ["/known/A", "/known/B", "/unknown/X", "/unknown/X"]
    assert outer.calls == inner.calls == 4
