"""Lossless conversion between engine records (``frontier.engine.model``) and ``frontier.v1``.

Why generic: the engine's vocabulary grows (new command kinds, event kinds, sometimes fields)
while the rules are being written.  Hand-written per-field or per-kind mapping code would drift
silently; instead the mapping is *derived* once, at import, from the dataclass fields and their
type hints on one side and the protobuf descriptors on the other:

* enum members map by name: engine ``CommandKind.PLACE_KEEP`` is proto
  ``COMMAND_KIND_PLACE_KEEP`` (the proto enum has the engine enum's class name, its values the
  class name in UPPER_SNAKE plus ``_`` plus the member NAME; 0 is ``*_UNSPECIFIED``).  Names,
  not numbers, because engine values are strings and proto numbers are a wire detail.
* record fields map by name; ``tuple[...]`` fields are ``repeated`` fields.
* fields numbered 30 on are enum twins of the string fields (:mod:`frontier.wire.twins`):
  written on the way out, read on the way in only for a Command.

A field with no proto counterpart (or the wrong proto type) is a contract bug, so it fails the
import of this module loudly.  A missing enum *value* is only found when such a value is
converted; tests/unit/wire/test_wire_roundtrip.py checks every member so that CI catches it first.

Data coming off the wire is untrusted: anything that cannot become a valid engine record
(``*_UNSPECIFIED``, an enum number this build does not know, the wrong message type, values
protobuf cannot hold) raises :class:`WireError`, never a bare protobuf exception.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Callable, Iterable
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from frontier.engine.model import Command, Event
from frontier.v1 import types_pb2
from frontier.wire import twins as twins_module
from frontier.wire.errors import WireError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance
    from google._upb._message import FieldDescriptor as _UpbFieldDescriptor
    from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

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


_E = TypeVar("_E", bound=StrEnum)
_R = TypeVar("_R", bound="DataclassInstance")  # an engine record dataclass
_M = TypeVar("_M", bound=Message)

_FILE = types_pb2.DESCRIPTOR


def proto_enum_prefix(engine_enum: type[StrEnum]) -> str:
    """``CommandKind`` -> ``"COMMAND_KIND_"``: the buf-style prefix of the mirroring proto enum."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", engine_enum.__name__).upper() + "_"


class _EnumMap(Generic[_E]):
    """Member <-> number for one engine enum, built from the proto enum of the same name."""

    def __init__(self, engine_enum: type[_E]) -> None:
        descriptor: EnumDescriptor | None = _FILE.enum_types_by_name.get(engine_enum.__name__)
        if descriptor is None:
            raise TypeError(f"frontier.v1 has no enum {engine_enum.__name__}")
        self.engine_enum = engine_enum
        self.proto_name = descriptor.full_name
        self.prefix = proto_enum_prefix(engine_enum)
        self.to_number: dict[_E, int] = {}
        for member in engine_enum:
            value = descriptor.values_by_name.get(self.prefix + member.name)
            if value is not None and value.number != 0:
                self.to_number[member] = value.number
        self.from_number: dict[int, _E] = {n: m for m, n in self.to_number.items()}

    def encode(self, member: object) -> int:
        if not isinstance(member, self.engine_enum):
            raise WireError(f"expected a {self.engine_enum.__name__}, got {member!r}")
        try:
            return self.to_number[member]
        except KeyError:
            raise WireError(
                f"{self.engine_enum.__name__}.{member.name} has no value "
                f"{self.prefix}{member.name} in {self.proto_name}"
            ) from None

    def decode(self, number: int) -> _E:
        member = self.from_number.get(number)
        if member is not None:
            return member
        if number == 0:
            raise WireError(f"{self.proto_name} is {self.prefix}UNSPECIFIED (not set)")
        raise WireError(f"unknown {self.proto_name} value {number}")


@cache
def _enum_map(engine_enum: type[StrEnum]) -> _EnumMap[Any]:
    return _EnumMap(engine_enum)


def enum_to_proto(member: StrEnum) -> int:
    """The proto enum number of an engine enum member (e.g. for ``Clearing.suit``)."""
    return _enum_map(type(member)).encode(member)


