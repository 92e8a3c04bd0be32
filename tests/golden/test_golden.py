"""The golden playthrough replays event for event (see ``regenerate.py`` to rebuild it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from frontier.engine import execute, legal_commands, to_act
from tests.engine_helpers import event_dict, new_state
from tests.golden.regenerate import GOLDEN

HINT = "if the rules changed on purpose: python -m tests.golden.regenerate (review the diff)"


def _golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(GOLDEN).read_text())
    return data


def test_golden_playthrough_replays_exactly() -> None:
    data = _golden()
    state = new_state(data["seed"])
    assert data["lineup"] == "A=marquise;B=marquise"
    for n, step in enumerate(data["steps"]):
        seat = to_act(state)
        assert seat is not None and seat.value == step["seat"], f"step {n}: {HINT}"
        matching = [c for c in legal_commands(state, seat) if c.key() == step["command"]]
        assert len(matching) == 1, f"step {n}: {step['command']} is not legal; {HINT}"
        events = [event_dict(e) for e in execute(state, matching[0])]
        assert events == step["events"], f"step {n} ({step['command']}): {HINT}"
    result = data["result"]
    assert state.over and state.winner == result["winner"]
    assert {t.value: s for t, s in state.scores.items()} == result["scores"]
    assert state.round == result["round"]
