"""``frontier bench stack`` says what its memory per match is of: playing or finished matches."""

from __future__ import annotations

from frontier.bench.stack import memory_of
from frontier.play.load import MatchRun


def test_memory_is_of_playing_finished_or_mixed_matches() -> None:
    playing = MatchRun(commands=24)
    finished = MatchRun(commands=80, winner="A")
    drawn = MatchRun(commands=90, winner="draw")
    assert memory_of([playing, MatchRun(commands=24)]) == "playing"
    assert memory_of([finished, drawn]) == "finished"
    assert memory_of([finished, playing]) == "mixed"
