"""Every event, chosen command and legal command of random playouts crosses the wire intact.

Why, besides test_wire_roundtrip.py: the codec's hot paths are functions generated from the
field plan (``convert._Codec``), with a plan-walking checked path beside them for anything
unusual.  Here real matches' records go through both: the generated encoder must give the
same bytes as the checked one, the generated decoder the same record (of the engine's own
types), and the bytes must read back as the record, for each lineup's factions.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import pytest

from frontier.bots import make_bot
from frontier.engine import initial_state, legal_commands, make_config, to_act
from frontier.engine.decide import execute
from frontier.engine.lineup import default_lineup
from frontier.engine.model import Command, CommandKind, Event, EventKind, Seat
from frontier.play.match_runner import seat_bots
from frontier.v1 import domain_pb2, types_pb2
from frontier.wire import (
    command_from_proto,
    command_to_proto,
    convert,
    event_from_proto,
    event_to_proto,
    events_into_proto,
)


def playout(seed: int) -> tuple[list[Event], list[Command]]:
    """A random-bot match's events, and every command listed as legal along the way."""
    config = make_config(seed=seed, lineup=default_lineup())
    state = initial_state(config)
    bots = seat_bots(config, lambda s: make_bot("random", s))
    events: list[Event] = []
    commands: list[Command] = []
    while (seat := to_act(state)) is not None:
        legal = legal_commands(state, seat)
        commands.extend(legal)
        events.extend(execute(state, bots[seat].choose(state, seat, legal)))
    return events, commands


@pytest.mark.parametrize("seed", [7, 2024])
def test_playout_records_round_trip(seed: int) -> None:
    events, commands = playout(seed)
    assert len({e.kind for e in events}) > 20
    for event in events:
        msg = event_to_proto(event)
        wire = msg.SerializeToString()
        assert wire == convert._EVENT.checked_to_proto(event).SerializeToString()
        parsed = types_pb2.Event.FromString(wire)
        back = event_from_proto(parsed)
        assert back == event
        assert back == convert._EVENT.checked_from_proto(parsed)
        assert type(back.kind) is EventKind
        assert type(back.cards) is tuple and type(back.values) is tuple
    for command in commands:
        wire = command_to_proto(command).SerializeToString()
        assert wire == convert._COMMAND.checked_to_proto(command).SerializeToString()
        decoded = command_from_proto(types_pb2.Command.FromString(wire))
        assert decoded == command
        assert type(decoded.kind) is CommandKind and type(decoded.seat) is Seat
        assert decoded.key() == command.key()


def test_unset_enum_on_the_fast_path_still_names_the_field() -> None:
    # the generated decoder meets the unknown number first; the checked path says what it is
    msg = types_pb2.Command(kind=types_pb2.COMMAND_KIND_MARCH, clearing="c1")
    with pytest.raises(convert.WireError, match="SEAT_UNSPECIFIED"):
        command_from_proto(msg)
    with pytest.raises(convert.WireError, match="cannot encode"):
        command_to_proto(Command(CommandKind.MARCH, Seat.A1, cards=("ok", "\udcff")))


def test_a_record_whose_constructor_reorders_its_fields_is_refused() -> None:
    # the generated decoder builds records positionally: a constructor taking the fields in
    # another order than they are declared would silently swap values, so the codec refuses it
    names = [f.name for f in dataclasses.fields(Command)]
    hints = typing.get_type_hints(Command)
    order = names.copy()
    i, j = order.index("clearing"), order.index("to")
    order[i], order[j] = order[j], order[i]

    def init(self: Any, *values: Any) -> None:
        for name, value in zip(order, values, strict=True):
            setattr(self, name, value)

    swapped = dataclasses.make_dataclass(
        "Swapped", [(n, hints[n]) for n in names], init=False, namespace={"__init__": init}
    )
    with pytest.raises(TypeError, match=r"Swapped.__init__ does not take \['clearing', 'to'\]"):
        convert._Codec(swapped, types_pb2.Command)


def test_events_written_in_place_match_the_built_messages() -> None:
    events, _ = playout(11)
    reply = domain_pb2.DomainEvents(replica="r")
    events_into_proto(events[:200], reply.events)
    built = domain_pb2.DomainEvents(events=[event_to_proto(e) for e in events[:200]], replica="r")
    assert reply.SerializeToString() == built.SerializeToString()


def test_an_unencodable_event_written_in_place_appends_nothing() -> None:
    reply = domain_pb2.DomainEvents()
    events_into_proto([Event(EventKind.SCORED, seat="A1", amount=2)], reply.events)
    before = reply.SerializeToString()
    bad = [Event(EventKind.ROUND_STARTED, count=2), Event(EventKind.SCORED, text="\ud800")]
    with pytest.raises(convert.WireError, match="cannot encode"):
        events_into_proto(bad, reply.events)
    assert reply.SerializeToString() == before
