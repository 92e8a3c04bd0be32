"""kinds.proto mirrors the engine's string vocabularies, completely and both ways.

Each table of :mod:`frontier.wire.kinds` is derived from a proto enum; these tests compare
it with the engine's own list of names, so a decision kind, piece kind, leader or level
added to the engine without its enum value fails here.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from google.protobuf.descriptor import EnumDescriptor

from frontier.engine.cards import CardKind
from frontier.engine.decide import decision_kinds
from frontier.engine.factions import eyrie_board
from frontier.engine.factions.vagabond_actions import QUEST_CARDS, QUEST_VP
from frontier.engine.model import Item
from frontier.engine.pieces import BUILDINGS, TOKENS, WARRIOR
from frontier.engine.vagabond_state import HOSTILE, TRACK_LEVELS, VItem
from frontier.v1 import kinds_pb2, types_pb2
from frontier.wire import kinds

ENUMS = kinds_pb2.DESCRIPTOR.enum_types_by_name

# each kinds.proto enum, its table, and the engine's names it must cover
MIRRORS: dict[str, tuple[Mapping[str, int], set[str]]] = {
    "DecisionKind": (kinds.DECISIONS, set(decision_kinds())),
    "PieceKind": (kinds.PIECES, {WARRIOR, *BUILDINGS, *TOKENS}),
    "RelationshipLevel": (kinds.RELATIONSHIPS, {HOSTILE, *TRACK_LEVELS}),
    "EyrieLeader": (kinds.LEADERS, set(eyrie_board.LEADERS)),
    "DecreeColumnKind": (kinds.COLUMNS, set(eyrie_board.COLUMNS)),
    "QuestReward": (kinds.REWARDS, {QUEST_VP, QUEST_CARDS}),
    "CardKind": (kinds.CARD_KINDS, {k.value for k in CardKind}),
}


def test_every_kinds_enum_mirrors_an_engine_vocabulary() -> None:
    assert set(ENUMS) == set(MIRRORS)


@pytest.mark.parametrize("name", sorted(MIRRORS))
def test_the_enum_names_every_engine_name_and_nothing_else(name: str) -> None:
    table, engine = MIRRORS[name]
    missing, extra = sorted(engine - set(table)), sorted(set(table) - engine)
    assert not missing and not extra, f"{name}: missing {missing}; extra {extra}"


@pytest.mark.parametrize("name", sorted(MIRRORS))
def test_the_enum_follows_the_naming_rules(name: str) -> None:
    descriptor: EnumDescriptor = ENUMS[name]
    prefix = kinds.enum_prefix(descriptor)
    by_number = {v.number: v.name for v in descriptor.values}
    assert by_number[0] == f"{prefix}UNSPECIFIED"
    assert len(by_number) == len(descriptor.values), "numbers must be unique"
    assert all(v.name.startswith(prefix) for v in descriptor.values)
    table, _ = MIRRORS[name]
    assert sorted(table.values()) == sorted(n for n in by_number if n), "one name per number"


def test_card_kinds_follow_the_member_names() -> None:
    assert kinds.CARD_KINDS["item_craft"] == kinds_pb2.CARD_KIND_ITEM
    assert kinds.CARD_KINDS[CardKind.AMBUSH.value] == kinds_pb2.CARD_KIND_AMBUSH


def test_a_name_the_table_lacks_reads_as_unspecified() -> None:
    assert kinds.PIECES["a_new_token"] == kinds_pb2.PIECE_KIND_UNSPECIFIED
    assert kinds.DECISIONS[""] == kinds_pb2.DECISION_KIND_UNSPECIFIED
    assert "a_new_token" not in kinds.PIECES  # a miss adds nothing


def test_every_item_key_names_its_item() -> None:
    for item in Item:
        number = kinds.ITEMS[item.value]
        assert number == getattr(types_pb2, f"ITEM_{item.name}")
        assert kinds.ITEMS[VItem(item, exhausted=True, damaged=True).key] == number
        assert kinds.ITEMS[VItem(item, contraband=True).key] == number
    assert len(kinds.ITEMS) == 8 * len(Item)
