"""Forwarding a request to the orchestrator that owns the match (see leases.py).

Why forwarding rather than redirecting the client: any orchestrator can then be the one a
client, a bot or a load balancer talks to, and no client needs to know about ownership.  A
forwarded request carries ``x-frontier-forwarded``; an orchestrator that is not the owner
of a forwarded request does not forward it again (ownership moved meanwhile) but answers
UNAVAILABLE, so a request never bounces around and the client simply retries.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import grpc

from frontier.runtime.errors import (
    REASONS,
    GrpcContext,
    ServiceError,
    error_info_in,
    hide,
    retry_delay_in,
)
from frontier.runtime.settings import HOST_KEY_METADATA, TlsSettings
from frontier.runtime.telemetry import grpc_client_interceptors
from frontier.runtime.tls import aio_channel
from frontier.v1 import bot_pb2_grpc, match_pb2_grpc

from .hosted_match import NotOwner

FORWARDED = "x-frontier-forwarded"
R = TypeVar("R")


class Peers:
    def __init__(self, timeout_s: float, tls: TlsSettings | None = None) -> None:
        self.timeout_s = timeout_s
        self.tls = tls  # None: from the environment
        self._channels: dict[str, grpc.aio.Channel] = {}

    def _channel(self, address: str) -> grpc.aio.Channel:
        channel = self._channels.get(address)
        if channel is None:
            channel = aio_channel(address, self.tls, interceptors=grpc_client_interceptors())
            self._channels[address] = channel
        return channel

    def match_stub(self, address: str) -> Any:
        return match_pb2_grpc.MatchServiceStub(self._channel(address))

    def bot_stub(self, address: str) -> Any:
        return bot_pb2_grpc.BotServiceStub(self._channel(address))

    async def unary(self, address: str, method: str, request: Any, context: GrpcContext) -> Any:
        refuse_second_hop(context)
        call = getattr(self.match_stub(address), method)
        # the host key as it came: the owner checks it again
        metadata: list[tuple[str, str | bytes]] = [(FORWARDED, "1")]
        metadata += [
            (k, v) for k, v in context.invocation_metadata() or () if k == HOST_KEY_METADATA
        ]
        try:
            return await call(request, timeout=self.timeout_s, metadata=tuple(metadata))
        except grpc.aio.AioRpcError as exc:
            raise peer_failure(exc) from None

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()


PEER_RETRY = (
    "the orchestrator that owns the match did not answer; retry with the same command id "
    "(another orchestrator takes the match over if its owner is gone)"
)


# gRPC's codes for an owner that did not answer (down, unreachable, too slow, stopping)
_GONE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED)


def peer_failure(exc: grpc.aio.AioRpcError) -> ServiceError:
    """The owner's answer to a forwarded request, as this orchestrator's own.  A status with
    a Frontier reason is the owner's, passed on as it is; any other is gRPC's (the owner
    unreachable, say: its text names its address), logged and answered UNAVAILABLE."""
    code = exc.code()
    reason, metadata = error_info_in(exc.trailing_metadata())
    if reason in REASONS:
        retry_after_s = retry_delay_in(exc.trailing_metadata())
        return ServiceError(code, exc.details() or code.name, reason, metadata, retry_after_s)
    hide(exc, "forwarding to the match's owner")
    if code in _GONE:
        return ServiceError(grpc.StatusCode.UNAVAILABLE, PEER_RETRY, "SERVER_UNAVAILABLE")
    return ServiceError(
        grpc.StatusCode.INTERNAL, f"the match's owner answered {code.name}", "INTERNAL"
    )


def refuse_second_hop(context: GrpcContext) -> None:
    metadata = context.invocation_metadata() or ()
    if any(key == FORWARDED for key, _ in metadata):
        raise ServiceError(
            grpc.StatusCode.UNAVAILABLE,
            "the match is changing orchestrators; retry with the same command id",
        )


class Routed(Protocol):
    """A servicer whose calls may be forwarded: it holds the peers."""

    peers: Peers


def routed(method: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Serve locally, or forward to the orchestrator that owns the match (NotOwner)."""

    @functools.wraps(method)
    async def wrapper(self: Routed, request: Any, context: GrpcContext) -> R:
        try:
            return await method(self, request, context)
        except NotOwner as exc:
            reply: R = await self.peers.unary(exc.address, method.__name__, request, context)
            return reply

    return wrapper
