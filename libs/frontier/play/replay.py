"""Replay files: a match as (config, commands), plus the events and final state hash to check.

Because the engine is deterministic, the config and the commands alone reproduce a match;
the recorded events and ``state_hash`` are what make a replay *checkable*: re-running it
must give the same events one by one and the same final state, or something changed (the
engine's rules, or the file).

The file is JSON, one command or event per line so that a diff of two replays is readable::

    {"format": "frontier.replay/1",
     "config": {"seed": 0, "lineup": "...", "team_hands_visible": false, "max_rounds": 6},
     "commands": [{"kind": "place_keep", "seat": "A1", "clearing": "..."}, ...],
     "events": [{"kind": "match_started"}, ...],
     "state_hash": "<sha256 hex>"}

Commands and events are their dataclass fields, enums by value and tuples as lists; fields
at their default value are left out (loading restores them).  Files are untrusted input, so
loading validates them with pydantic and turns any problem into a :class:`ReplayError` with
a readable message.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import typing
from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import CoreSchema, core_schema

from frontier.engine import (
    Command,
    EngineError,
    Event,
    MatchConfig,
    decide,
    evolve,
    initial_state,
)
from frontier.engine.hashing import state_hash
from frontier.play.match_runner import MatchResult

REPLAY_FORMAT = "frontier.replay/1"

# Problems listed in a load error; more are only counted, so one bad file stays one message.
_MAX_PROBLEMS = 3


class ReplayError(Exception):
    """A replay file that cannot be read or is not a valid replay (never a mismatch)."""


class _Twin:
    """Pydantic reads and writes an engine record (Command, Event) as a plain dataclass twin.

    The compiled engine's records are native objects, and pydantic builds a dataclass
    without calling its ``__init__`` (it fills the instance dict, which they lack).  The twin
    has the record's name, fields, defaults and hints, so validation, its error messages and
    the dumped JSON are the record's own; the validated twin is then built into the record.
    """

    def __init__(self, record: type[Any]) -> None:
        hints = typing.get_type_hints(record)
        self.record = record
        self.names = tuple(f.name for f in fields(record))
        self.twin = dataclasses.make_dataclass(
            record.__name__,
            [
                (f.name, hints[f.name])
                if f.default is dataclasses.MISSING
                else (f.name, hints[f.name], dataclasses.field(default=f.default))
                for f in fields(record)
            ],
            frozen=True,
        )

    def to_record(self, twin: Any) -> Any:
        return self.record(**{name: getattr(twin, name) for name in self.names})

    def to_twin(self, record: Any) -> Any:
        return self.twin(**{name: getattr(record, name) for name in self.names})

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        inner = handler.generate_schema(self.twin)
        return core_schema.no_info_after_validator_function(
            self.to_record,
            inner,
            serialization=core_schema.plain_serializer_function_ser_schema(
                self.to_twin, return_schema=inner
            ),
        )


_CommandRecord = Annotated[Command, _Twin(Command)]
_EventRecord = Annotated[Event, _Twin(Event)]


class Replay(BaseModel):
    """One replay file, validated.  ``strict``: a count written as "3" is an error, not 3."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    format: Literal["frontier.replay/1"]
    config: MatchConfig
    commands: list[_CommandRecord]
    events: list[_EventRecord]
    state_hash: str = Field(pattern=r"^[0-9a-f]{64}$")


_COMMANDS: TypeAdapter[list[Command]] = TypeAdapter(list[_CommandRecord])
_EVENTS: TypeAdapter[list[Event]] = TypeAdapter(list[_EventRecord])


def replay_of(result: MatchResult) -> Replay:
    """The replay of a match played with ``record=True`` by the match runner."""
    if result.config is None:
        raise ValueError("a replay needs the match config; play the match with play_match()")
    if len(result.commands) != result.command_count:
        raise ValueError("a replay needs the commands; play the match with record=True")
    # Trusted, already-typed data: skip re-validating thousands of records.
    return Replay.model_construct(
        format=REPLAY_FORMAT,
        config=result.config,
        commands=list(result.commands),
        events=list(result.events),
        state_hash=result.state_hash,
    )


