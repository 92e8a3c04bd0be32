"""The golden playthroughs replay event for event (see ``regenerate.py`` to rebuild them)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from frontier.engine import execute, legal_commands, to_act
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from tests.engine_helpers import event_dict
from tests.golden.regenerate import (
    CONTRABAND_HIGHLIGHTS,
    GOLDENS,
    Golden,
    highlight,
    new_match,
)

HINT = "if the rules changed on purpose: python -m tests.golden.regenerate (review the diff)"


def _data(golden: Golden) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(golden.path.read_text())
    return data


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.name)
def test_golden_playthrough_replays_exactly(golden: Golden) -> None:
    data = _data(golden)
    assert (data["lineup"], data["seed"]) == (golden.lineup, golden.seed), HINT
    state = new_match(golden)
    seen: set[str] = set()
    for n, step in enumerate(data["steps"]):
        seat = to_act(state)
        assert seat is not None and seat.value == step["seat"], f"step {n}: {HINT}"
        matching = [c for c in legal_commands(state, seat) if c.key() == step["command"]]
        assert len(matching) == 1, f"step {n}: {step['command']} is not legal; {HINT}"
        events = execute(state, matching[0])
        assert [event_dict(e) for e in events] == step["events"], (
            f"step {n} ({step['command']}): {HINT}"
        )
        seen.update(h for e in events if (h := highlight(e)) is not None)
    result = data["result"]
    assert state.over and state.winner == result["winner"]
    assert {t.value: s for t, s in state.scores.items()} == result["scores"]
    assert state.round == result["round"]
    assert sorted(seen) == data.get("highlights", [])


def test_R16_R21_R26_default_lineup_goldens_cover_contraband_and_wood_transport() -> None:
    defaults = [g for g in GOLDENS if g.lineup == R2_DEFAULT_LINEUP]
    assert len(defaults) >= 3  # several seeds of R2's default lineup
    covered = {h for g in defaults for h in _data(g).get("highlights", [])}
    missing = CONTRABAND_HIGHLIGHTS - covered
    assert not missing, f"no golden playthrough shows {sorted(missing)}; pick other seeds"
