"""``frontier tournament`` and ``frontier bot``: flags, output and exit codes (in-process)."""

from __future__ import annotations

import json

import pytest

from frontier.bots import sdk
from frontier.cli.main import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tournament_json_and_progress(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "tournament", "--matches", "2", "--json", "--seed", "3")
    assert code == 0, err
    result = json.loads(out)
    row = result["lineups"]["A=marquise;B=marquise"]
    assert row["games"] == 2 and set(row["bots"]) == {"greedy", "random"}
    for tally in row["bots"].values():
        assert tally["games"] == 2 and len(tally["ci95"]) == 2
    assert "2/2 matches" in err  # the progress bar goes to stderr


def test_tournament_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, "tournament", "--matches", "2", "--bots", "random,greedy-view", "--quiet"
    )
    assert code == 0
    assert "greedy-view" in out and "95% CI" in out and "win rate" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tournament", "--bots", "random"], "at least two"),
        (["tournament", "--bots", "random,random"], "at least two"),
        (["tournament", "--bots", "random,psychic"], "unknown bot"),
        (["tournament", "--matches", "0"], "must be at least 1"),
        (["tournament", "--lineup", "A=eyrie;B=marquise"], "invalid match config"),
        (["bot", "--url", "x:1", "--match", "m", "--seat", "A1", "--token", ""], "token"),
        (["bot", "--url", "x:1", "--match", "m", "--seat", "Z9", "--token", "t"], "invalid"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = _run(capsys, *argv)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_bot_against_no_server_fails_cleanly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unreachable server is retried a bounded number of times, then exit 1, no trace."""
    monkeypatch.setattr(sdk, "MAX_RECONNECTS", 2)
    monkeypatch.setattr(sdk, "RECONNECT_WAIT_S", 0.01)
    monkeypatch.setenv("FRONTIER_BOT_TOKEN", "t")
    code, _, err = _run(
        capsys, *("bot", "--url", "127.0.0.1:1", "--match", "0" * 32, "--seat", "A1")
    )
    assert code == 1
    assert "gave up" in err and "Traceback" not in err
