"""gc_policy.tune: freezes what the process holds and raises the young threshold (the
services' own by default); a threshold that is not positive is refused and changes nothing."""

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


def test_tune_freezes_and_sets_the_services_thresholds() -> None:
    gc.unfreeze()
    gc_policy.tune()
    assert gc.get_threshold() == (gc_policy.YOUNG_THRESHOLD, *gc_policy.OLDER_THRESHOLDS)
    assert gc.get_freeze_count() > 0


def test_tune_takes_another_young_threshold() -> None:
    gc.unfreeze()
    gc_policy.tune(12_345)
    assert gc.get_threshold() == (12_345, *gc_policy.OLDER_THRESHOLDS)
    assert gc.get_freeze_count() > 0


@pytest.mark.parametrize("threshold", [0, -1])
def test_a_threshold_that_is_not_positive_is_refused_and_changes_nothing(threshold: int) -> None:
    gc.unfreeze()
    before = gc.get_threshold()
    with pytest.raises(ValueError, match="> 0"):
        gc_policy.tune(threshold)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
