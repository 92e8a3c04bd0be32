"""Engine enum members as the *typed* proto enum numbers that generated messages expect.

Why: :func:`frontier.wire.convert.enum_to_proto` returns a plain ``int`` (it serves every
enum), while mypy-protobuf types each enum field with its own ``ValueType``.  These small
wrappers give message constructors the exact type, so ``mypy --strict`` keeps checking that a
seat goes into a seat field; ``None`` is the enum's ``*_UNSPECIFIED`` (0).
"""

from __future__ import annotations

from frontier.engine.model import Character, Faction, Item, Role, Seat, Suit, Team
from frontier.v1 import types_pb2
from frontier.wire.convert import enum_to_proto

__all__ = [
    "character_number",
    "faction_number",
    "item_number",
    "role_number",
    "seat_number",
    "suit_number",
    "team_number",
]


def seat_number(seat: Seat | None) -> types_pb2.Seat.ValueType:
    return types_pb2.Seat.ValueType(enum_to_proto(seat) if seat is not None else 0)


def team_number(team: Team | None) -> types_pb2.Team.ValueType:
    return types_pb2.Team.ValueType(enum_to_proto(team) if team is not None else 0)


def suit_number(suit: Suit | None) -> types_pb2.Suit.ValueType:
    return types_pb2.Suit.ValueType(enum_to_proto(suit) if suit is not None else 0)


def item_number(item: Item | None) -> types_pb2.Item.ValueType:
    return types_pb2.Item.ValueType(enum_to_proto(item) if item is not None else 0)


def faction_number(faction: Faction) -> types_pb2.Faction.ValueType:
    return types_pb2.Faction.ValueType(enum_to_proto(faction))


def character_number(character: Character | None) -> types_pb2.Character.ValueType:
    return types_pb2.Character.ValueType(enum_to_proto(character) if character else 0)


def role_number(role: Role) -> types_pb2.Role.ValueType:
    return types_pb2.Role.ValueType(enum_to_proto(role))
