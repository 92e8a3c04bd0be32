"""The legal commands of a hosted match, computed once per state version.

One accepted command needs its seat's legal list several times: the client reads it
(ListLegalCommands, a bot's DecisionRequest, or the previous SubmitCommandResponse), the
submit resolves a legal id against it, and the command is checked against it before it goes
to its domain.  Enumerating legal commands is the most expensive read the engine has, and
turning the list into protobuf is the next one, so the orchestrator keeps both for the
current version, with an index by id, and forgets them as soon as the version moves on.

The cache is exact, not a heuristic: a match's state is never changed in place (a commit
replaces it with a new state whose version is higher), so a list computed at version *v*
is the engine's answer for as long as the match is at *v*.

One legal command's protobuf (id, command, label, verb) depends on the command alone, plus
its cost and certain VP, which depend on the state (computed by the engine for each list:
see :mod:`frontier.engine.score_preview`).  The same commands with the same facts come back
version after version and match after match (the same moves, the same end of a step), so
the last :data:`WIRE_KEPT` of them are kept across versions and matches: most entries of a
list are found kept already, and a list costs a fraction of building every entry anew.
They are kept per seat by the command's id (its ``key()``, which names every field but the
seat) and its facts when it has any, not by the command itself: hashing and
comparing a ``Command`` runs its dataclass ``__hash__``/``__eq__`` in Python, which would
be most of what building a list still costs.  Bounded (:data:`WIRE_KEPT` per seat, forgotten all at
once when full), so a server's memory for it stays small, whatever the number of matches.

Each kept entry also keeps its serialized form, length-prefixed: a reply's repeated
``LegalCommand`` field is then the entries' bytes joined, each behind the field's tag
(protobuf lets a repeated field's entries be concatenated), and the reply merges those bytes
in one C call instead of copying each message into it, several times faster (the replies
are byte for byte the same, tests/unit/orchestrator/test_legal_cache.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from frontier.engine import Seat, legal_commands
from frontier.engine.model import Command
from frontier.engine.score_preview import NO_COST, Preview, preview
from frontier.engine.state import State
from frontier.v1 import types_pb2
from frontier.wire.command_facts import facts_to_proto
from frontier.wire.labels import legal_command_to_proto

WIRE_KEPT = 1024  # per seat


class _Kept(NamedTuple):
    """One command's ``LegalCommand``, and its serialized form behind its length (varint):
    what a repeated field's entry is on the wire, less the field's tag."""

    message: types_pb2.LegalCommand
    entry: bytes


# seat -> legal id (and, unless it costs nothing and surely scores nothing, its preview) ->
# the LegalCommand of that seat's command with that id and those facts
_Key = str | tuple[str, Preview]
_WIRE: dict[Seat, dict[_Key, _Kept]] = {}


def wire_of(state: State, cmd: Command, key: str) -> types_pb2.LegalCommand:
    """``cmd``, legal in ``state``, as a protobuf ``LegalCommand`` with id ``key`` (its
    ``key()``), shared: the caller copies it into its message (as protobuf does) and never
    changes it."""
    return _entry(_kept_for(cmd.seat), state, cmd, key).message


def forget_wire() -> None:
    """Drop every kept ``LegalCommand`` (tests)."""
    _WIRE.clear()


def _kept_for(seat: Seat) -> dict[_Key, _Kept]:
    """``seat``'s kept messages by legal id (created empty on first use)."""
    kept = _WIRE.get(seat)
    if kept is None:
        kept = _WIRE[seat] = {}
    return kept


def _entry(kept: dict[_Key, _Kept], state: State, cmd: Command, key: str) -> _Kept:
    """The kept entry of ``cmd`` with its facts in ``state`` (made and kept if new).

    The facts (cost, vp) depend on the state, the rest on the command alone: the facts are
    computed each time and join the id in the key unless they are the commonest ones (no
    cost, surely no VP), so most entries of a list are still found kept."""
    found = preview(state, cmd)
    index: _Key = key if found.vp == 0 and found.cost is NO_COST else (key, found)
    entry = kept.get(index)
    if entry is not None:
        return entry
    if len(kept) >= WIRE_KEPT:
        kept.clear()
    message = legal_command_to_proto(cmd, key)
    message.MergeFrom(facts_to_proto(found))
    body = message.SerializeToString()
    entry = kept[index] = _Kept(message, varint(len(body)) + body)
    return entry