def enum_from_proto(engine_enum: type[_E], number: int) -> _E:
    """The engine member for a proto enum number; :class:`WireError` on 0 or unknown numbers."""
    result: _E = _enum_map(engine_enum).decode(number)
    return result


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    """How one record field crosses the wire."""

    name: str
    repeated: bool
    enum: _EnumMap[Any] | None
    item: type  # the type of the value (of each item, when repeated): str, int, bool, an enum


_SCALARS: dict[type, frozenset[int]] = {
    str: frozenset({FieldDescriptor.TYPE_STRING}),
    int: frozenset({FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64}),
    bool: frozenset({FieldDescriptor.TYPE_BOOL}),
}


def _plan_field(
    record: type, name: str, hint: Any, proto: FieldDescriptor | _UpbFieldDescriptor
) -> _Field:
    """Check one dataclass field against its proto field and say how to convert it."""
    where = f"{record.__name__}.{name}"
    repeated = typing.get_origin(hint) is tuple
    if repeated:
        args = typing.get_args(hint)
        if len(args) != 2 or args[1] is not Ellipsis:
            raise TypeError(f"{where}: only homogeneous tuple[T, ...] fields are supported")
        hint = args[0]
    if repeated != proto.is_repeated:
        raise TypeError(f"{where}: tuple fields must be repeated in proto, and only they")
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        enum_type = proto.enum_type if proto.type == FieldDescriptor.TYPE_ENUM else None
        if enum_type is None or enum_type.name != hint.__name__:
            raise TypeError(f"{where}: proto field must be enum {hint.__name__}")
        return _Field(name, repeated, _enum_map(hint), hint)
    if not isinstance(hint, type) or proto.type not in _SCALARS.get(hint, frozenset()):
        raise TypeError(f"{where}: engine type {hint!r} does not match proto field type")
    return _Field(name, repeated, None, hint)


class _Codec(Generic[_R, _M]):
    """Converts one engine record dataclass to and from its proto message, field by field.

    The conversion runs on every event and command every service sees, so each direction is
    a function generated once from the field plan (as ``dataclasses`` generates
    ``__init__``): one attribute read per field, a dict lookup per enum, the record built
    positionally, no loop, no ``getattr`` and no keyword dict (an event from protobuf ~3x,
    to protobuf ~2x cheaper than walking the plan per record: ``frontier bench wire``).  Anything
    off the fast path -- another class, an enum number or member the maps do not hold, a
    value protobuf refuses -- goes to the plan-walking :meth:`checked_to_proto` /
    :meth:`checked_from_proto`, which convert it the same way or raise :class:`WireError`
    with the reason.
    """

    def __init__(
        self,
        record: type[_R],
        message: type[_M],
        twins: Callable[[_R, _M], None] = lambda record, message: None,
    ) -> None:
        descriptor = message.DESCRIPTOR
        hints = typing.get_type_hints(record)
        names = [f.name for f in dataclasses.fields(record)]
        mirrored = {f.name for f in descriptor.fields if f.number < twins_module.TWIN_FIRST}
        if set(names) != mirrored:
            raise TypeError(
                f"{record.__name__} fields {sorted(names)} != "
                f"{descriptor.full_name} fields {sorted(mirrored)}"
            )
        self.record = record
        self.message = message
        # writes the enum twins (fields 30 on) of a converted record's strings
        self.twins = twins
        self.fields = tuple(
            _plan_field(record, n, hints[n], descriptor.fields_by_name[n]) for n in names
        )
        _check_positional(record, self.fields)
        self.to_proto: Callable[[_R], _M]
        self.into: Callable[[_R, _M], None]
        self.to_proto, self.into = _generate_to_proto(self)
        self.from_proto: Callable[[Message], _R] = _generate_from_proto(self)

    def checked_to_proto(self, record: _R) -> _M:
        if not isinstance(record, self.record):
            raise WireError(f"expected an engine {self.record.__name__}, got {record!r}")
        # Fields at their default ("", 0, empty) are left out: proto3 reads them back the
        # same, and most of a record's fields are defaults (encoding is on the hot path).
        kwargs: dict[str, Any] = {}
        for f in self.fields:
            value = getattr(record, f.name)
            if f.enum is not None:
                enum = f.enum
                value = [enum.encode(v) for v in value] if f.repeated else enum.encode(value)
            elif not value and isinstance(value, _DEFAULT_TYPES):
                continue
            kwargs[f.name] = value
        try:
            msg = self.message(**kwargs)
        except (TypeError, ValueError) as exc:  # wrong Python type, int32 overflow, bad UTF-8
            raise WireError(f"cannot encode {record!r}: {exc}") from exc
        self.twins(record, msg)
        return msg

    def checked_from_proto(self, msg: Message) -> _R:
        if not isinstance(msg, self.message):
            raise WireError(
                f"expected a {self.message.DESCRIPTOR.full_name}, got {type(msg).__name__}"
            )
        kwargs: dict[str, Any] = {}
        for f in self.fields:
            value = getattr(msg, f.name)
            if f.enum is not None:
                enum = f.enum
                value = tuple(enum.decode(v) for v in value) if f.repeated else enum.decode(value)
            elif f.repeated:
                value = tuple(value)
            kwargs[f.name] = value
        return self.record(**kwargs)


