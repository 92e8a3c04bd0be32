"""The text report of a tournament: win rates, then how each bot played.

Per lineup: the win-rate table (games, wins, draws, win rate, 95% Wilson interval), each
seat's VP contribution by team role and faction, the score at the end of each round, and
how often each variant mechanic happened (share of matches / mean count per match).  With
several lineups, the win rates and mechanics over all of them close the report.
"""

from __future__ import annotations

from frontier.play.match_stats import MECHANICS
from frontier.play.tournament import Tally, TournamentResult
from frontier.play.tournament_stats import BotStats, MechanicTally


def _pct(value: float) -> str:
    return f"{100 * value:5.1f}%"


_HEADER = f"  {'bot':<12} {'games':>6} {'wins':>6} {'draws':>6} {'win rate':>9}   95% CI"


def _win_row(name: str, t: Tally) -> str:
    low, high = t.interval
    return (
        f"  {name:<12} {t.games:>6} {t.wins:>6} {t.draws:>6} {_pct(t.win_rate):>9}"
        f"   [{_pct(low)}, {_pct(high)}]"
    )


def contribution_lines(stats: dict[str, BotStats]) -> list[str]:
    """Mean VP per game of each (role, faction) seat, and its share of the team's score."""
    lines = [
        "  VP contribution per seat:",
        f"    {'bot':<12} {'role':<10} {'faction':<10} {'games':>6} {'mean VP':>8} {'share':>7}",
    ]
    for bot, s in stats.items():
        for (role, faction), row in s.contribution.sorted_rows():
            lines.append(
                f"    {bot:<12} {role:<10} {faction:<10} {row.games:>6} {row.mean_vp:>8.1f}"
                f" {_pct(row.share):>7}"
            )
    return lines


def score_lines(stats: dict[str, BotStats]) -> list[str]:
    """The bot's mean team score at the end of each round."""
    rounds = max((len(s.scores.means()) for s in stats.values()), default=0)
    if rounds == 0:
        return []
    head = "".join(f"{f'r{i + 1}':>7}" for i in range(rounds))
    lines = ["  mean team score at the end of each round:", f"    {'bot':<12}{head}"]
    for bot, s in stats.items():
        means = s.scores.means()
        lines.append(f"    {bot:<12}" + "".join(f"{v:>7.1f}" for v in means))
    return lines


def mechanic_lines(tallies: dict[str, MechanicTally]) -> list[str]:
    """One row per mechanic, one column per bot: the share of its matches in which the
    mechanic happened, and the mean count per match."""
    bots = list(tallies)
    head = "".join(f"{b[:16]:>18}" for b in bots)
    lines = [
        "  mechanics (share of matches with it / mean per match):",
        f"    {'mechanic':<24}{head}",
    ]
    for m in MECHANICS:
        cells = "".join(
            f"{_pct(tallies[b].share(m.key)):>10} {tallies[b].mean(m.key):>7.2f}" for b in bots
        )
        lines.append(f"    {m.label:<24}{cells}")
    return lines


def report(result: TournamentResult) -> str:
    """A readable report: per lineup and bot, then overall."""
    lines: list[str] = []
    for name, r in result.lineups.items():
        lines.append(
            f"lineup {name}: {r.games} games, team A won {r.team_a_wins}, {r.draws} draws,"
            f" {r.early} over before the last round's end"
        )
        lines.append(_HEADER)
        lines.extend(_win_row(bot, t) for bot, t in r.bots.items())
        for e in r.errors[:3]:
            lines.append(f"  error: seed {e.game.seed} ({e.game.bot_a} on A): {e.error}")
        if len(r.errors) > 3:
            lines.append(f"  ... {len(r.errors) - 3} more errors")
        if r.games:
            lines.extend(contribution_lines(r.stats))
            lines.extend(score_lines(r.stats))
            lines.extend(mechanic_lines({b: s.mechanics for b, s in r.stats.items()}))
    if len(result.lineups) > 1:
        lines.append("all lineups:")
        lines.append(_HEADER)
        lines.extend(_win_row(bot, t) for bot, t in result.overall.items())
        lines.extend(mechanic_lines(result.mechanics()))
    lines.append(
        f"{result.commands} commands in {result.seconds:.1f} s"
        + (f"; {len(result.errors)} matches failed" if result.errors else "")
    )
    return "\n".join(lines)
