"""Every channel and the NATS connection heal soon after their server is back: the options
that say how soon, and that a channel's own options still win over them."""

from __future__ import annotations

from frontier.runtime import bus
from frontier.runtime.tls import RECONNECT_OPTIONS, _options


def test_every_channel_reconnects_within_a_second_of_its_server_coming_back() -> None:
    options = dict(_options(None, ()))
    # gRPC's defaults: 1 s first, up to 120 s between attempts (and DNS every 30 s)
    assert options["grpc.initial_reconnect_backoff_ms"] <= 100
    assert options["grpc.max_reconnect_backoff_ms"] <= 500
    assert options["grpc.dns_min_time_between_resolutions_ms"] <= 1000


def test_a_channels_own_option_wins_and_no_key_is_given_twice() -> None:
    given = (("grpc.max_reconnect_backoff_ms", 5000), ("grpc.lb_policy_name", "round_robin"))
    options = _options(None, given)
    keys = [key for key, _ in options]
    assert len(keys) == len(set(keys))
    assert dict(options)["grpc.max_reconnect_backoff_ms"] == 5000
    assert dict(options)["grpc.lb_policy_name"] == "round_robin"
    assert {key for key, _ in RECONNECT_OPTIONS} <= set(keys)


def test_the_nats_connection_tries_again_soon_and_notices_a_silent_server() -> None:
    # nats-py's defaults: 2 s between attempts, a dead server noticed after 4 minutes
    assert bus.RECONNECT_WAIT_S <= 0.5
    assert bus.PING_INTERVAL_S * bus.MAX_OUTSTANDING_PINGS <= 30
