"""Regenerate the golden playthroughs (run from the repository root):

    .venv/bin/python -m tests.golden.regenerate

Each golden is one whole match played by :class:`tests.engine_helpers.KindFirstBot`, a seeded
random bot built on :mod:`frontier.engine.rng` (never :mod:`random`), so the same engine always
writes the same files.  Each entry records the acting seat, the command as its stable
``Command.key()`` and the events it caused; ``tests/golden/test_golden.py`` replays the keys
and compares the events exactly.  Regenerate only when a rules change is *meant* to change the
events, and review the diff of the JSON files like code.

``playthrough.json`` is the original two-Marquise match.  The ``default_lineup_*.json`` files
play R2's default lineup (A = Marquise, Eyrie, Thief; B = Marquise, Alliance, Tinker) with
seeds picked so that, together, they craft contraband carried and dropped, collect, move,
drop, seize and validate it, pick it up with a Vagabond's torch, and carry wood across a
bridge (R16-R21, R26); each file lists those ``highlights``, and the tests check that the set
stays covered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frontier.engine import Command, Event, EventKind, State
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from tests.engine_helpers import LINEUP, event_dict, new_state
from tests.engine_helpers import playout as bot_playout

HERE = Path(__file__).parent
PATIENCE = 3  # the bot ends a phase only 1 time in 3 when it could act instead
MAX_COMMANDS = 5_000


@dataclass(frozen=True, slots=True)
class Golden:
    name: str
    lineup: str
    seed: int
    bot_seed: int
    patience: int = PATIENCE

    @property
    def path(self) -> Path:
        return HERE / f"{self.name}.json"


GOLDENS: tuple[Golden, ...] = (
    Golden("playthrough", LINEUP, 36, 36),
    Golden("default_lineup_102", R2_DEFAULT_LINEUP, 102, 102),  # dropped, collected, seized
    Golden("default_lineup_214", R2_DEFAULT_LINEUP, 214, 214),  # carried craft, moved
    Golden("default_lineup_267", R2_DEFAULT_LINEUP, 267, 267),  # wood, the torch (R20)
    Golden("default_lineup_1116", R2_DEFAULT_LINEUP, 1116, 1116),  # validated at home (R17)
)
GOLDEN = GOLDENS[0].path  # the original file

# What the default-lineup goldens must exercise between them (see ``highlights``).
CONTRABAND_HIGHLIGHTS = frozenset(
    {
        "card_crafted:carried",
        "card_crafted:dropped",
        "contraband_collected",
        "contraband_moved",
        "contraband_dropped",
        "contraband_seized",
        "contraband_validated",
        "bridge_crossed:wood",
        "item_gained:dropped",
    }
)


def highlight(event: Event) -> str | None:
    """The contraband (R16-R21) or wood transport (R26) fact an event shows, if any."""
    if event.kind.value.startswith("contraband_"):
        return event.kind.value
    if event.kind is EventKind.CARD_CRAFTED and event.to:
        return "card_crafted:" + ("carried" if event.target else "dropped")
    if event.kind is EventKind.BRIDGE_CROSSED and event.text == "wood":
        return "bridge_crossed:wood"
    if event.kind is EventKind.ITEM_GAINED and event.text == "dropped":  # the torch (R20)
        return "item_gained:dropped"
    return None


def new_match(golden: Golden) -> State:
    return new_state(golden.seed, golden.lineup)


def playout(golden: Golden) -> tuple[State, list[tuple[Command, list[Event]]]]:
    """The golden's whole match played by :class:`tests.engine_helpers.KindFirstBot`."""
    return bot_playout(
        golden.seed,
        golden.bot_seed,
        patience=golden.patience,
        max_commands=MAX_COMMANDS,
        lineup=golden.lineup,
    )


def build(golden: Golden) -> dict[str, Any]:
    state, log = playout(golden)
    data: dict[str, Any] = {
        "about": "Golden playthrough; regenerate with: python -m tests.golden.regenerate",
        "seed": golden.seed,
        "lineup": golden.lineup,
        "bot": {"name": "KindFirstBot", "seed": golden.bot_seed, "patience": golden.patience},
        "result": {
            "winner": state.winner,
            "reason": state.end_reason,
            "scores": {t.value: n for t, n in state.scores.items()},
            "round": state.round,
        },
    }
    found = sorted({h for _, events in log for e in events if (h := highlight(e)) is not None})
    if found:
        data["highlights"] = found
    data["steps"] = [
        {"seat": cmd.seat.value, "command": cmd.key(), "events": [event_dict(e) for e in ev]}
        for cmd, ev in log
    ]
    return data


def dump(data: dict[str, Any]) -> str:
    """One line per event: small diffs when a rule changes a few events."""
    lines = ["{"]
    head = {k: v for k, v in data.items() if k != "steps"}
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True)},")
    lines.append('  "steps": [')
    for i, step in enumerate(data["steps"]):
        lines.append("    {")
        lines.append(f'      "seat": {json.dumps(step["seat"])},')
        lines.append(f'      "command": {json.dumps(step["command"])},')
        lines.append('      "events": [')
        events = step["events"]
        for j, event in enumerate(events):
            comma = "," if j + 1 < len(events) else ""
            lines.append(f"        {json.dumps(event, sort_keys=True)}{comma}")
        lines.append("      ]")
        lines.append("    }" + ("," if i + 1 < len(data["steps"]) else ""))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    for golden in GOLDENS:
        data = build(golden)
        golden.path.write_text(dump(data))
        events = sum(len(s["events"]) for s in data["steps"])
        print(f"wrote {golden.path}: {len(data['steps'])} commands, {events} events")


if __name__ == "__main__":
    main()
