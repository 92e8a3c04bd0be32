"""``frontier bench recovery``: what counts as play resumed, and bad input refused before a
stack is started."""

from __future__ import annotations

import pytest

from frontier.bench.recovery import SETTLE_WINDOW_S, Timeline, run
from frontier.cli.main import main


def test_recovery_runs_to_the_first_command_accepted_after_the_last_failure() -> None:
    timeline = Timeline(accepted=[1.0, 10.3, 10.9, 12.0], failed=[9.0, 10.5, 11.5])
    # back at 10.0: the command accepted at 10.3 happened not to need the restarted
    # service; the failures at 10.5 and 11.5 show play had not resumed until 12.0
    assert timeline.recovery_s(10.0) == pytest.approx(2.0)
    # a failure after the window no longer counts against this restart
    late = Timeline(accepted=[10.2, 30.0], failed=[10.0 + SETTLE_WINDOW_S + 1])
    assert late.recovery_s(10.0) == pytest.approx(0.2)
    # nothing accepted after the last failure yet: not recovered
    assert Timeline(accepted=[10.2], failed=[10.5]).recovery_s(10.0) is None


@pytest.mark.parametrize(
    ("target", "restarts", "down_s"), [("web", 1, None), ("nats", 0, None), ("map", 1, -1.0)]
)
def test_bad_input_is_refused_before_anything_starts(
    target: str, restarts: int, down_s: float | None
) -> None:
    with pytest.raises(ValueError):
        run(target, restarts, down_s)


def test_the_command_line_refuses_a_negative_down_time(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "recovery", "--target", "map", "--down-s", "-1"])
    assert code == 2
    assert "--down-s" in capsys.readouterr().err