# A falsy value of these types is a proto3 default, left out of the message (see above).
_DEFAULT_TYPES = (str, int, tuple)


def _check_positional(record: type, fields: tuple[_Field, ...]) -> None:
    """The generated decoder builds records positionally: check, once, that the record's
    constructor takes its fields in declaration order (a hand-written ``__init__``, as in
    ``frontier.engine.model``, could differ), with a distinct value for each field."""
    values: list[Any] = []
    for i, f in enumerate(fields):
        if f.enum is not None:
            members = [*f.enum.to_number]
            one: Any = members[i % len(members)]
        else:
            one = {str: f"field-{i}", int: 1000 + i, bool: bool(i % 2)}[f.item]
        values.append((one,) if f.repeated else one)
    built = record(*values)
    wrong = [f.name for f, v in zip(fields, values, strict=True) if getattr(built, f.name) != v]
    if wrong:
        raise TypeError(f"{record.__name__}.__init__ does not take {wrong} in field order")


def _generate(name: str, lines: list[str], namespace: dict[str, Any]) -> Callable[..., Any]:
    exec("\n".join(lines), namespace)  # source built from the checked field plan, nothing else
    function: Callable[..., Any] = namespace[name]
    return function


class _OffPath(Exception):
    """Raised inside a generated encoder: this value takes the checked path."""


def _generate_to_proto(
    codec: _Codec[Any, Any],
) -> tuple[Callable[[Any], Any], Callable[[Any, Any], None]]:
    """``def to_proto(r)``, the same message as :meth:`_Codec.checked_to_proto`, and
    ``def into(r, m)``, which writes it into the empty message ``m`` (an entry just added to
    a repeated field: no message built and then copied into its parent).

    It sets the fields of an empty message one by one (~40% cheaper than protobuf's keyword
    constructor) and leaves defaults out; a value of an unexpected type takes the checked
    path, which keeps its exact behaviour (an error, or what the constructor makes of it)."""
    ns: dict[str, Any] = {
        "_record": codec.record,
        "_message": codec.message,
        "_checked": codec.checked_to_proto,
        "_OffPath": _OffPath,
        "_twins": codec.twins,
    }
    body = []
    for i, f in enumerate(codec.fields):
        body.append(f"v = r.{f.name}")
        if f.enum is not None:
            ns[f"_type{i}"], ns[f"_num{i}"] = f.enum.engine_enum, f.enum.to_number
        if f.repeated:
            body.append("if type(v) is not tuple: raise _OffPath")
            if f.enum is not None:
                body.append(f"if any(type(x) is not _type{i} for x in v): raise _OffPath")
                body.append(f"if v: m.{f.name}.extend([_num{i}[x] for x in v])")
            else:
                body.append(f"if v: m.{f.name}.extend(v)")
        elif f.enum is not None:
            body.append(f"if type(v) is not _type{i}: raise _OffPath")
            body.append(f"m.{f.name} = _num{i}[v]")
        else:
            ns[f"_item{i}"] = f.item
            body.append(f"if v: m.{f.name} = v")
            body.append(f"elif type(v) is not _item{i}: raise _OffPath")
    off = "    except (_OffPath, KeyError, TypeError, ValueError):"  # the checked path says why
    to_proto = [
        "def to_proto(r):",
        "    if type(r) is not _record: return _checked(r)",
        "    m = _message()",
        "    try:",
        *("        " + line for line in body),
        off,
        "        return _checked(r)",
        "    _twins(r, m)",
        "    return m",
    ]
    into = [
        "def into(r, m):",
        "    if type(r) is not _record: return m.CopyFrom(_checked(r))",
        "    try:",
        *("        " + line for line in body),
        off,
        "        return m.CopyFrom(_checked(r))",
        "    _twins(r, m)",
    ]
    return _generate("to_proto", to_proto, ns), _generate("into", into, ns)


