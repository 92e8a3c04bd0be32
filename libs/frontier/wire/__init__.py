"""Conversion between engine records and the ``frontier.v1`` protobuf contracts.

Services, bots and the bus speak protobuf; the engine speaks plain dataclasses.  This package is
the only place that translates between them, so every transport gets the same, tested mapping.
"""

from frontier.wire.convert import (
    WireError,
    command_from_proto,
    command_to_proto,
    enum_from_proto,
    enum_to_proto,
    event_from_proto,
    event_to_proto,
    events_into_proto,
    proto_enum_prefix,
)

__all__ = [
    "WireError",
    "command_from_proto",
    "command_to_proto",
    "enum_from_proto",
    "enum_to_proto",
    "event_from_proto",
    "event_to_proto",
    "events_into_proto",
    "proto_enum_prefix",
]
