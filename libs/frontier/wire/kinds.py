"""Engine vocabularies spelled as strings, as the numbers of their ``frontier.v1`` enums.

Why tables built from the descriptors: the engine names decision kinds, piece kinds,
leaders and the like with plain strings (``"field_hospitals"``, ``"sawmill"``), and the
proto enums of kinds.proto name each value ``<PREFIX>_<NAME IN UPPER CASE>``.  Deriving the
table from the proto values keeps one spelling of each name; tests/unit/wire/test_kinds.py
checks that every engine name has its value, so a new engine name fails CI, not a match.

Each table maps an engine name to its number; a name missing from a table (a kind this
build of the contract lacks) reads as 0, the enum's ``*_UNSPECIFIED``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, TypeVar, cast

from google.protobuf.descriptor import EnumDescriptor

from frontier.engine.cards import CardKind as EngineCardKind
from frontier.engine.model import Item, Seat, Suit, Team
from frontier.engine.vagabond_state import VItem
from frontier.v1 import kinds_pb2, types_pb2

__all__ = [
    "CARD_KINDS",
    "COLUMNS",
    "DECISIONS",
    "ITEMS",
    "LEADERS",
    "PIECES",
    "RELATIONSHIPS",
    "REWARDS",
    "SEATS",
    "SUITS",
    "TEAMS",
    "Names",
    "enum_prefix",
    "names_of",
]

_V = TypeVar("_V", bound=int)


def enum_prefix(descriptor: EnumDescriptor) -> str:
    """``DecisionKind`` -> ``"DECISION_KIND_"``: the buf-style prefix of its value names."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", descriptor.name).upper() + "_"


def names_of(descriptor: EnumDescriptor) -> dict[str, Any]:
    """Engine name -> number for an enum whose values spell engine names: the value name
    without its prefix, in lower case (``DECISION_KIND_FEED_EYRIE`` -> ``"feed_eyrie"``)."""
    prefix = enum_prefix(descriptor)
    return {v.name.removeprefix(prefix).lower(): v.number for v in descriptor.values if v.number}


def _members(descriptor: EnumDescriptor, engine: Iterable[StrEnum]) -> dict[str, Any]:
    """Engine value -> number for an engine StrEnum mirrored by member NAME (as types.proto's
    enums are: ``CardKind.ITEM``, value ``"item_craft"``, is ``CARD_KIND_ITEM``)."""
    prefix = enum_prefix(descriptor)
    out: dict[str, Any] = {}
    for member in engine:
        value = descriptor.values_by_name.get(prefix + member.name)
        if value is not None:
            out[member.value] = value.number
    return out


class Names(dict[str, _V]):
    """Engine name -> enum number; a name it lacks reads as 0, ``*_UNSPECIFIED`` (views show
    a new faction's piece kinds with the string alone rather than failing)."""

    def __missing__(self, key: str) -> _V:
        return cast(_V, 0)


def _typed(table: Mapping[str, int], _: type[_V]) -> Names[_V]:
    """The table with the enum's ``ValueType`` for mypy (the numbers are the same ints)."""
    return Names(cast(Mapping[str, _V], table))


_K = kinds_pb2.DESCRIPTOR.enum_types_by_name
_T = types_pb2.DESCRIPTOR.enum_types_by_name

DECISIONS = _typed(names_of(_K["DecisionKind"]), kinds_pb2.DecisionKind.ValueType)
PIECES = _typed(names_of(_K["PieceKind"]), kinds_pb2.PieceKind.ValueType)
RELATIONSHIPS = _typed(names_of(_K["RelationshipLevel"]), kinds_pb2.RelationshipLevel.ValueType)
LEADERS = _typed(names_of(_K["EyrieLeader"]), kinds_pb2.EyrieLeader.ValueType)
COLUMNS = _typed(names_of(_K["DecreeColumnKind"]), kinds_pb2.DecreeColumnKind.ValueType)
REWARDS = _typed(names_of(_K["QuestReward"]), kinds_pb2.QuestReward.ValueType)
CARD_KINDS = _typed(_members(_K["CardKind"], EngineCardKind), kinds_pb2.CardKind.ValueType)

SEATS = _typed(_members(_T["Seat"], Seat), types_pb2.Seat.ValueType)
TEAMS = _typed(_members(_T["Team"], Team), types_pb2.Team.ValueType)
SUITS = _typed(_members(_T["Suit"], Suit), types_pb2.Suit.ValueType)
# Items, and every item key of the Vagabond's commands and events ("sword/exhausted",
# "tea/damaged/contraband"...) as the item it names.
_ITEM_NUMBERS = _members(_T["Item"], Item)
ITEMS = _typed(
    {
        VItem(item, exhausted, damaged, contraband).key: _ITEM_NUMBERS[item.value]
        for item in Item
        for exhausted in (False, True)
        for damaged in (False, True)
        for contraband in (False, True)
    },
    types_pb2.Item.ValueType,
)
