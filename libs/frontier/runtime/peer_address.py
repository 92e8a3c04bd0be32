"""A client's address from gRPC's peer string, for limits counted per client.

gRPC names a peer ``ipv4:10.0.0.7:51234``, ``ipv6:[::1]:51234`` (grpcio percent-encodes the
brackets: ``ipv6:%5B::1%5D:51234``) or ``unix:/path``.  The port changes with every
connection, so a limit counted per peer string would see a fresh client each time: the
address alone is the client.
"""

from __future__ import annotations

from urllib.parse import unquote


def client_address(peer: str) -> str:
    """``peer`` without its port ("ipv4:10.0.0.7:51234" -> "10.0.0.7", "ipv6:[::1]:5" ->
    "::1"); any other kind of peer as it is."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return peer
    host = unquote(rest).rpartition(":")[0]
    return host.removeprefix("[").removesuffix("]") or peer