def _generate_from_proto(codec: _Codec[Any, Any]) -> Callable[[Message], Any]:
    """``def from_proto(m)``: the same record as :meth:`_Codec.checked_from_proto`."""
    ns: dict[str, Any] = {
        "_record": codec.record,
        "_message": codec.message,
        "_checked": codec.checked_from_proto,
    }
    args = []
    for i, f in enumerate(codec.fields):
        if f.enum is None:
            # a slice copies a repeated field out of protobuf ~2x faster than iterating it,
            # and an empty one (most are) is not copied at all
            value = f"m.{f.name}"
            args.append(f"(tuple(v[:]) if (v := {value}) else ())" if f.repeated else value)
            continue
        ns[f"_member{i}"] = f.enum.from_number
        if f.repeated:
            args.append(f"tuple([_member{i}[x] for x in m.{f.name}])")
        else:
            args.append(f"_member{i}[m.{f.name}]")
    lines = [
        "def from_proto(m):",
        "    if type(m) is not _message: return _checked(m)",
        "    try:",
        f"        return _record({', '.join(args)})",
        "    except KeyError:",  # an unset or unknown enum number: the checked path says which
        "        return _checked(m)",
    ]
    return _generate("from_proto", lines, ns)


_COMMAND: _Codec[Command, types_pb2.Command] = _Codec(
    Command, types_pb2.Command, twins_module.fill_command
)
_EVENT: _Codec[Event, types_pb2.Event] = _Codec(Event, types_pb2.Event, twins_module.fill_event)


def command_to_proto(command: Command) -> types_pb2.Command:
    """Engine :class:`Command` -> ``frontier.v1.Command``."""
    return _COMMAND.to_proto(command)


def command_from_proto(msg: types_pb2.Command) -> Command:
    """``frontier.v1.Command`` -> engine :class:`Command`; :class:`WireError` if invalid.

    A twin (field 30 on) set by the client stands in for its empty string field; twins
    that disagree with the strings are a :class:`WireError`."""
    record = _COMMAND.from_proto(msg)
    if isinstance(msg, types_pb2.Command) and twins_module.has_twins(msg):
        return twins_module.with_twins(record, msg)
    return record


def event_to_proto(event: Event) -> types_pb2.Event:
    """Engine :class:`Event` -> ``frontier.v1.Event``."""
    return _EVENT.to_proto(event)


def events_into_proto(
    events: Iterable[Event], target: RepeatedCompositeFieldContainer[types_pb2.Event]
) -> None:
    """Append each engine event's ``frontier.v1.Event`` to the repeated field ``target``,
    written in place: ``Parent(events=[event_to_proto(e) ...])`` builds each message and then
    copies it into the parent, which costs as much again as converting it.  On a
    :class:`WireError` nothing is appended."""
    start = len(target)
    into, add = _EVENT.into, target.add
    try:
        for event in events:
            into(event, add())
    except WireError:
        del target[start:]
        raise


def event_from_proto(msg: types_pb2.Event) -> Event:
    """``frontier.v1.Event`` -> engine :class:`Event`; :class:`WireError` if invalid."""
    return _EVENT.from_proto(msg)
