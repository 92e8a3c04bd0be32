"""``frontier arena campaign``, small: a stack of its own with the arena, the Node bot and
the Python player as real processes that leave after two seats each and join again, one of
them killed with SIGKILL while it holds a seat, six one-round matches rated.

The command's own checks are what is asserted: every match the server created counted
once (rated, or void with a reason), every rated match's replay exported, the killed bot
recorded as left in a match that still ended.  The run is bounded (``--timeout-s``) and
waits on the arena's status, not on time.  Without node the test is skipped and says why,
as the arena entrants' test is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from frontier.cli.main import main

pytestmark = pytest.mark.integration

MATCHES = 6
GUARD_S = 420  # a hung campaign fails with a timeout instead of hanging the suite


@pytest.mark.timeout(GUARD_S + 60)
def test_a_small_campaign_loses_nothing_while_bots_come_and_go(
    node: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["arena", "campaign", "--matches", str(MATCHES), "--max-rounds", "1"]
    argv += ["--churn-every", "2", "--seed", "7", "--timeout-s", str(GUARD_S)]
    argv += ["--workdir", str(tmp_path / "campaign"), "--json"]
    status = main(argv)
    out = capsys.readouterr().out
    report = json.loads(out)
    audit = report["audit"]
    assert audit["problems"] == [] and report["ok"]
    assert status == 0

    # nothing lost: the server's matches are the arena's, each rated or void with a reason
    assert audit["rated"] >= MATCHES
    assert audit["created"] == audit["counted"] == audit["rated"] + len(audit["void"])
    assert all(audit["void"].values())
    assert audit["replays_exported"] == audit["rated"]

    # bots joined and left mid-run, one of them killed holding a seat
    churn, processes = report["churn"], report["processes"]
    assert churn["killed_bot"] and churn["killed_matches"]
    assert processes[churn["killed_bot"]]["kills"] == 1
    assert sum(p["starts"] for p in processes.values()) >= 3
    assert sum(p["clean_exits"] for p in processes.values()) >= 1
    assert sum(churn["joins"].values()) >= 3 and sum(churn["leaves"].values()) >= 3
    assert audit["seats_taken_over"] >= 1

    # the board: the five entrants, the three built-ins' pairs compared
    names = {row["name"] for row in report["board"]}
    assert names == {"random", "greedy", "search", "node-bot", "python-player"}
    assert set(report["overlaps"]) == {"random/greedy", "random/search", "greedy/search"}
    assert report["matches_per_minute"] > 0
