#!/usr/bin/env python3
"""Micro-benchmark of what every service does per committed batch and per decide call.

``python bench/wire.py [--matches N] [--repeat R] [--lineup L] [--json]``: plays N random-bot
matches (the default lineup; ``frontier bench stack`` plays ``A=marquise;B=marquise``)
in-process (seeds 1000..), keeping each command's events, then times,
with the garbage collector off, per item (each item's fastest of 4R calls, averaged):

* ``fold_us_per_batch``: one command's events as committed envelopes folded into a state
  (``apply_envelopes``: protobuf -> engine events -> ``evolve``), what map and turn-order do
  with a request's tail, scoring as it follows the stream, combat and crafting catching up;
* ``evolve_us_per_batch``: the same without the conversion (engine events folded);
* ``from_proto_us_per_event`` / ``to_proto_us_per_event``: the conversion alone;
* ``command_from_proto_us`` / ``command_to_proto_us``: one command each way;
* ``clone_us``: ``State.clone`` of every state the matches went through, before each
  command (a decide's copy of the domain's projection, the orchestrator's per command).

It uses only long-standing public functions, so the same script times another checkout's
venv (``/other/.venv/bin/python bench/wire.py``) for a before/after pair.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from typing import TypeVar

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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--lineup", default=None, help="lineup (the default lineup)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    batches_by_match: list[list[list[Event]]] = []  # per match, one command's events each
    commands: list[Command] = []
    states: list[State] = []  # every state a match went through, before each command
    per_match: list[list[list[events_pb2.EventEnvelope]]] = []
    for i in range(args.matches):
        config = make_config(seed=1000 + i, lineup=args.lineup or default_lineup())
        state = initial_state(config)
        bots = seat_bots(config, lambda s: make_bot("random", s))
        match_batches: list[list[events_pb2.EventEnvelope]] = []
        batches: list[list[Event]] = []
        while (seat := to_act(state)) is not None:
            states.append(state.clone())
            cmd = bots[seat].choose(state, seat, legal_commands(state, seat))
            events = execute(state, cmd)
            commands.append(cmd)
            batches.append(events)
            first = state.version - len(events) + 1
            match_batches.append(
                [
                    events_pb2.EventEnvelope(seq=first + k, event=event_to_proto(e))
                    for k, e in enumerate(events)
                ]
            )
        per_match.append(match_batches)
        batches_by_match.append(batches)
    # the envelopes as they come off the wire: parsed from bytes
    wire_matches = [
        [[events_pb2.EventEnvelope.FromString(e.SerializeToString()) for e in envs] for envs in m]
        for m in per_match
    ]
    n_batches = sum(len(m) for m in wire_matches)
    events = [e for m in batches_by_match for b in m for e in b]
    protos = [event_to_proto(e) for e in events]
    protos = [types_pb2.Event.FromString(p.SerializeToString()) for p in protos]
    cmd_protos = [command_to_proto(c) for c in commands]

    gc.collect()
    gc.freeze()
    gc.disable()  # the services tune their collector (gc_policy); here it would only add noise

    repeat = args.repeat * 4
    # each batch folded into a fresh copy of the state before it (the copy is untimed)
    wire_batches = [envs for m in wire_matches for envs in m]
    engine_batches = [b for m in batches_by_match for b in m]
    fold = per_item(
        lambda a: apply_envelopes(*a),
        list(zip(states, wire_batches, strict=True)),
        repeat,
        lambda pair: (pair[0].clone(), pair[1]),
    )
    evolve_only = per_item(
        lambda a: [evolve(a[0], e) for e in a[1]],
        list(zip(states, engine_batches, strict=True)),
        repeat,
        lambda pair: (pair[0].clone(), pair[1]),
    )
    from_proto = per_item(event_from_proto, protos, repeat)
    to_proto = per_item(event_to_proto, events, repeat)
    cmd_from = per_item(command_from_proto, cmd_protos, repeat)
    cmd_to = per_item(command_to_proto, commands, repeat)
    clone = per_item(State.clone, states, repeat)
    out = {
        "batches": n_batches,
        "events": len(events),
        "states": len(states),
        "fold_us_per_batch": round(fold, 2),
        "evolve_us_per_batch": round(evolve_only, 2),
        "events_per_batch": round(len(events) / n_batches, 2),
        "from_proto_us_per_event": round(from_proto, 3),
        "to_proto_us_per_event": round(to_proto, 3),
        "command_from_proto_us": round(cmd_from, 3),
        "command_to_proto_us": round(cmd_to, 3),
        "clone_us": round(clone, 2),
    }
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:28} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
