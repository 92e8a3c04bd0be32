"""The enum twins of Command's and Event's strings: written on the way out, and on the way
in a Command's twins stand in for empty strings and are refused when they disagree."""

from __future__ import annotations

from typing import Any

import pytest

from frontier.engine import evolve, initial_state, make_config
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Command, CommandKind, Event, EventKind, Seat
from frontier.engine.view import view
from frontier.v1 import kinds_pb2, types_pb2
from frontier.wire import (
    WireError,
    command_from_proto,
    command_to_proto,
    event_to_proto,
    kinds,
    twins,
)
from frontier.wire.twins import TWIN_FIRST
from frontier.wire.view import view_to_proto
from tests.engine_helpers import playout as engine_playout
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


def _view_twins_agree(msg: types_pb2.View) -> int:
    """Check every enum twin of a typed view against its string; the number checked."""
    checked = 0
    counts = [p for s in msg.seats for p in s.supply]
    for clearing in msg.clearings:
        counts += [p for pieces in clearing.pieces for p in (*pieces.buildings, *pieces.tokens)]
    for count in counts:
        assert count.piece and count.piece == kinds.PIECES[count.kind], count
    for seat in msg.seats:
        for rel in seat.vagabond.relationships:
            assert rel.relationship and rel.relationship == kinds.RELATIONSHIPS[rel.level]
        eyrie = seat.eyrie
        assert eyrie.leader_kind == kinds.LEADERS[eyrie.leader]
        assert list(eyrie.candidate_leaders) == [kinds.LEADERS[n] for n in eyrie.candidates]
        assert list(eyrie.deposed_leaders) == [kinds.LEADERS[n] for n in eyrie.deposed]
        for column in eyrie.decree:
            assert column.column_kind and column.column_kind == kinds.COLUMNS[column.column]
    if msg.HasField("decision"):
        decision = msg.decision
        assert decision.decision_kind and decision.decision_kind == kinds.DECISIONS[decision.kind]
        assert decision.target_seat == kinds.SEATS.get(decision.target, 0)
        checked += 1
    return checked + len(counts)


def test_a_views_twins_agree_with_its_strings_through_a_match() -> None:
    final, log = engine_playout(5, 6, lineup=R2_DEFAULT_LINEUP, max_rounds=2)
    state = initial_state(make_config(seed=5, lineup=R2_DEFAULT_LINEUP, max_rounds=2))
    checked = 0
    for n, (_, events) in enumerate(log):
        for event in events:
            evolve(state, event)
        if n % 2 == 0:
            checked += _view_twins_agree(view_to_proto(view(state, None)))
    assert state.version == final.version and checked > 500


def test_every_playout_command_decodes_from_its_twins_alone() -> None:
    """Blank each string a twin names exactly: the server reads the same command back."""
    _, commands = playout(7)
    blanked = 0
    for command in commands:
        msg = command_to_proto(command)
        for string, group in twins.COMMAND_TWINS.items():
            for twin in group:
                number = getattr(msg, twin.field)
                if number and twin.name_of(number) == getattr(msg, string):
                    setattr(msg, string, "")
                    blanked += 1
        assert command_from_proto(msg) == command
    assert blanked > 100
