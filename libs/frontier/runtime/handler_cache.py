"""One lookup per method instead of per call for the server interceptors' handlers.

gRPC's asyncio server runs every interceptor's ``intercept_service`` on every call, and
ours (:class:`.metrics.RpcMetrics`, :class:`.guard.RequestGuard`) each build a new handler
around the one they are given: closures, a new ``RpcMethodHandler`` and an ``await`` per
interceptor, for what is the same handler for every call of a method; under load, gRPC's
request handling and the guards are a noticeable share of the orchestrator's CPU.
:class:`HandlerCache` runs the interceptors behind it once per method and keeps what
they return.

That is exact only for interceptors whose handler depends on the method alone, not on the
call's metadata: ours do.  OpenTelemetry's server interceptor (tracing on) reads each call's
metadata, so it stays in front of the cache.  A method no service knows (the handler is
None) is not kept, so a client naming random methods cannot grow the cache.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import grpc

if TYPE_CHECKING:  # generic only in grpc's type stubs
    Handler = grpc.RpcMethodHandler[Any, Any]
else:
    Handler = grpc.RpcMethodHandler
Continuation = Callable[[grpc.HandlerCallDetails], Awaitable["Handler | None"]]


class HandlerCache(grpc.aio.ServerInterceptor):
    """Runs ``inner`` (outermost first, as gRPC would) once per method, then reuses it."""

    def __init__(self, inner: Sequence[grpc.aio.ServerInterceptor]) -> None:
        self.inner = tuple(inner)
        self._by_method: dict[str, Handler] = {}

    async def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler | None:
        method: str = handler_call_details.method
        handler = self._by_method.get(method)
        if handler is None:
            handler = await _chain(self.inner, continuation, handler_call_details)
            if handler is not None:
                self._by_method[method] = handler
        return handler


async def _chain(
    interceptors: Sequence[grpc.aio.ServerInterceptor],
    continuation: Continuation,
    details: grpc.HandlerCallDetails,
) -> Handler | None:
    """What ``interceptors`` in a row make of the handler ``continuation`` finds."""
    if not interceptors:
        return await continuation(details)

    async def rest(inner_details: grpc.HandlerCallDetails) -> Handler | None:
        return await _chain(interceptors[1:], continuation, inner_details)

    found: Handler | None = await interceptors[0].intercept_service(rest, details)
    return found
