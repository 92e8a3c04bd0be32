"""The engine <-> ``frontier.v1`` mapping is total, lossless and strict.

Everything here is derived from the engine module (enums, dataclass fields), so a new engine
member or field without its proto mirror fails these tests rather than a match in production.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import typing
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import frontier.engine
from frontier.engine import model
from frontier.engine.model import Command, CommandKind, Event, EventKind, Seat, Suit
from frontier.v1 import types_pb2
from frontier.wire import (
    WireError,
    command_from_proto,
    command_to_proto,
    enum_from_proto,
    enum_to_proto,
    event_from_proto,
    event_to_proto,
    proto_enum_prefix,
)
from frontier.wire.twins import TWIN_FIRST

ENGINE_ENUMS: list[type[StrEnum]] = sorted(
    (
        obj
        for obj in vars(model).values()
        if inspect.isclass(obj) and issubclass(obj, StrEnum) and obj.__module__ == model.__name__
    ),
    key=lambda cls: cls.__name__,
)

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def populated(record: type[Any], **fixed: Any) -> Any:
    """An instance with every field set to a non-default value, so a dropped field shows."""
    hints = typing.get_type_hints(record)
    values: dict[str, Any] = {}
    for i, f in enumerate(dataclasses.fields(record), start=1):
        hint = hints[f.name]
        if hint is str:
            values[f.name] = f"{f.name}-{i}"
        elif hint is int:
            values[f.name] = -i if i % 2 else i * 1000
        elif hint == tuple[str, ...]:
            values[f.name] = (f"{f.name}-a", f"{f.name}-b", "")
        elif hint == tuple[int, ...]:
            values[f.name] = (INT32_MAX, 0, INT32_MIN, i)
        elif inspect.isclass(hint) and issubclass(hint, StrEnum):
            values[f.name] = list(hint)[-1]
        else:  # a new field type: extend this helper and the converter together
            raise AssertionError(f"{record.__name__}.{f.name}: unhandled type {hint!r}")
    values.update(fixed)
    return record(**values)


def test_engine_enums_found() -> None:
    assert {CommandKind, EventKind, Seat, Suit} <= set(ENGINE_ENUMS)


@pytest.mark.parametrize("engine_enum", ENGINE_ENUMS, ids=lambda cls: cls.__name__)
def test_proto_enum_mirrors_engine_enum(engine_enum: type[StrEnum]) -> None:
    proto_enum = types_pb2.DESCRIPTOR.enum_types_by_name.get(engine_enum.__name__)
    assert proto_enum is not None, f"proto/frontier/v1/types.proto lacks enum {engine_enum}"
    prefix = proto_enum_prefix(engine_enum)
    by_number = {v.number: v.name for v in proto_enum.values}
    assert by_number.get(0) == f"{prefix}UNSPECIFIED"
    assert len(by_number) == len(proto_enum.values), "proto enum numbers must be unique"
    expected = {prefix + member.name for member in engine_enum}
    actual = {name for number, name in by_number.items() if number != 0}
    missing, extra = sorted(expected - actual), sorted(actual - expected)
    assert not missing and not extra, f"missing in proto: {missing}; extra in proto: {extra}"


@pytest.mark.parametrize("engine_enum", ENGINE_ENUMS, ids=lambda cls: cls.__name__)
def test_enum_members_round_trip(engine_enum: type[StrEnum]) -> None:
    numbers = set()
    for member in engine_enum:
        number = enum_to_proto(member)
        numbers.add(number)
        assert number != 0
        assert enum_from_proto(engine_enum, number) is member
    assert len(numbers) == len(engine_enum)


# In the v1 contract but carried by no field (a turn's step is a string of the state), so
# the engine has no enum for it; v1 only grows, so it stays in the proto.
UNUSED_PROTO_ENUMS = {"Phase"}


def test_every_proto_enum_has_an_engine_enum() -> None:
    proto_enums = set(types_pb2.DESCRIPTOR.enum_types_by_name)
    assert proto_enums - UNUSED_PROTO_ENUMS == {e.__name__ for e in ENGINE_ENUMS}


def test_the_proto_enums_without_an_engine_enum_are_carried_by_no_field() -> None:
    def enums_of(message: Any) -> set[str]:
        named = {f.enum_type.full_name for f in message.fields if f.enum_type is not None}
        return named.union(*(enums_of(nested) for nested in message.nested_types))

    package = Path(types_pb2.__file__).parent
    used: set[str] = set()
    for module in sorted(package.glob("*_pb2.py")):
        file = importlib.import_module(f"frontier.v1.{module.stem}").DESCRIPTOR
        used |= set().union(*(enums_of(m) for m in file.message_types_by_name.values()))
    assert used & {f"frontier.v1.{name}" for name in UNUSED_PROTO_ENUMS} == set()


@pytest.mark.parametrize(
    ("record", "message"), [(Command, types_pb2.Command), (Event, types_pb2.Event)]
)
def test_message_fields_mirror_dataclass(record: type[Any], message: type[Any]) -> None:
    assert [f.name for f in dataclasses.fields(record)] == [
        f.name for f in message.DESCRIPTOR.fields if f.number < TWIN_FIRST
    ]
    twins = [f for f in message.DESCRIPTOR.fields if f.number >= TWIN_FIRST]
    assert twins and all(f.enum_type is not None and f.number < 50 for f in twins)


@pytest.mark.parametrize("kind", list(CommandKind), ids=lambda k: k.name)
@pytest.mark.parametrize("seat", list(Seat), ids=lambda s: s.name)
def test_command_round_trip(kind: CommandKind, seat: Seat) -> None:
    command = populated(Command, kind=kind, seat=seat)
    msg = command_to_proto(command)
    assert msg.kind == getattr(types_pb2, proto_enum_prefix(CommandKind) + kind.name)
    assert command_from_proto(msg) == command
    wire = types_pb2.Command.FromString(msg.SerializeToString())
    assert command_from_proto(wire) == command


@pytest.mark.parametrize("kind", list(EventKind), ids=lambda k: k.name)
def test_event_round_trip(kind: EventKind) -> None:
    event = populated(Event, kind=kind)
    msg = event_to_proto(event)
    assert msg.kind == getattr(types_pb2, proto_enum_prefix(EventKind) + kind.name)
    assert event_from_proto(msg) == event
    assert event_from_proto(types_pb2.Event.FromString(msg.SerializeToString())) == event
    redacted = event.redacted()
    assert event_from_proto(event_to_proto(redacted)) == redacted


def test_defaults_round_trip() -> None:
    command = Command(CommandKind.END_PHASE, Seat.B3)
    assert command_from_proto(command_to_proto(command)) == command
    assert (
        command_to_proto(command).SerializeToString()
        == types_pb2.Command(
            kind=types_pb2.COMMAND_KIND_END_PHASE, seat=types_pb2.SEAT_B3
        ).SerializeToString()
    )
    event = Event(EventKind.MATCH_STARTED)
    assert event_from_proto(event_to_proto(event)) == event


def test_round_trip_types_are_engine_types() -> None:
    event = event_from_proto(event_to_proto(populated(Event, kind=EventKind.DICE_ROLLED)))
    assert type(event.kind) is EventKind
    assert type(event.cards) is tuple and type(event.values) is tuple
    command = command_from_proto(command_to_proto(populated(Command, kind=CommandKind.MARCH)))
    assert type(command.seat) is Seat
    assert type(command.clearings) is tuple


text = st.text(max_size=12)
int32 = st.integers(INT32_MIN, INT32_MAX)


@given(
    st.builds(
        Command,
        kind=st.sampled_from(CommandKind),
        seat=st.sampled_from(Seat),
        clearing=text,
        to=text,
        count=int32,
        target=text,
        piece=text,
        cards=st.lists(text, max_size=4).map(tuple),
        clearings=st.lists(text, max_size=4).map(tuple),
    )
)
def test_command_round_trip_property(command: Command) -> None:
    wire = command_to_proto(command).SerializeToString()
    assert command_from_proto(types_pb2.Command.FromString(wire)) == command


@given(
    st.builds(
        Event,
        kind=st.sampled_from(EventKind),
        seat=text,
        clearing=text,
        to=text,
        count=int32,
        target=text,
        piece=text,
        cards=st.lists(text, max_size=4).map(tuple),
        clearings=st.lists(text, max_size=4).map(tuple),
        values=st.lists(int32, max_size=4).map(tuple),
        amount=int32,
        text=text,
    )
)
def test_event_round_trip_property(event: Event) -> None:
    wire = event_to_proto(event).SerializeToString()
    assert event_from_proto(types_pb2.Event.FromString(wire)) == event


# --- malformed input ---------------------------------------------------------------------------


def test_unspecified_command_kind_rejected() -> None:
    msg = types_pb2.Command(seat=types_pb2.SEAT_A1)
    with pytest.raises(WireError, match="COMMAND_KIND_UNSPECIFIED"):
        command_from_proto(msg)


def test_unspecified_seat_rejected() -> None:
    msg = types_pb2.Command(kind=types_pb2.COMMAND_KIND_MARCH)
    with pytest.raises(WireError, match="SEAT_UNSPECIFIED"):
        command_from_proto(msg)


def test_unknown_seat_rejected() -> None:
    msg = types_pb2.Command(kind=types_pb2.COMMAND_KIND_MARCH, seat=types_pb2.SEAT_A1)
    msg.seat = 99  # type: ignore[assignment]  # proto3 enums are open: unknown numbers parse
    decoded = types_pb2.Command.FromString(msg.SerializeToString())
    assert decoded.seat == 99
    with pytest.raises(WireError, match=r"unknown frontier\.v1\.Seat value 99"):
        command_from_proto(decoded)


def test_unspecified_and_unknown_event_kind_rejected() -> None:
    with pytest.raises(WireError, match="EVENT_KIND_UNSPECIFIED"):
        event_from_proto(types_pb2.Event(seat="A1"))
    with pytest.raises(WireError, match=r"unknown frontier\.v1\.EventKind value 12345"):
        event_from_proto(types_pb2.Event(kind=12345))  # type: ignore[arg-type]


def test_wrong_message_type_rejected() -> None:
    with pytest.raises(WireError, match=r"expected a frontier\.v1\.Command"):
        command_from_proto(types_pb2.Event(kind=types_pb2.EVENT_KIND_SCORED))  # type: ignore[arg-type]
    with pytest.raises(WireError, match=r"expected an engine Event"):
        event_to_proto(Command(CommandKind.DECLINE, Seat.A1))  # type: ignore[arg-type]


def test_unencodable_engine_values_rejected() -> None:
    with pytest.raises(WireError, match="cannot encode"):
        command_to_proto(Command(CommandKind.MARCH, Seat.A1, count=2**31))
    with pytest.raises(WireError, match="cannot encode"):
        event_to_proto(Event(EventKind.SCORED, text="\ud800"))


def test_wrongly_typed_records_are_refused() -> None:
    # Compiled (setup.py), the native records refuse a wrongly typed field when built;
    # interpreted, the codec refuses to encode one.
    if frontier.engine.COMPILED:
        with pytest.raises(TypeError, match="int object expected"):
            Event(EventKind.SCORED, amount="3")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="Seat object expected"):
            Command(CommandKind.MARCH, "A1")  # type: ignore[arg-type]
        return
    with pytest.raises(WireError, match="cannot encode"):
        event_to_proto(Event(EventKind.SCORED, amount="3"))  # type: ignore[arg-type]
    with pytest.raises(WireError, match="expected a Seat"):
        command_to_proto(Command(CommandKind.MARCH, "A1"))  # type: ignore[arg-type]


def test_enum_from_proto_rejects_zero_and_unknown() -> None:
    with pytest.raises(WireError, match="SUIT_UNSPECIFIED"):
        enum_from_proto(Suit, 0)
    with pytest.raises(WireError, match=r"unknown frontier\.v1\.Suit value 77"):
        enum_from_proto(Suit, 77)
    assert enum_from_proto(Suit, enum_to_proto(Suit.FOX)) is Suit.FOX
    assert isinstance(WireError("x"), ValueError)
