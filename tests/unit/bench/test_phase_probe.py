"""bench/phase_probe: on PYTHONPATH with FRONTIER_PHASE_PROBE set, importing the orchestrator
wraps the steps of SubmitCommand's path it stamps; without the variable nothing changes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = Path(__file__).parents[3] / "bench" / "phase_probe"
CHECK = (
    "import frontier.orchestrator.main\n"
    "from frontier.orchestrator.servicer import MatchServicer\n"
    "from frontier.orchestrator.commit import CommitPath\n"
    "from frontier.runtime.bus import Bus\n"
    "print(MatchServicer.SubmitCommand.__name__, CommitPath.commit.__name__,"
    " Bus.publish_batch.__name__)\n"
)


def _names(probe_to: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(PROBE), "FRONTIER_PHASE_PROBE": probe_to}
    done = subprocess.run(
        [sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_the_probe_wraps_the_path_only_when_asked(tmp_path: Path) -> None:
    assert _names(str(tmp_path / "phases.json")) == (
        "submit_command commit_wrapped publish_batch_wrapped"
    )
    assert _names("") == "SubmitCommand commit publish_batch"
