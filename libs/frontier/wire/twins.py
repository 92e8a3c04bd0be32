"""The enum twins of Command's and Event's string fields (numbers 30-49 in types.proto).

Why twins rather than new types: the engine's records keep their string fields (the rules,
the replays and the JSON view read them), and the wire keeps every old field with its old
value.  Beside a string that names a seat, team, piece, item, suit, leader, Decree column,
decision kind or relationship level, the message also carries that name as an enum number,
so a client can switch on a checked number.

Which vocabulary a string belongs to depends on the kind: ``piece`` is a piece kind in a
BUILD, an item key in a REPAIR, a suit in a DECREE_MOVE, and a free reason elsewhere
(RELATIONSHIP_CHANGED's "battle"); so ``piece`` and ``text`` are looked up through per-kind
tables, and only seats, teams and quest rewards (names no other vocabulary uses) by value.

Outbound, :func:`fill_command` and :func:`fill_event` write the twins of a converted record.
Inbound, :func:`with_twins` lets a Command's twins stand in for its empty string fields and
refuses twins that disagree with the strings (:class:`WireError`, INVALID_ARGUMENT with the
reason MALFORMED at the service edge).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from frontier.engine.model import Command, CommandKind, Event, EventKind
from frontier.v1 import types_pb2
from frontier.wire import kinds
from frontier.wire.errors import WireError

__all__ = [
    "COMMAND_PIECE",
    "COMMAND_TWINS",
    "EVENT_PIECE",
    "EVENT_TEXT",
    "TWIN_FIRST",
    "Twin",
    "command_twins",
    "fill_command",
    "fill_event",
    "has_twins",
    "with_twins",
]

# Field numbers from here on are twins; below it, a field mirrors an engine record field.
TWIN_FIRST = 30


@dataclasses.dataclass(frozen=True, slots=True)
class Twin:
    """An enum field of the message and the engine names it spells."""

    field: str
    names: Mapping[str, int]

    def name_of(self, number: int) -> str | None:
        """The engine name a twin number alone stands for (an item key's bare item)."""
        for name, n in self.names.items():  # the first spelling: the bare item, not a key
            if n == number:
                return name
        return None


_PIECE_KIND = Twin("piece_kind", kinds.PIECES)
_ITEM = Twin("item", kinds.ITEMS)
_SUIT = Twin("suit", kinds.SUITS)
_LEADER = Twin("leader", kinds.LEADERS)
_COLUMN = Twin("decree_column", kinds.COLUMNS)
_TARGET_SEAT = Twin("target_seat", kinds.SEATS)
_REWARD = Twin("quest_reward", kinds.REWARDS)


def _each(twin: Twin, *of: CommandKind | EventKind) -> dict[CommandKind | EventKind, Twin]:
    return dict.fromkeys(of, twin)


_C = CommandKind
# What Command.piece names, per command kind (engine CommandKind's comments).
COMMAND_PIECE: dict[CommandKind | EventKind, Twin] = {
    **_each(_PIECE_KIND, _C.PLACE_BUILDING, _C.BUILD, _C.REMOVE_PIECE, _C.STRIKE),
    **_each(_ITEM, _C.REFRESH, _C.REPAIR, _C.DAMAGE_ITEM, _C.REMOVE_ITEM, _C.PICK_UP),
    **_each(_ITEM, _C.INTERVENE, _C.TAKE_ITEM, _C.COLLECT, _C.SEIZE, _C.AID),
    **_each(_SUIT, _C.DECREE_RECRUIT, _C.DECREE_MOVE, _C.DECREE_BATTLE, _C.DECREE_BUILD),
    **_each(_SUIT, _C.SKIP_DECREE_CARD),
    _C.CHOOSE_LEADER: _LEADER,
    _C.ADD_TO_DECREE: _COLUMN,
}
_COMMAND_TARGET: dict[CommandKind, Twin] = {_C.QUEST: _REWARD}

_E = EventKind
# What Event.piece names, per event kind (engine EventKind's comments).
EVENT_PIECE: dict[CommandKind | EventKind, Twin] = {
    **_each(_PIECE_KIND, _E.KEEP_PLACED, _E.PIECES_PLACED, _E.PIECES_MOVED, _E.PIECES_REMOVED),
    **_each(_ITEM, _E.ITEMS_EXHAUSTED, _E.ITEM_REFRESHED, _E.ITEM_DAMAGED, _E.ITEM_REPAIRED),
    **_each(_ITEM, _E.ITEM_GAINED, _E.ITEM_REMOVED, _E.INTERVENED, _E.CARD_CRAFTED),
    **_each(_ITEM, _E.CONTRABAND_COLLECTED, _E.CONTRABAND_SEIZED, _E.CONTRABAND_VALIDATED),
    **_each(_LEADER, _E.LEADER_CHOSEN, _E.LEADER_DEPOSED),
    _E.DECREE_ADDED: _COLUMN,
    _E.DECREE_CARD_SKIPPED: _SUIT,
}
# What Event.text names, per event kind.
EVENT_TEXT: dict[CommandKind | EventKind, Twin] = {
    **_each(Twin("decision_kind", kinds.DECISIONS), _E.DECISION_REQUESTED, _E.DECISION_DECLINED),
    _E.RELATIONSHIP_CHANGED: Twin("relationship", kinds.RELATIONSHIPS),
    _E.DECREE_CARD_SKIPPED: _COLUMN,
}

_SEATS, _TEAMS = kinds.SEATS, kinds.TEAMS


def fill_command(record: Command, msg: types_pb2.Command) -> None:
    """Write the twins of ``record``'s strings into ``msg`` (its converted message)."""
    for field, number in command_twins(record).items():
        setattr(msg, field, number)


def command_twins(record: Command) -> dict[str, int]:
    """Twin field -> number for each string of ``record`` that names something."""
    out: dict[str, int] = {}
    target = record.target
    if target:
        seat = _SEATS.get(target)
        if seat:
            out["target_seat"] = seat
        elif (twin := _COMMAND_TARGET.get(record.kind)) is not None and (
            number := twin.names.get(target, 0)
        ):
            out[twin.field] = number
    piece = record.piece
    if piece and (twin := COMMAND_PIECE.get(record.kind)) is not None:
        number = twin.names.get(piece, 0)
        if number:
            out[twin.field] = number
    return out


def _put(msg: types_pb2.Command | types_pb2.Event, twin: Twin | None, value: str) -> None:
    """Set ``twin``'s field to ``value``'s number when ``value`` is one of its names."""
    if twin is not None and (number := twin.names.get(value, 0)):
        setattr(msg, twin.field, number)


def fill_event(record: Event, msg: types_pb2.Event) -> None:
    """Write the twins of ``record``'s strings into ``msg`` (its converted message).

    On the path of every event every service converts: a few dict lookups, nothing more."""
    value = record.seat
    if value and (seat := _SEATS.get(value)):
        msg.seat_id = seat
    value = record.target
    if value:
        if seat := _SEATS.get(value):
            msg.target_seat = seat
        elif team := _TEAMS.get(value):
            msg.target_team = team
    kind = record.kind
    value = record.piece
    if value:
        _put(msg, EVENT_PIECE.get(kind), value)
    value = record.text
    if value:
        _put(msg, EVENT_TEXT.get(kind), value)


# Command's twins, by the string field they stand for.
COMMAND_TWINS: dict[str, tuple[Twin, ...]] = {
    "target": (_TARGET_SEAT, _REWARD),
    "piece": (_PIECE_KIND, _ITEM, _SUIT, _LEADER, _COLUMN),
}
_TWIN_FIELDS = tuple(t.field for twins in COMMAND_TWINS.values() for t in twins)


def has_twins(msg: types_pb2.Command) -> bool:
    """Whether a client set any twin of ``msg`` (most send the strings only)."""
    return bool(
        msg.target_seat
        or msg.quest_reward
        or msg.piece_kind
        or msg.item
        or msg.suit
        or msg.leader
        or msg.decree_column
    )


def with_twins(record: Command, msg: types_pb2.Command) -> Command:
    """``record`` (decoded from ``msg``'s strings) with each empty string filled from its
    twin; :class:`WireError` when twins disagree with each other or with the strings."""
    sent = {field: number for field in _TWIN_FIELDS if (number := getattr(msg, field))}
    derived = command_twins(record)
    if all(derived.get(field) == number for field, number in sent.items()):
        return record  # the twins say what the strings say (every command a server sends)
    filled: dict[str, str] = {}
    for string, twins in COMMAND_TWINS.items():
        names = {}
        for twin in twins:
            number = getattr(msg, twin.field)
            if not number:
                continue
            name = twin.name_of(number)
            if name is None:
                raise WireError(f"Command.{twin.field} has an unknown value {number}")
            names[twin.field] = name
        if len(set(names.values())) > 1:
            raise WireError(f"Command fields {', '.join(sorted(names))} disagree")
        if names and not getattr(record, string):
            filled[string] = next(iter(names.values()))
    result = record
    if filled:
        result = dataclasses.replace(
            record,
            target=filled.get("target", record.target),
            piece=filled.get("piece", record.piece),
        )
    derived = command_twins(result)
    for field, number in sent.items():
        if number != derived.get(field):
            raise WireError(
                f"Command.{field} ({number}) does not match target {result.target!r} and "
                f"piece {result.piece!r} of a {result.kind.value} command"
            )
    return result
