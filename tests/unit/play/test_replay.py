"""Replay files: round trip, verification and readable errors for malformed files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from frontier.bots import make_bot
from frontier.engine import make_config
from frontier.play.match_runner import MatchResult, play_match, seat_bots
from frontier.play.replay import (
    REPLAY_FORMAT,
    Replay,
    ReplayError,
    dumps,
    load,
    loads,
    replay_of,
    save,
    verify,
)


@pytest.fixture(scope="module")
def result() -> MatchResult:
    config = make_config(seed=8)
    return play_match(config, seat_bots(config, lambda s: make_bot("random", s)))


@pytest.fixture
def data(result: MatchResult) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(dumps(replay_of(result)))
    return loaded


def _from(data: dict[str, Any]) -> Replay:
    return loads(json.dumps(data))


def test_round_trip_and_verify(result: MatchResult, tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    save(replay_of(result), path)
    replay = load(path)
    assert replay.format == REPLAY_FORMAT
    assert replay.config == result.config
    assert replay.commands == result.commands
    assert replay.events == result.events
    assert replay.state_hash == result.state_hash
    ok, message = verify(replay)
    assert ok, message
    assert f"{len(result.commands)} commands" in message


def test_file_layout_is_one_record_per_line(data: dict[str, Any], result: MatchResult) -> None:
    text = dumps(replay_of(result))
    assert set(data) == {"format", "config", "commands", "events", "state_hash"}
    assert set(data["config"]) == {"seed", "lineup", "team_hands_visible", "max_rounds"}
    assert len(text.splitlines()) > len(result.commands) + len(result.events)
    records = data["commands"] + data["events"]
    assert all("kind" in r for r in records)
    # Fields at their default value are left out (loading restores them).
    assert all(v not in ("", 0, []) for r in records for v in r.values())


def test_tampered_event_names_its_index(data: dict[str, Any]) -> None:
    index = next(i for i, e in enumerate(data["events"]) if e["kind"] == "pieces_moved")
    data["events"][index]["count"] += 1
    ok, message = verify(_from(data))
    assert not ok
    assert f"mismatch at event {index} " in message
    assert "count: recorded" in message


def test_missing_and_extra_events(data: dict[str, Any]) -> None:
    last = data["events"].pop()
    ok, message = verify(_from(data))
    assert not ok and f"event {len(data['events'])}" in message
    data["events"].extend([last, {"kind": "round_started", "count": 9}])
    ok, message = verify(_from(data))
    assert not ok and f"mismatch at event {len(data['events']) - 1}" in message


def test_tampered_command_is_refused(data: dict[str, Any]) -> None:
    data["commands"][0]["clearing"] = "nowhere"
    ok, message = verify(_from(data))
    assert not ok
    assert message.startswith("mismatch at command 0 ")


def test_tampered_hash(data: dict[str, Any]) -> None:
    data["state_hash"] = "0" * 64
    ok, message = verify(_from(data))
    assert not ok and "final state" in message


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.update(format="frontier.replay/0"), "format"),
        (lambda d: d.pop("events"), "events: Field required"),
        (lambda d: d["events"][1].update(count="3"), "events.1.count"),
        (lambda d: d["commands"][0].update(kind="fly"), "commands.0.kind"),
        (lambda d: d["commands"][0].update(colour="red"), "commands.0.colour"),
        (lambda d: d["config"].update(lineup="A=dragons"), "config.lineup"),
        (lambda d: d.update(state_hash="abc"), "state_hash"),
    ],
)
def test_malformed_files_give_one_readable_error(
    data: dict[str, Any], mutate: Any, expected: str
) -> None:
    mutate(data)
    with pytest.raises(ReplayError, match=r"not a valid frontier\.replay/1 file") as info:
        _from(data)
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


def test_unreadable_and_non_json_files(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="cannot read"):
        load(tmp_path / "missing.json")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("this is not json")
    with pytest.raises(ReplayError, match="Invalid JSON"):
        load(garbage)


def test_replay_needs_recorded_commands(result: MatchResult) -> None:
    config = make_config(seed=8)
    lean = play_match(config, seat_bots(config, lambda s: make_bot("random", s)), record=False)
    with pytest.raises(ValueError, match="record=True"):
        replay_of(lean)
    assert lean.state_hash == result.state_hash
