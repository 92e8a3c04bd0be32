"""Engine throughput: random-bot matches played in-process, on one core.

Machines (laptops, shared CI runners) are noisy, so an absolute "commands per second" is only
comparable within one run.  Every benchmark therefore also times a fixed pure-Python
workload -- the *baseline* -- in the same run and reports the ratio between the two: the
ratio moves when the engine gets faster or slower, and mostly stays put when the machine
does.  The baseline runs in slices interleaved with the matches, so both see the same
turbo, thermal and neighbour-load conditions.

Only the playing loop is timed (``legal_commands`` + the bot's choice + ``execute``): match
setup and the final state hash are outside the clock, and nothing is recorded.
"""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass

from frontier.bots import make_bot
from frontier.engine import MatchConfig, initial_state, make_config
from frontier.engine.lineup import default_lineup
from frontier.play.match_runner import play, seat_bots

BOT = "random"
DEFAULT_MATCHES = 20
# Iterations of the baseline workload run before each match.  Fixed (never calibrated), so
# that baseline_ops_per_s means the same thing in every run.
BASELINE_SLICE = 50_000


@dataclass(frozen=True, slots=True)
class BenchResult:
    matches: int
    commands: int
    events: int
    seconds: float
    baseline_ops: int
    baseline_seconds: float
    lineup: str
    seed: int

    @property
    def commands_per_s(self) -> float:
        return self.commands / self.seconds if self.seconds > 0 else 0.0

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.seconds if self.seconds > 0 else 0.0

    @property
    def baseline_ops_per_s(self) -> float:
        return self.baseline_ops / self.baseline_seconds if self.baseline_seconds > 0 else 0.0

    @property
    def ratio_vs_baseline(self) -> float:
        """Engine commands per baseline operation, both per second: higher is faster."""
        base = self.baseline_ops_per_s
        return self.commands_per_s / base if base > 0 else 0.0

    @property
    def baseline_ops_per_command(self) -> float:
        """The same ratio inverted, easier to read: one command costs this many baseline ops."""
        ratio = self.ratio_vs_baseline
        return 1 / ratio if ratio > 0 else 0.0

    def as_json(self) -> dict[str, object]:
        return {
            "bench": "engine",
            "bot": BOT,
            "lineup": self.lineup,
            "seed": self.seed,
            "matches": self.matches,
            "commands": self.commands,
            "events": self.events,
            "seconds": round(self.seconds, 6),
            "commands_per_s": round(self.commands_per_s, 1),
            "matches_per_s": round(self.matches_per_s, 3),
            "baseline_ops_per_s": round(self.baseline_ops_per_s, 1),
            "ratio_vs_baseline": round(self.ratio_vs_baseline, 8),
            "baseline_ops_per_command": round(self.baseline_ops_per_command, 1),
            "python": platform.python_version(),
        }


def baseline_slice(n: int) -> int:
    """A fixed pure-Python workload shaped like engine work: integer mixing plus dict
    updates in a loop.  Returns a value derived from the work so it cannot be skipped."""
    counts: dict[int, int] = {}
    x = 0x2545F491
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        key = x >> 27
        counts[key] = counts.get(key, 0) + 1
    return len(counts) + x


def configs(matches: int, lineup: str, seed: int) -> list[MatchConfig]:
    """The configs of the benchmark's matches (seeds ``seed .. seed+matches-1``), all
    validated up front so a bad lineup or seed fails before anything is timed."""
    return [make_config(seed=seed + i, lineup=lineup) for i in range(matches)]


def run(matches: int = DEFAULT_MATCHES, lineup: str | None = None, seed: int = 0) -> BenchResult:
    """Play ``matches`` random-bot matches and time them against the interleaved baseline."""
    if matches < 1:
        raise ValueError("the benchmark needs at least one match")
    lineup = lineup if lineup is not None else default_lineup()
    commands = events = 0
    seconds = baseline_seconds = 0.0
    for config in configs(matches, lineup, seed):
        start = time.perf_counter()
        baseline_slice(BASELINE_SLICE)
        baseline_seconds += time.perf_counter() - start

        state = initial_state(config)
        bots = seat_bots(config, lambda s: make_bot(BOT, s))
        start = time.perf_counter()
        result = play(state, bots, config=config, record=False, summaries=False)
        seconds += time.perf_counter() - start
        commands += result.command_count
        events += result.event_count
    return BenchResult(
        matches=matches,
        commands=commands,
        events=events,
        seconds=seconds,
        baseline_ops=BASELINE_SLICE * matches,
        baseline_seconds=baseline_seconds,
        lineup=lineup,
        seed=seed,
    )


def report(result: BenchResult) -> str:
    """The human-readable summary printed by ``frontier bench engine``."""
    return "\n".join(
        [
            f"engine benchmark: {result.matches} {BOT}-bot matches, lineup {result.lineup}, "
            f"seeds {result.seed}..{result.seed + result.matches - 1}, one core",
            f"  commands        {result.commands} ({result.events} events) "
            f"in {result.seconds:.3f} s",
            f"  commands/s      {result.commands_per_s:,.0f}",
            f"  matches/s       {result.matches_per_s:.2f}",
            f"  baseline ops/s  {result.baseline_ops_per_s:,.0f} "
            "(fixed pure-Python loop, same run)",
            f"  ratio vs base   {result.ratio_vs_baseline:.3e} (commands/s over baseline ops/s; "
            "higher is faster)",
            f"  one command     costs {result.baseline_ops_per_command:,.0f} baseline ops "
            "(compare the ratio across runs, not commands/s)",
        ]
    )
