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
* Besides who won, each match reports how (:mod:`frontier.play.match_stats`, counted from
  its events in the process that played it), added up per lineup and bot by
  :mod:`frontier.play.tournament_stats`: each seat's VP contribution, how often each variant
  mechanic happened, the score at the end of each round.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations

from frontier.bots import Bot, make_bot
from frontier.engine import Seat, Team, make_config
from frontier.play.match_runner import bot_seed, play_match
from frontier.play.match_stats import MatchStats, match_stats
from frontier.play.tournament_stats import BotStats, MechanicTally, seat_labels

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
    stats: MatchStats | None = None  # None after an error
    early: bool = False  # over before the end of the last round: a team reached the winning score


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
        result = play_match(config, bots, record=True, summaries=False)
    except Exception as exc:  # an engine bug: counted and reported, never hidden
        return Outcome(game, "", f"{type(exc).__name__}: {exc}")
    contribution = {seat.value: result.state.seats[seat].vp for seat in config.seats()}
    stats = match_stats(result.events, contribution)
    options = result.state.options
    early = result.state.round < options.max_rounds or (
        max(result.state.scores.values(), default=0) >= options.winning_score
    )
    return Outcome(game, result.winner, commands=result.command_count, stats=stats, early=early)


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
    early: int = 0  # games over before the end of the last round (R30's winning score)
    errors: list[Outcome] = field(default_factory=list)
    stats: dict[str, BotStats] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        return {
            "games": self.games,
            "team_a_wins": self.team_a_wins,
            "draws": self.draws,
            "early": self.early,
            "bots": {b: t.as_json() for b, t in self.bots.items()},
            "errors": [
                {"seed": e.game.seed, "bot_a": e.game.bot_a, "error": e.error} for e in self.errors
            ],
            "contribution": {b: s.contribution.as_json() for b, s in self.stats.items()},
            "mechanics": {b: s.mechanics.as_json() for b, s in self.stats.items()},
            "score_by_round": {
                b: [round(v, 3) for v in s.scores.means()] for b, s in self.stats.items()
            },
        }


@dataclass
class TournamentResult:
    lineups: dict[str, LineupResult]
    overall: dict[str, Tally]
    seconds: float
    commands: int

    @property
    def errors(self) -> list[Outcome]:
        return [e for r in self.lineups.values() for e in r.errors]

    def mechanics(self) -> dict[str, MechanicTally]:
        """Each bot's mechanics over every lineup."""
        out: dict[str, MechanicTally] = {b: MechanicTally() for b in self.overall}
        for row in self.lineups.values():
            for bot, stats in row.stats.items():
                out[bot].merge(stats.mechanics)
        return out

    def as_json(self) -> dict[str, object]:
        return {
            "seconds": round(self.seconds, 2),
            "commands": self.commands,
            "overall": {b: t.as_json() for b, t in self.overall.items()},
            "mechanics": {b: t.as_json() for b, t in self.mechanics().items()},
            "lineups": {name: r.as_json() for name, r in self.lineups.items()},
        }


def tally(
    outcomes: Iterable[Outcome], bots: Sequence[str], lineups: Sequence[str]
) -> tuple[dict[str, LineupResult], dict[str, Tally]]:
    per_lineup = {
        name: LineupResult(name, {b: Tally() for b in bots}, stats={b: BotStats() for b in bots})
        for name in lineups
    }
    labels = {name: seat_labels(name) for name in lineups}
    overall = {b: Tally() for b in bots}
    for outcome in outcomes:
        game = outcome.game
        row = per_lineup[game.lineup]
        if outcome.error:
            row.errors.append(outcome)
            continue
        if outcome.stats is not None:
            for team, bot in ((Team.A, game.bot_a), (Team.B, game.bot_b)):
                row.stats[bot].add(labels[game.lineup], team, outcome.stats)
        row.games += 1
        row.team_a_wins += outcome.winner == "A"
        row.draws += outcome.winner == "draw"
        row.early += outcome.early
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
