"""The stream follower's wait between rounds (follow.py): back off while nothing arrives."""

from __future__ import annotations

from frontier.runtime.follow import FOLLOW_INTERVAL_S, IDLE_INTERVAL_S, next_wait


def test_rounds_that_find_nothing_wait_longer_up_to_the_idle_interval() -> None:
    waits = [FOLLOW_INTERVAL_S]
    for _ in range(10):
        waits.append(next_wait(waits[-1], 0, FOLLOW_INTERVAL_S))
    assert waits[:4] == [FOLLOW_INTERVAL_S * 2**i for i in range(4)]
    assert max(waits) == IDLE_INTERVAL_S and waits[-1] == IDLE_INTERVAL_S


def test_a_round_that_hands_batches_on_goes_back_to_the_interval() -> None:
    assert next_wait(IDLE_INTERVAL_S, 1, FOLLOW_INTERVAL_S) == FOLLOW_INTERVAL_S
    assert next_wait(FOLLOW_INTERVAL_S, 3, FOLLOW_INTERVAL_S) == FOLLOW_INTERVAL_S
