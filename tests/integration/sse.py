"""A server-sent-event watcher of a match through the web gateway, on a raw connection, for
tests that need to see exactly when a stream starts and ends."""

from __future__ import annotations

import asyncio

from frontier.ops.stack import Stack


async def open_sse(
    stack: Stack, match_id: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A watcher of the match from its first event, returned once the gateway sent its
    headers (the orchestrator let the match's feed in).  The connection closes once the
    response is complete (no keep-alive), so its end is the stream's; a writer no longer
    referenced closes it early."""
    host, port = stack.config.host, stack.config.web_port
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"GET /api/matches/{match_id}/events?from=0 HTTP/1.1\r\n"
        f"Host: {host}:{port}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n".encode()
    )
    status = await reader.readline()
    assert b" 200 " in status, status
    while (await reader.readline()).strip():
        pass  # the headers
    return reader, writer
