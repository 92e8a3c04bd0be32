"""Test stacks pick their ports outside the range outgoing connections draw from."""

from __future__ import annotations

import socket

from frontier.ops.stack import PORTS_FROM, _ephemeral_low, free_port


def test_free_ports_are_distinct_bindable_and_below_the_ephemeral_range() -> None:
    ports = [free_port() for _ in range(40)]
    assert len(set(ports)) == len(ports)
    assert all(PORTS_FROM <= p < _ephemeral_low() for p in ports)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", ports[-1]))
