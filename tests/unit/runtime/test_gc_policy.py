"""gc_policy.tune: freezes what the process holds and raises the young threshold; 0 changes
nothing; a negative threshold is refused and changes nothing."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from frontier.runtime import gc_policy


@pytest.fixture(autouse=True)
def restore_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_tune_freezes_and_raises_the_young_threshold() -> None:
    gc.unfreeze()
    gc_policy.tune(12_345)
    assert gc.get_threshold() == (12_345, *gc_policy.OLDER_THRESHOLDS)
    assert gc.get_freeze_count() > 0


def test_zero_keeps_the_defaults() -> None:
    gc.unfreeze()
    before = gc.get_threshold()
    gc_policy.tune(0)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_negative_threshold_is_refused_and_changes_nothing() -> None:
    gc.unfreeze()
    before = gc.get_threshold()
    with pytest.raises(ValueError, match=">= 0"):
        gc_policy.tune(-1)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_the_orchestrator_tunes_by_default() -> None:
    from frontier.runtime.settings import OrchestratorSettings

    assert OrchestratorSettings().gc_young_threshold == 3_000


def test_every_service_reads_the_threshold_and_it_can_be_turned_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The domain services tune their collector from the same setting (domain_main.run)."""
    from frontier.runtime.settings import ServiceSettings

    assert ServiceSettings().gc_young_threshold == 3_000
    monkeypatch.setenv("FRONTIER_GC_YOUNG_THRESHOLD", "0")
    assert ServiceSettings().gc_young_threshold == 0
    monkeypatch.setenv("FRONTIER_GC_YOUNG_THRESHOLD", "-5")
    with pytest.raises(ValueError):
        ServiceSettings()
