"""Charts of a tournament (``frontier tournament --plot DIR``), drawn with matplotlib.

Three PNG files, one panel per lineup in each:

* ``win_rates.png``: each bot's win rate with its 95% Wilson interval as the error bar;
* ``score_by_round.png``: each bot's mean team score at the end of each round;
* ``contribution.png``: the mean VP each seat (team role and faction) contributed per game.

matplotlib is an optional dependency (the ``plot`` extra): :func:`require_matplotlib` says so
before a tournament starts rather than after it has run.  The charts are drawn with the Agg
backend, which needs no display.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from frontier.play.tournament import LineupResult, TournamentResult

WIN_RATES = "win_rates.png"
SCORE_BY_ROUND = "score_by_round.png"
CONTRIBUTION = "contribution.png"


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def require_matplotlib() -> None:
    """Raise :class:`PlotUnavailable` with the install hint when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotUnavailable(
            "--plot needs matplotlib: pip install 'frontier[plot]' (or matplotlib)"
        ) from None


def _pyplot() -> Any:
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def _panels(plt: Any, count: int, title: str) -> tuple[Any, list[Any]]:
    fig, axes = plt.subplots(1, count, figsize=(max(6.0, 5.5 * count), 4.5), squeeze=False)
    fig.suptitle(title)
    return fig, list(axes[0])


def _short(lineup: str) -> str:
    return lineup.replace(";", "\n")


def plot_win_rates(result: TournamentResult, path: Path) -> None:
    plt = _pyplot()
    fig, axes = _panels(plt, len(result.lineups), "Win rate per bot (95% Wilson interval)")
    for ax, (name, row) in zip(axes, result.lineups.items(), strict=True):
        bots = list(row.bots)
        rates = [row.bots[b].win_rate for b in bots]
        low = [r - row.bots[b].interval[0] for b, r in zip(bots, rates, strict=True)]
        high = [row.bots[b].interval[1] - r for b, r in zip(bots, rates, strict=True)]
        ax.bar(bots, rates, yerr=[low, high], capsize=6, color="tab:blue", alpha=0.8)
        for i, (bot, rate) in enumerate(zip(bots, rates, strict=True)):
            ax.annotate(
                f"{100 * rate:.0f}% of {row.bots[bot].games}",
                (i, rate),
                textcoords="offset points",
                xytext=(8, 4),
            )
        ax.set_ylim(0, 1)
        ax.set_ylabel("win rate")
        ax.set_title(_short(name), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_score_by_round(result: TournamentResult, path: Path) -> None:
    plt = _pyplot()
    fig, axes = _panels(plt, len(result.lineups), "Mean team score at the end of each round")
    for ax, (name, row) in zip(axes, result.lineups.items(), strict=True):
        for bot, stats in row.stats.items():
            means = stats.scores.means()
            ax.plot(range(1, len(means) + 1), means, marker="o", label=bot)
        ax.set_xlabel("round")
        ax.set_ylabel("team score (VP)")
        ax.set_title(_short(name), fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _contribution_bars(ax: Any, row: LineupResult) -> None:
    seats = sorted({key for s in row.stats.values() for key in s.contribution.rows})
    bots = list(row.stats)
    width = 0.8 / max(1, len(bots))
    for i, bot in enumerate(bots):
        rows = row.stats[bot].contribution.rows
        values = [rows[k].mean_vp if k in rows else 0.0 for k in seats]
        xs = [x + (i - (len(bots) - 1) / 2) * width for x in range(len(seats))]
        ax.bar(xs, values, width=width, label=bot)
    ax.set_xticks(range(len(seats)), [f"{faction}\n({role})" for role, faction in seats])
    ax.axhline(0, color="black", linewidth=0.8)  # an Eyrie in Turmoil contributes < 0
    ax.set_ylabel("mean VP per game")
    ax.grid(axis="y", alpha=0.3)
    ax.legend()


def plot_contribution(result: TournamentResult, path: Path) -> None:
    plt = _pyplot()
    fig, axes = _panels(plt, len(result.lineups), "VP contribution per seat (mean per game)")
    for ax, (name, row) in zip(axes, result.lineups.items(), strict=True):
        _contribution_bars(ax, row)
        ax.set_title(_short(name), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_plots(result: TournamentResult, directory: Path) -> list[Path]:
    """Write the three charts into ``directory`` (which must exist); return their paths."""
    paths = [directory / WIN_RATES, directory / SCORE_BY_ROUND, directory / CONTRIBUTION]
    plot_win_rates(result, paths[0])
    plot_score_by_round(result, paths[1])
    plot_contribution(result, paths[2])
    return paths
