"""A client's address is its gRPC peer without the port, whatever the address family."""

from __future__ import annotations

import pytest

from frontier.runtime.peer_address import client_address


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:10.0.0.7:51234", "10.0.0.7"),
        ("ipv4:10.0.0.7:5000", "10.0.0.7"),
        ("ipv6:[::1]:51234", "::1"),
        ("ipv6:[2001:db8::1]:443", "2001:db8::1"),
        ("ipv6:%5B::1%5D:5", "::1"),  # grpcio percent-encodes the brackets
        ("unix:/tmp/socket", "unix:/tmp/socket"),
        ("x", "x"),
    ],
)
def test_a_peers_address_leaves_out_its_port(peer: str, address: str) -> None:
    assert client_address(peer) == address
