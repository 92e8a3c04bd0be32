"""Bot tournaments in-process: many matches, win rates with 95% confidence intervals.

Design of a fair comparison:

* Every pair of bots plays each seed twice, once with each bot on team A and once on team B,
  so neither the seat order (team A moves first) nor a lucky seed favours one bot.
* A bot plays every seat of its team; each seat gets its own instance, seeded from the
  match seed (:func:`frontier.play.match_runner.bot_seed`), so a tournament is reproducible from
  its arguments and gives the same numbers with any ``jobs``.
* A win rate counts wins over games (a draw is not a win) with the Wilson score interval,
  which stays inside [0, 1] and behaves at small counts and at rates near 0 or 1, where the
  textbook normal interval does not.
* A match the engine cannot finish (an engine bug) is counted as an error and reported with
  its seed; it does not stop the tournament, so the other lineups still give numbers.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from typing import TextIO

from frontier.bots import Bot, make_bot
from frontier.engine import Seat, Team, make_config
from frontier.play.match_runner import bot_seed, play_match

Z95 = 1.959963984540054  # the standard normal quantile for a two-sided 95% interval


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion; (0, 1) when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact at the ends, no
    high = 1.0 if successes == n else min(1.0, centre + half)  # rounding error
    return low, high


@dataclass(frozen=True, slots=True)
class Game:
    """One match to play: which bot sits on each team, and the seed."""

    lineup: str
    bot_a: str
    bot_b: str
    seed: int


@dataclass(frozen=True, slots=True)
class Outcome:
    game: Game
    winner: str  # "A", "B", "draw", or "" after an error
    error: str = ""
    commands: int = 0


def schedule(lineups: Sequence[str], bots: Sequence[str], matches: int, seed: int) -> list[Game]:
    """``matches`` games per lineup: pairs of bots in turn, each seed with both orientations."""
    if len(bots) < 2:
        raise ValueError("a tournament needs at least two bots")
    pairs = list(combinations(bots, 2))
    games: list[Game] = []
    for lineup in lineups:
        for i in range(matches):
            first, second = pairs[(i // 2) % len(pairs)]
            match_seed = seed + i // 2
            if i % 2 == 0:
                games.append(Game(lineup, first, second, match_seed))
            else:
                games.append(Game(lineup, second, first, match_seed))
    return games


def play_game(game: Game) -> Outcome:
    """Play one game to its end with the engine in this process."""
    config = make_config(seed=game.seed, lineup=game.lineup)
    bots: dict[Seat, Bot] = {}
    for seat in config.seats():
        name = game.bot_a if seat.team is Team.A else game.bot_b
        bots[seat] = make_bot(name, bot_seed(config.seed, seat))
    try:
        result = play_match(config, bots, record=False, summaries=False)
    except Exception as exc:  # an engine bug: counted and reported, never hidden
        return Outcome(game, "", f"{type(exc).__name__}: {exc}")
    return Outcome(game, result.winner, commands=result.command_count)


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, result: str) -> None:
        self.games += 1
        if result == "win":
            self.wins += 1
        elif result == "draw":
            self.draws += 1
        else:
            self.losses += 1

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    def as_json(self) -> dict[str, object]:
        low, high = self.interval
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": round(self.win_rate, 4),
            "ci95": [round(low, 4), round(high, 4)],
        }


@dataclass
class LineupResult:
    lineup: str
    bots: dict[str, Tally] = field(default_factory=dict)
    team_a_wins: int = 0
    draws: int = 0
    games: int = 0
    errors: list[Outcome] = field(default_factory=list)


@dataclass
class TournamentResult:
    lineups: dict[str, LineupResult]
    overall: dict[str, Tally]
    seconds: float
    commands: int

    @property
    def errors(self) -> list[Outcome]:
        return [e for r in self.lineups.values() for e in r.errors]

    def as_json(self) -> dict[str, object]:
        return {
            "seconds": round(self.seconds, 2),
            "commands": self.commands,
            "overall": {b: t.as_json() for b, t in self.overall.items()},
            "lineups": {
                name: {
                    "games": r.games,
                    "team_a_wins": r.team_a_wins,
                    "draws": r.draws,
                    "bots": {b: t.as_json() for b, t in r.bots.items()},
                    "errors": [
                        {"seed": e.game.seed, "bot_a": e.game.bot_a, "error": e.error}
                        for e in r.errors
                    ],
                }
                for name, r in self.lineups.items()
            },
        }


def tally(
    outcomes: Iterable[Outcome], bots: Sequence[str], lineups: Sequence[str]
) -> tuple[dict[str, LineupResult], dict[str, Tally]]:
    per_lineup = {name: LineupResult(name, {b: Tally() for b in bots}) for name in lineups}
    overall = {b: Tally() for b in bots}
    for outcome in outcomes:
        game = outcome.game
        row = per_lineup[game.lineup]
        if outcome.error:
            row.errors.append(outcome)
            continue
        row.games += 1
        row.team_a_wins += outcome.winner == "A"
        row.draws += outcome.winner == "draw"
        for team, bot in ((Team.A, game.bot_a), (Team.B, game.bot_b)):
            if outcome.winner == "draw":
                result = "draw"
            else:
                result = "win" if outcome.winner == team.value else "loss"
            row.bots[bot].add(result)
            overall[bot].add(result)
    return per_lineup, overall


Progress = Callable[[int, int], None]


def run(
    lineups: Sequence[str],
    bots: Sequence[str],
    matches: int,
    seed: int = 0,
    jobs: int = 1,
    progress: Progress | None = None,
) -> TournamentResult:
    """Play the whole tournament; ``progress(done, total)`` is called after each match."""
    games = schedule(lineups, bots, matches, seed)
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    if progress is not None:
        progress(0, len(games))
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for outcome in pool.map(play_game, games, chunksize=4):
                outcomes.append(outcome)
                if progress is not None:
                    progress(len(outcomes), len(games))
    else:
        for game in games:
            outcomes.append(play_game(game))
            if progress is not None:
                progress(len(outcomes), len(games))
    per_lineup, overall = tally(outcomes, bots, lineups)
    return TournamentResult(
        per_lineup,
        overall,
        time.perf_counter() - started,
        sum(o.commands for o in outcomes),
    )


class ProgressBar:
    """A plain-text progress bar on a stream (stderr): redrawn in place on a terminal,
    a line every tenth of the way otherwise (logs and CI keep a readable record)."""

    def __init__(self, stream: TextIO = sys.stderr, width: int = 30, label: str = "matches"):
        self.stream = stream
        self.width = width
        self.label = label
        self.tty = stream.isatty()
        self._last_tenth = -1

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // total if total else self.width
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {self.label}"
        if self.tty:
            end = "\n" if done >= total else ""
            self.stream.write(f"\r{line}{end}")
        else:
            tenth = 10 * done // total if total else 10
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self.stream.write(line + "\n")
        self.stream.flush()


def _pct(value: float) -> str:
    return f"{100 * value:5.1f}%"


def report(result: TournamentResult) -> str:
    """A readable table: per lineup and bot, then overall."""
    lines: list[str] = []
    header = f"  {'bot':<12} {'games':>6} {'wins':>6} {'draws':>6} {'win rate':>9}   95% CI"

    def row(name: str, t: Tally) -> str:
        low, high = t.interval
        return (
            f"  {name:<12} {t.games:>6} {t.wins:>6} {t.draws:>6} {_pct(t.win_rate):>9}"
            f"   [{_pct(low)}, {_pct(high)}]"
        )

    for name, r in result.lineups.items():
        lines.append(f"lineup {name}: {r.games} games, team A won {r.team_a_wins}, {r.draws} draws")
        lines.append(header)
        lines.extend(row(bot, t) for bot, t in r.bots.items())
        for e in r.errors[:3]:
            lines.append(f"  error: seed {e.game.seed} ({e.game.bot_a} on A): {e.error}")
        if len(r.errors) > 3:
            lines.append(f"  ... {len(r.errors) - 3} more errors")
    if len(result.lineups) > 1:
        lines.append("all lineups:")
        lines.append(header)
        lines.extend(row(bot, t) for bot, t in result.overall.items())
    lines.append(
        f"{result.commands} commands in {result.seconds:.1f} s"
        + (f"; {len(result.errors)} matches failed" if result.errors else "")
    )
    return "\n".join(lines)
