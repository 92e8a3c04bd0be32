"""The in-process match runner: whole matches, determinism and round summaries."""

from __future__ import annotations

import pytest

from frontier.bots import Bot, make_bot
from frontier.engine import (
    Command,
    EventKind,
    IllegalCommand,
    Seat,
    State,
    Team,
    evolve,
    initial_state,
    make_config,
)
from frontier.engine.hashing import state_hash
from frontier.play.match_runner import (
    MatchAborted,
    RoundSummary,
    bot_seed,
    play,
    play_match,
    seat_bots,
    summarize,
)


def _bots(seed: int, lineup: str | None = None) -> dict[Seat, Bot]:
    config = make_config(seed=seed) if lineup is None else make_config(seed=seed, lineup=lineup)
    return seat_bots(config, lambda s: make_bot("random", s))


def test_plays_a_whole_match() -> None:
    config = make_config(seed=4)
    result = play_match(config, _bots(4))
    assert result.state.over
    assert result.winner in {"A", "B", "draw"}
    assert result.reason
    assert set(result.scores) == set(Team)
    assert result.rounds >= 1
    assert result.command_count == len(result.commands) > 0
    assert result.event_count == len(result.events) > 0
    assert result.events[-1].kind is EventKind.GAME_ENDED
    assert result.state_hash == state_hash(result.state)


def test_same_seed_same_match() -> None:
    config = make_config(seed=11)
    first = play_match(config, _bots(11))
    second = play_match(config, _bots(11))
    assert first.commands == second.commands
    assert first.events == second.events
    assert first.state_hash == second.state_hash


def test_round_summaries_track_the_rounds() -> None:
    seen: list[RoundSummary] = []
    config = make_config(seed=2)
    result = play_match(config, _bots(2), on_round=seen.append)
    assert seen == result.summaries
    starts = [s for s in result.summaries if s.at == "start"]
    assert [s.round for s in starts] == list(range(1, result.rounds + 1))
    end = result.summaries[-1]
    assert end.at == "end"
    assert end == summarize(result.state, "end")
    assert end.scores == result.scores


def test_round_summary_is_taken_at_round_start_not_after_the_command() -> None:
    """A summary equals the state folded exactly up to its ROUND_STARTED event."""
    config = make_config(seed=6)
    result = play_match(config, _bots(6))
    state = initial_state(config)
    expected: list[RoundSummary] = []
    for event in result.events:
        evolve(state, event)
        if event.kind is EventKind.ROUND_STARTED:
            expected.append(summarize(state, "start"))
    assert [s for s in result.summaries if s.at == "start"] == expected


def test_summarize_counts_warriors_and_buildings_per_team() -> None:
    state = initial_state(make_config(seed=0))
    clearing = next(iter(state.pieces))
    state.pieces[clearing] = {Seat.A1: {"warrior": 3, "sawmill": 1, "wood": 2}, Seat.B1: {}}
    for other in list(state.pieces)[1:]:
        state.pieces[other] = {}
    summary = summarize(state, "start")
    assert summary.warriors == {Team.A: 3, Team.B: 0}
    assert summary.buildings == {Team.A: 1, Team.B: 0}


def test_record_and_summaries_can_be_turned_off() -> None:
    config = make_config(seed=3)
    full = play_match(config, _bots(3))
    lean = play_match(config, _bots(3), record=False, summaries=False)
    assert lean.commands == [] and lean.events == [] and lean.summaries == []
    assert lean.command_count == full.command_count
    assert lean.event_count == full.event_count
    assert lean.state_hash == full.state_hash


def test_bot_seeds_follow_the_seat_index() -> None:
    assert [bot_seed(10, seat) for seat in Seat] == [10, 11, 12, 13, 14, 15]


def test_missing_bot_is_refused() -> None:
    config = make_config(seed=0)
    with pytest.raises(ValueError, match="no bot for seat"):
        play_match(config, {})


class _Stubborn:
    """Always picks the first legal command: fine for the engine, used to test the guard."""

    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        return legal[0]


def test_runaway_guard() -> None:
    config = make_config(seed=0)
    state = initial_state(config)
    bots: dict[Seat, Bot] = {seat: _Stubborn() for seat in state.order}
    with pytest.raises(MatchAborted, match="did not end within 5 commands"):
        play(state, bots, max_commands=5)


class _Cheater:
    def choose(self, state: State, seat: Seat, legal: list[Command]) -> Command:
        return Command(legal[0].kind, seat, clearing="nowhere")


def test_an_engine_refusal_names_the_command() -> None:
    config = make_config(seed=0)
    bots: dict[Seat, Bot] = {seat: _Cheater() for seat in config.seats()}
    with pytest.raises(IllegalCommand) as info:
        play_match(config, bots)
    notes = getattr(info.value, "__notes__", [])
    assert any("command #0" in note and "seed=0" in note for note in notes)
