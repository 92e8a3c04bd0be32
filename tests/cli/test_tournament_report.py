"""``frontier tournament``: the charts of ``--plot DIR``, the report's new sections and the
progress bar."""

from __future__ import annotations

import io
import json
import re
import sys
from contextlib import closing
from pathlib import Path

import pytest

from frontier.cli.main import main
from frontier.cli.progress import ProgressBar
from frontier.play.match_stats import MECHANIC_KEYS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHARTS = ("win_rates.png", "score_by_round.png", "contribution.png")


def test_plot_writes_three_non_empty_pngs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "charts" / "new"  # created, parents too
    code = main(["tournament", "--matches", "2", "--quiet", "--json", "--plot", str(out_dir)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(CHARTS)
    for name in CHARTS:
        data = (out_dir / name).read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 5_000
        assert f"wrote {out_dir / name}" in err
    row = json.loads(out)["lineups"]["A=marquise;B=marquise"]  # stdout is still pure JSON
    assert set(row["mechanics"]["greedy"]["counts"]) == set(MECHANIC_KEYS)


def test_plot_into_a_file_is_refused_before_any_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "not-a-dir"
    target.write_text("keep me")
    code = main(["tournament", "--matches", "2", "--plot", str(target)])
    out, err = capsys.readouterr()
    assert code == 2
    assert "not a directory" in err and len(err.strip().splitlines()) == 1
    assert out == ""  # no match was played
    assert target.read_text() == "keep me"


def test_plot_without_matplotlib_is_refused_before_any_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # ``import matplotlib`` fails
    out_dir = tmp_path / "charts"
    code = main(["tournament", "--matches", "2", "--plot", str(out_dir)])
    out, err = capsys.readouterr()
    assert code == 2
    assert "pip install 'frontier[plot]'" in err and len(err.strip().splitlines()) == 1
    assert out == "" and not out_dir.exists()


def test_the_text_report_shows_contribution_scores_and_mechanics(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["tournament", "--matches", "2", "--quiet", "--lineup", "A=marquise;B=marquise"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "VP contribution per seat" in out
    assert "military1  marquise" in out
    assert "mean team score at the end of each round" in out
    for label in ("contraband scored", "looting", "outrage", "vagabond intervention"):
        assert label in out


def test_the_progress_bar_prints_a_line_per_tenth_off_a_terminal() -> None:
    out = io.StringIO()
    with closing(ProgressBar(out)) as bar:
        for done in range(21):
            bar(done, 20)
    lines = out.getvalue().splitlines()
    assert len(lines) == 11  # 0/20, 2/20, ... 20/20
    assert "0/20 matches" in lines[0] and "20/20 matches" in lines[-1]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_redraws_in_place_on_a_terminal() -> None:
    out = _Terminal()
    with closing(ProgressBar(out)) as bar:
        for done in range(4):
            bar(done, 3)
    raw = out.getvalue()
    assert "\x1b[?25h" in raw  # the live display ended: the cursor is shown again
    assert "3/3 matches" in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw)  # colours removed