def varint(value: int) -> bytes:
    """``value`` (>= 0) as a protobuf varint: seven bits a byte, least significant first."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_tag(number: int) -> bytes:
    """The tag of a length-delimited field (wire type 2: a message) with that number."""
    return varint(number << 3 | 2)


@dataclass(slots=True)
class SeatLegal:
    """One seat's legal commands at one version, indexed by their ids."""

    state: State  # the state they are legal in (never changed: a commit replaces it)
    commands: list[Command]
    keys: list[str]  # the commands' ids, in the same order (computed once: not free)
    by_id: dict[str, Command]
    _listed: Listed | None = field(default=None, repr=False)

    @classmethod
    def of(cls, state: State, commands: list[Command]) -> SeatLegal:
        keys = [cmd.key() for cmd in commands]
        # the first command of each id (ids are unique: test_an_id_names_one_command...),
        # built in C: the later of two equal keys wins, so the list goes in reversed
        by_id = dict(zip(reversed(keys), reversed(commands), strict=True))
        return cls(state, commands, keys, by_id)

    def contains(self, cmd: Command, key: str) -> bool:
        """Whether ``cmd`` (whose ``key()`` is ``key``) is one of them: one dict lookup
        instead of a scan of the list; a command resolved from its legal id is the listed
        object itself, which needs no comparison (a dataclass ``__eq__``)."""
        found = self.by_id.get(key)
        return found is cmd or found == cmd

    def wire(self) -> list[types_pb2.LegalCommand]:
        """The list as protobuf ``LegalCommand``s."""
        return self.listed().wire()

    def listed(self) -> Listed:
        """The list as its kept protobuf entries, looked up on first use."""
        if self._listed is None:
            if not self.commands:
                self._listed = Listed(())
                return self._listed
            # one seat's list (legal_commands(state, seat)): one lookup of the seat's
            # messages, then one of each id
            kept = _kept_for(self.commands[0].seat)
            state = self.state
            out = [
                _entry(kept, state, cmd, key)
                for key, cmd in zip(self.keys, self.commands, strict=True)
            ]
            self._listed = Listed(tuple(out))
        return self._listed


@dataclass(frozen=True, slots=True)
class Listed:
    """A legal list as sent: each entry's ``LegalCommand`` and bytes, shared with the kept
    ones.  What a seat's latest reply keeps for its retry: a tuple of references (the
    ``SeatLegal`` it comes from holds the commands, their ids and an index besides, many
    times the memory)."""

    entries: tuple[_Kept, ...]

    def __bool__(self) -> bool:
        return bool(self.entries)

    def wire(self) -> list[types_pb2.LegalCommand]:
        """The list as protobuf ``LegalCommand``s."""
        return [k.message for k in self.entries]

    def spliced(self, tag: bytes) -> bytes:
        """The list as the wire form of a repeated ``LegalCommand`` field with ``tag``
        (:func:`field_tag`): what serializing a message whose only field is that list
        gives, to be merged into a reply (``MergeFromString``) or joined to its bytes."""
        entries = [k.entry for k in self.entries]
        return tag + tag.join(entries) if entries else b""


class LegalCache:
    """Per seat, the legal commands of the state version last asked about."""

    __slots__ = ("_by_seat", "_version")

    def __init__(self) -> None:
        self._version = -1
        self._by_seat: dict[Seat, SeatLegal] = {}

    def seed(self, state: State, seat: Seat, commands: list[Command]) -> None:
        """Keep ``commands``, which the caller knows to be ``legal_commands(state, seat)``;
        ``state`` must already be the match's committed state (a version number alone does
        not tell two different uncommitted futures apart)."""
        self._at(state.version)[seat] = SeatLegal.of(state, commands)

    def of(self, state: State, seat: Seat) -> SeatLegal:
        by_seat = self._at(state.version)
        hit = by_seat.get(seat)
        if hit is None:
            hit = by_seat[seat] = SeatLegal.of(state, legal_commands(state, seat))
        return hit

    def _at(self, version: int) -> dict[Seat, SeatLegal]:
        """The lists kept for ``version``, after forgetting those of any other version."""
        if version != self._version:
            self._version = version
            self._by_seat = {}
        return self._by_seat
