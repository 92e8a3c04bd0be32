"""``frontier bench wire``: every step timed over what one real match went through."""

from __future__ import annotations

from itertools import pairwise

import pytest

from frontier.bench import wire

MIRROR = "A=marquise;B=marquise"


def test_one_match_is_recorded_command_by_command() -> None:
    recorded = wire.record(1, MIRROR)
    assert len(recorded.commands) > 0
    assert (
        len(recorded.states)
        == len(recorded.commands)
        == len(recorded.batches)
        == len(recorded.envelopes)
    )
    for events, envelopes in zip(recorded.batches, recorded.envelopes, strict=True):
        assert len(envelopes) == len(events)
        seqs = [e.seq for e in envelopes]
        assert all(after == before + 1 for before, after in pairwise(seqs))


def test_the_figures_and_their_baseline_twins() -> None:
    result = wire.measure(matches=1, repeat=1, lineup=MIRROR)
    assert result["batches"] == result["states"] > 0
    for key in ("fold_us_per_batch", "evolve_us_per_batch", "clone_us", "to_proto_us_per_event"):
        assert result[key] > 0
    assert result["fold_baseline_ops_per_batch"] > 0 and result["clone_baseline_ops"] > 0
    assert result["baseline_ops_per_us"] > 0
    assert "fold_us_per_batch" in wire.text(result)


def test_nothing_to_measure_is_refused() -> None:
    with pytest.raises(ValueError):
        wire.measure(matches=0)
