"""``frontier bench flood`` on a real local stack in keys mode, small: the flooding key is
refused past its quota (``QUOTA_EXCEEDED``) while the other key creates every one of its
matches under the flood.  No figure is held to a time."""

from __future__ import annotations

import json
from typing import Any

import pytest

from frontier.cli.main import main

pytestmark = pytest.mark.integration

DEFAULT_CREATES_PER_MINUTE = 10  # FRONTIER_QUOTA_CREATES_PER_MINUTE's default


def test_a_flooding_key_is_refused_past_its_quota_and_the_other_key_creates_through_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["bench", "flood", "--n", "200", "--creates", "4", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    answers = result["flood_answers"]
    assert answers.get("OK", 0) <= DEFAULT_CREATES_PER_MINUTE
    assert answers["QUOTA_EXCEEDED"] >= 200 - DEFAULT_CREATES_PER_MINUTE
    assert set(answers) <= {"OK", "QUOTA_EXCEEDED"}  # nothing failed otherwise
    # key B's creations all succeeded (a refusal would have ended the bench), both phases
    assert result["creates"] == 4
    for phase in ("baseline", "loaded"):
        assert 0 < result[f"{phase}_p50_ms"] <= result[f"{phase}_max_ms"]
