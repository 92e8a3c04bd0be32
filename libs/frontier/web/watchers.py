"""How many live event streams the gateway holds, and the guarantee that a stream's share is
given back when its watcher leaves.

Each watcher holds an open connection, a gRPC stream to the orchestrator and its buffers, so
one match (a popular broadcast) or one address (a script) could otherwise take the whole
gateway.  Past a cap the watcher gets a JSON refusal with ``Retry-After``: 429 for its own
address's cap, 503 for the match's (the server is full for that match, not the client
wrong).  ``WatcherStream`` releases the slot and cancels the orchestrator's stream however the
response ends: the events ran out, the client went away, or the server is stopping.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from frontier.runtime.tally import Tally
from frontier.web.inputs import HttpError

ADDRESS_RETRY_AFTER_S = 10  # the client itself holds too many streams: it can close one
MATCH_RETRY_AFTER_S = 30  # the match is full: a seat frees as other watchers leave


class Watchers:
    """Counts live event streams per match and per client address, within caps."""

    def __init__(self, per_match: int, per_address: int) -> None:
        self.per_match, self.per_address = per_match, per_address
        self.matches = Tally()
        self.addresses = Tally()

    def admit(self, match_id: str, address: str) -> Callable[[], None]:
        """Take a slot for one watcher, or refuse; returns the release, which is idempotent."""
        if self.addresses[address] >= self.per_address:
            raise HttpError(
                429,
                "too_many_streams",
                f"this address watches {self.per_address} streams already; close one",
                headers={"Retry-After": str(ADDRESS_RETRY_AFTER_S)},
            )
        if self.matches[match_id] >= self.per_match:
            raise HttpError(
                503,
                "match_watchers_full",
                f"match {match_id} has {self.per_match} live watchers; try again later",
                headers={"Retry-After": str(MATCH_RETRY_AFTER_S)},
            )
        self.matches.take(match_id)
        self.addresses.take(address)
        released = False

        def release() -> None:
            nonlocal released
            if released:
                return
            released = True
            self.matches.give(match_id)
            self.addresses.give(address)

        return release

    def live(self) -> int:
        """The watchers streaming now."""
        return sum(self.matches.values())


class WatcherStream(StreamingResponse):
    """A server-sent event stream that, however it ends, closes its source and runs
    ``on_close`` (releasing the watcher's slot and cancelling the orchestrator's stream)."""

    def __init__(
        self, source: AsyncGenerator[bytes, None], on_close: list[Callable[[], Any]], **kwargs: Any
    ) -> None:
        super().__init__(source, media_type="text/event-stream", **kwargs)
        self.source, self.on_close = source, on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Streams until the events end or the client leaves, whichever comes first.  The
        client's leaving is watched for here, whatever the server's ASGI version: a watcher
        of a quiet match would otherwise hold its slot until the next event failed to send."""
        try:
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    await self.stream_response(send)
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        except* OSError:  # the client went away while an event was being written
            pass
        finally:
            try:
                await self.source.aclose()
            finally:
                for close in self.on_close:
                    close()
