"""The enum twins of Command's and Event's strings: written on the way out, and on the way
in a Command's twins stand in for empty strings and are refused when they disagree."""

from __future__ import annotations

from typing import Any

import pytest

from frontier.engine.model import Command, CommandKind, Event, EventKind, Seat
from frontier.v1 import kinds_pb2, types_pb2
from frontier.wire import WireError, command_from_proto, command_to_proto, event_to_proto, twins
from frontier.wire.twins import TWIN_FIRST
from tests.unit.wire.test_wire_playouts import playout


def test_every_twin_field_is_written_by_some_table() -> None:
    written = {"target_seat", "seat_id", "target_team", "quest_reward"}
    for table in (twins.COMMAND_PIECE, twins.EVENT_PIECE, twins.EVENT_TEXT):
        written |= {twin.field for twin in table.values()}
    for message in (types_pb2.Command, types_pb2.Event):
        fields = {f.name for f in message.DESCRIPTOR.fields if f.number >= TWIN_FIRST}
        assert fields <= written, sorted(fields - written)


@pytest.mark.parametrize(
    ("command", "field", "number"),
    [
        (Command(CommandKind.BATTLE, Seat.A1, "c", target="B2"), "target_seat", types_pb2.SEAT_B2),
        (Command(CommandKind.QUEST, Seat.A3, piece="q", target="draw"), "quest_reward", 2),
        (Command(CommandKind.BUILD, Seat.A1, "c", piece="sawmill"), "piece_kind", 2),
        (Command(CommandKind.STRIKE, Seat.A3, target="B1", piece="keep"), "piece_kind", 10),
        (Command(CommandKind.REPAIR, Seat.A3, piece="sword/damaged"), "item", 5),
        (Command(CommandKind.DECREE_MOVE, Seat.A2, "c", "d", 1, piece="fox"), "suit", 2),
        (Command(CommandKind.CHOOSE_LEADER, Seat.A2, piece="despot"), "leader", 4),
        (Command(CommandKind.ADD_TO_DECREE, Seat.A2, piece="battle"), "decree_column", 3),
    ],
)
def test_command_twins_written(command: Command, field: str, number: int) -> None:
    msg = command_to_proto(command)
    assert getattr(msg, field) == number
    assert command_from_proto(msg) == command  # the twins agree with the strings


def test_a_string_outside_the_kinds_vocabulary_has_no_twin() -> None:
    msg = command_to_proto(Command(CommandKind.QUEST, Seat.A3, piece="errand_fox", target="vp"))
    assert msg.quest_reward == kinds_pb2.QUEST_REWARD_VP
    assert not (msg.piece_kind or msg.item or msg.suit or msg.leader or msg.decree_column)


def test_event_twins_written() -> None:
    msg = event_to_proto(
        Event(EventKind.PIECES_REMOVED, "B1", "c", piece="roost", count=1, target="A3")
    )
    assert (msg.seat_id, msg.target_seat, msg.piece_kind) == (
        types_pb2.SEAT_B1,
        types_pb2.SEAT_A3,
        kinds_pb2.PIECE_KIND_ROOST,
    )
    scored = event_to_proto(Event(EventKind.SCORED, "A1", amount=2, target="A", text="craft"))
    assert (scored.target_team, scored.target_seat) == (types_pb2.TEAM_A, 0)
    asked = event_to_proto(Event(EventKind.DECISION_REQUESTED, "B2", text="field_hospitals"))
    assert asked.decision_kind == kinds_pb2.DECISION_KIND_FIELD_HOSPITALS
    # "battle" is a reason here, not a Decree column: the kind decides the vocabulary
    hostile = event_to_proto(
        Event(EventKind.RELATIONSHIP_CHANGED, "A3", target="B1", text="hostile", piece="battle")
    )
    assert hostile.relationship == kinds_pb2.RELATIONSHIP_LEVEL_HOSTILE
    assert hostile.decree_column == 0
    table = event_to_proto(Event(EventKind.ROUND_STARTED, count=2))
    assert table.seat_id == types_pb2.SEAT_UNSPECIFIED


def test_a_twin_alone_stands_for_its_string() -> None:
    msg = types_pb2.Command(
        kind=types_pb2.COMMAND_KIND_BATTLE,
        seat=types_pb2.SEAT_A1,
        clearing="autumn.hill",
        target_seat=types_pb2.SEAT_B1,
    )
    assert command_from_proto(msg) == Command(
        CommandKind.BATTLE, Seat.A1, "autumn.hill", target="B1"
    )
    build = types_pb2.Command(
        kind=types_pb2.COMMAND_KIND_BUILD,
        seat=types_pb2.SEAT_A1,
        clearing="c",
        piece_kind=kinds_pb2.PIECE_KIND_WORKSHOP,
    )
    assert command_from_proto(build).piece == "workshop"
    repair = types_pb2.Command(
        kind=types_pb2.COMMAND_KIND_REPAIR, seat=types_pb2.SEAT_A3, item=types_pb2.ITEM_TEA
    )
    assert command_from_proto(repair).piece == "tea"  # the bare item: the key says which copy


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"target": "B1", "target_seat": types_pb2.SEAT_B2}, "target_seat"),
        ({"piece": "sawmill", "piece_kind": kinds_pb2.PIECE_KIND_RECRUITER}, "piece_kind"),
        ({"piece_kind": kinds_pb2.PIECE_KIND_WOOD, "item": types_pb2.ITEM_BAG}, "disagree"),
        ({"item": types_pb2.ITEM_SWORD}, "item"),  # an item is no building
        ({"leader": kinds_pb2.EYRIE_LEADER_DESPOT}, "leader"),
        ({"piece_kind": 99}, "unknown value 99"),
        ({"quest_reward": kinds_pb2.QUEST_REWARD_VP}, "quest_reward"),  # not a quest
    ],
)
def test_disagreeing_twins_are_malformed(fields: dict[str, Any], match: str) -> None:
    msg = types_pb2.Command(
        kind=types_pb2.COMMAND_KIND_BUILD, seat=types_pb2.SEAT_A1, clearing="c", **fields
    )
    with pytest.raises(WireError, match=match):
        command_from_proto(msg)


def test_playout_strings_of_a_known_vocabulary_all_have_twins() -> None:
    events, commands = playout(11)
    for command in commands:
        twin = twins.COMMAND_PIECE.get(command.kind)
        if twin is not None and command.piece:
            assert command.piece in twin.names, command
    for event in events:
        for table, value in ((twins.EVENT_PIECE, event.piece), (twins.EVENT_TEXT, event.text)):
            twin = table.get(event.kind)
            if twin is not None and value:
                assert value in twin.names, event
