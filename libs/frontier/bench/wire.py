"""What every service does per committed batch and per decide call, timed in-process.

``frontier bench wire [--matches N] [--repeat R] [--lineup L] [--json]`` plays N random-bot
matches (the default lineup) in-process (seeds 1000..), keeping each command's events, then
times, with the garbage collector off, per item (each item's fastest of 4R calls, averaged):

* ``fold_us_per_batch``: one command's events as committed envelopes folded into a state
  (``apply_envelopes``: protobuf -> engine events -> ``evolve``), what map and turn-order do
  with a request's tail, scoring as it follows the stream, combat and crafting catching up;
* ``evolve_us_per_batch``: the same without the conversion (engine events folded);
* ``from_proto_us_per_event`` / ``to_proto_us_per_event``: the conversion alone;
* ``command_from_proto_us`` / ``command_to_proto_us``: one command each way;
* ``clone_us``: ``State.clone`` of every state the matches went through, before each
  command (a decide's copy of the domain's projection, the orchestrator's per command).

Each ``..._us...`` figure also comes as ``..._baseline_ops...``: the same time in operations
of the baseline workload timed in the same run (:mod:`frontier.bench.baseline`), the
figure to compare between commits and machines.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from frontier.bench.baseline import Baseline
from frontier.bots import make_bot
from frontier.engine import initial_state, legal_commands, make_config, to_act
from frontier.engine.decide import execute
from frontier.engine.evolve import evolve
from frontier.engine.lineup import default_lineup
from frontier.engine.model import Command, Event
from frontier.engine.state import State
from frontier.play.match_runner import seat_bots
from frontier.store.matches import apply_envelopes
from frontier.v1 import events_pb2, types_pb2
from frontier.wire.convert import (
    command_from_proto,
    command_to_proto,
    event_from_proto,
    event_to_proto,
)

T = TypeVar("T")
U = TypeVar("U")


def per_item(
    fn: Callable[[U], object],
    items: list[T],
    repeat: int,
    setup: Callable[[T], U] = lambda item: item,  # type: ignore[assignment,return-value]
) -> float:
    """Microseconds per item: each item's fastest of ``repeat`` calls of ``fn(setup(item))``
    (``setup`` untimed), averaged.  On a shared machine this is far steadier than the
    fastest of whole runs."""
    total = 0
    for item in items:
        fastest = 1 << 62
        for _ in range(repeat):
            arg = setup(item)
            start = time.perf_counter_ns()
            fn(arg)
            fastest = min(fastest, time.perf_counter_ns() - start)
        total += fastest
    return total / len(items) / 1000


@dataclass
class Recorded:
    """What the played matches went through, one entry per command."""

    states: list[State] = field(default_factory=list)  # each state, before its command
    commands: list[Command] = field(default_factory=list)
    batches: list[list[Event]] = field(default_factory=list)  # each command's events
    envelopes: list[list[events_pb2.EventEnvelope]] = field(default_factory=list)  # the same


def record(matches: int, lineup: str | None) -> Recorded:
    """Play ``matches`` random-bot matches (seeds 1000..), keeping every command's inputs and
    outputs; the envelopes are parsed from bytes, as they come off the wire."""
    recorded = Recorded()
    for i in range(matches):
        config = make_config(seed=1000 + i, lineup=lineup or default_lineup())
        state = initial_state(config)
        bots = seat_bots(config, lambda s: make_bot("random", s))
        while (seat := to_act(state)) is not None:
            recorded.states.append(state.clone())
            cmd = bots[seat].choose(state, seat, legal_commands(state, seat))
            events = execute(state, cmd)
            recorded.commands.append(cmd)
            recorded.batches.append(events)
            first = state.version - len(events) + 1
            recorded.envelopes.append(
                [
                    events_pb2.EventEnvelope.FromString(
                        events_pb2.EventEnvelope(
                            seq=first + k, event=event_to_proto(e)
                        ).SerializeToString()
                    )
                    for k, e in enumerate(events)
                ]
            )
    return recorded


def measure(matches: int = 4, repeat: int = 5, lineup: str | None = None) -> dict[str, float]:
    """Play ``matches`` matches, then time each step ``4 * repeat`` times per item."""
    if matches < 1 or repeat < 1:
        raise ValueError("the wire benchmark needs at least one match and one repeat")
    baseline = Baseline()
    baseline.tick()
    rec = record(matches, lineup)
    events = [e for batch in rec.batches for e in batch]
    protos = [types_pb2.Event.FromString(event_to_proto(e).SerializeToString()) for e in events]
    cmd_protos = [command_to_proto(c) for c in rec.commands]
    gc.collect()
    gc.freeze()
    gc.disable()  # the services tune their collector (gc_policy); here it would only add noise
    try:
        repeat *= 4
        # each batch folded into a fresh copy of the state before it (the copy is untimed)
        fold = per_item(
            lambda a: apply_envelopes(*a),
            list(zip(rec.states, rec.envelopes, strict=True)),
            repeat,
            lambda pair: (pair[0].clone(), pair[1]),
        )
        evolve_only = per_item(
            lambda a: [evolve(a[0], e) for e in a[1]],
            list(zip(rec.states, rec.batches, strict=True)),
            repeat,
            lambda pair: (pair[0].clone(), pair[1]),
        )
        out: dict[str, float] = {
            "batches": len(rec.batches),
            "events": len(events),
            "states": len(rec.states),
            "fold_us_per_batch": round(fold, 2),
            "evolve_us_per_batch": round(evolve_only, 2),
            "events_per_batch": round(len(events) / len(rec.batches), 2),
            "from_proto_us_per_event": round(per_item(event_from_proto, protos, repeat), 3),
            "to_proto_us_per_event": round(per_item(event_to_proto, events, repeat), 3),
            "command_from_proto_us": round(per_item(command_from_proto, cmd_protos, repeat), 3),
            "command_to_proto_us": round(per_item(command_to_proto, rec.commands, repeat), 3),
            "clone_us": round(per_item(State.clone, rec.states, repeat), 2),
        }
        baseline.tick()
    finally:
        gc.enable()
        gc.unfreeze()
    return {**out, **baseline.ratios(out), **baseline.as_json()}


def text(result: dict[str, float]) -> str:
    """One figure a line, for a person."""
    return "\n".join(f"{key:36} {value}" for key, value in result.items())
