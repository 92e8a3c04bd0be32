"""FRONTIER_STREAM_MAX_AGE_S against FRONTIER_IDLE_TIMEOUT_S: an unfinished match must end
(abandoned at worst) well before its record can expire, so a max age that does not outlast
the idle timeout stops the orchestrator at start-up."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from frontier.runtime.settings import OrchestratorSettings, ServiceSettings


def test_the_default_keeps_everything() -> None:
    assert OrchestratorSettings().stream_max_age_s == 0
    assert ServiceSettings().stream_max_age_s == 0


def test_a_max_age_longer_than_the_idle_timeout_is_accepted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRONTIER_STREAM_MAX_AGE_S", str(30 * 86_400))
    assert OrchestratorSettings().stream_max_age_s == 30 * 86_400
    assert ServiceSettings().stream_max_age_s == 30 * 86_400


@pytest.mark.parametrize(("max_age", "idle"), [("86400", "86400"), ("3600", "86400"), ("60", "0")])
def test_a_max_age_within_the_idle_timeout_is_refused(
    monkeypatch: pytest.MonkeyPatch, max_age: str, idle: str
) -> None:
    monkeypatch.setenv("FRONTIER_STREAM_MAX_AGE_S", max_age)
    monkeypatch.setenv("FRONTIER_IDLE_TIMEOUT_S", idle)
    with pytest.raises(ValidationError, match="FRONTIER_IDLE_TIMEOUT_S"):
        OrchestratorSettings()


def test_a_negative_max_age_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTIER_STREAM_MAX_AGE_S", "-1")
    with pytest.raises(ValidationError):
        ServiceSettings()
