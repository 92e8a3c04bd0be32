"""Regenerate the golden playthrough ``playthrough.json`` (run from the repository root):

    .venv/bin/python -m tests.golden.regenerate

The match is played by :class:`tests.engine_helpers.KindFirstBot`, a seeded random bot built
on :mod:`frontier.engine.rng` (never :mod:`random`), so the same engine always writes the
same file.  Each entry records the acting seat, the command as its stable ``Command.key()``
and the events it caused; ``tests/golden/test_golden.py`` replays the keys and compares the
events exactly.  Regenerate only when a rules change is *meant* to change the events, and
review the diff of the JSON file like code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.engine_helpers import LINEUP, event_dict, playout

GOLDEN = Path(__file__).with_name("playthrough.json")
SEED = 36
BOT_SEED = 36
PATIENCE = 3  # the bot ends a phase only 1 time in 3 when it could act instead


def build() -> dict[str, Any]:
    state, log = playout(SEED, BOT_SEED, patience=PATIENCE)
    return {
        "about": "Golden playthrough; regenerate with: python -m tests.golden.regenerate",
        "seed": SEED,
        "lineup": LINEUP,
        "bot": {"name": "KindFirstBot", "seed": BOT_SEED, "patience": PATIENCE},
        "result": {
            "winner": state.winner,
            "reason": state.end_reason,
            "scores": {t.value: n for t, n in state.scores.items()},
            "round": state.round,
        },
        "steps": [
            {"seat": cmd.seat.value, "command": cmd.key(), "events": [event_dict(e) for e in ev]}
            for cmd, ev in log
        ],
    }


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
    data = build()
    GOLDEN.write_text(dump(data))
    events = sum(len(s["events"]) for s in data["steps"])
    print(f"wrote {GOLDEN}: {len(data['steps'])} commands, {events} events")


if __name__ == "__main__":
    main()