def dumps(replay: Replay) -> str:
    """Serialise to the one-record-per-line JSON layout described in the module docstring."""

    def block(name: str, records: list[Any]) -> str:
        if not records:
            return f' "{name}": []'
        lines = ",\n".join("  " + json.dumps(r, separators=(", ", ": ")) for r in records)
        return f' "{name}": [\n{lines}\n ]'

    commands = _COMMANDS.dump_python(replay.commands, mode="json", exclude_defaults=True)
    events = _EVENTS.dump_python(replay.events, mode="json", exclude_defaults=True)
    parts = [
        f' "format": {json.dumps(replay.format)}',
        f' "config": {json.dumps(replay.config.model_dump(mode="json"))}',
        block("commands", commands),
        block("events", events),
        f' "state_hash": {json.dumps(replay.state_hash)}',
    ]
    return "{\n" + ",\n".join(parts) + "\n}\n"


def loads(text: str | bytes, source: str = "replay") -> Replay:
    """Parse and validate a replay; any problem becomes one readable :class:`ReplayError`."""
    try:
        return Replay.model_validate_json(text)
    except ValidationError as exc:
        problems = exc.errors(include_url=False)
        shown = "; ".join(_problem(p) for p in problems[:_MAX_PROBLEMS])
        more = len(problems) - _MAX_PROBLEMS
        suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more > 0 else ""
        raise ReplayError(
            f"{source} is not a valid {REPLAY_FORMAT} file: {shown}{suffix}"
        ) from None


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"])
    if len(message) > 160:
        message = message[:157] + "..."
    return f"{where}: {message}" if where else message


def save(replay: Replay, path: str | os.PathLike[str]) -> None:
    """Write atomically (temporary file + rename), so a crash never leaves half a replay."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(dumps(replay))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(path: str | os.PathLike[str]) -> Replay:
    """Read and validate a replay file; unreadable or invalid files raise :class:`ReplayError`."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None
    return loads(data, source=os.fspath(path))


def verify(replay: Replay) -> tuple[bool, str]:
    """Re-run the commands from the initial state; compare every event and the final hash.

    Uses ``decide`` (on its private copy of the state) and then ``evolve`` on the live state,
    not the runner's ``execute``: a match recorded with ``execute`` and re-checked this way
    also proves that the two engine paths agree and that the events alone rebuild the state.
    Returns ``(ok, message)``; on a mismatch the message names the first differing index.
    """
    state = initial_state(replay.config)
    recorded = replay.events
    position = 0
    for index, cmd in enumerate(replay.commands):
        try:
            produced = decide(state, cmd)
        except EngineError as exc:
            return False, (
                f"mismatch at command {index} ({cmd.seat.value} {cmd.key()}): "
                f"the engine refuses it: {exc}"
            )
        for offset, event in enumerate(produced):
            at = position + offset
            if at >= len(recorded):
                return False, (
                    f"mismatch at event {at} (from command {index}, {cmd.key()}): the replay "
                    f"produces {_describe(event)} but the file has only {len(recorded)} events"
                )
            if recorded[at] != event:
                return False, (
                    f"mismatch at event {at} (from command {index}, {cmd.key()}): "
                    f"{_difference(recorded[at], event)}"
                )
            evolve(state, event)
        position += len(produced)
    if position < len(recorded):
        return False, (
            f"mismatch at event {position}: the commands produce {position} events but the file "
            f"has {len(recorded)} (next recorded: {_describe(recorded[position])})"
        )
    final = state_hash(state)
    if final != replay.state_hash:
        return False, (
            f"mismatch in the final state: hash {final} after replaying, "
            f"{replay.state_hash} recorded"
        )
    return True, (
        f"ok: {len(replay.commands)} commands and {len(recorded)} events match; "
        f"final state hash {final}"
    )


def _describe(event: Event) -> str:
    parts = [event.kind.value]
    for f in fields(event)[1:]:
        value = getattr(event, f.name)
        if value != f.default:
            parts.append(f"{f.name}={_show(value)}")
    return " ".join(parts)


def _difference(recorded: Event, replayed: Event) -> str:
    diffs = [
        f"{f.name}: recorded {_show(getattr(recorded, f.name))}, "
        f"replayed {_show(getattr(replayed, f.name))}"
        for f in fields(recorded)
        if getattr(recorded, f.name) != getattr(replayed, f.name)
    ]
    return "; ".join(diffs)


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ",".join(str(v) for v in value) + "]"
    if isinstance(value, str):
        return repr(str(value))
    return str(value)
