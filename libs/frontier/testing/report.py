"""What a bot check found: one :class:`MatchReport` per match, as a table or as JSON.

Why a module of its own: ``frontier check-bot`` prints it and the pytest helper returns it,
so both read the same fields, and a test asserts on the same facts a person reads.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Rejected:
    """One answer of the bot that the server refused."""

    decision_id: str
    command_id: str
    reason: str  # the ErrorInfo reason, e.g. "UNKNOWN_LEGAL_ID"
    message: str


@dataclass(slots=True)
class MatchReport:
    """How the bot played one match, and everything that went wrong (``problems``)."""

    match_id: str
    seat: str
    faction: str
    lineup: str
    finished: bool = False
    winner: str = ""
    scores: dict[str, int] = field(default_factory=dict)
    rounds: int = 0
    bot_exit: int | None = None  # None: still running at the time limit, and stopped
    strikes: int = 0
    taken_over: bool = False
    answered: int = 0
    rejected_count: int = 0
    rejected: list[Rejected] = field(default_factory=list)  # the latest few
    think_p50_ms: int = 0
    think_p99_ms: int = 0
    think_max_ms: int = 0
    replay: str = ""  # where to replay it: the web gateway's page, or an ExportReplay call
    replay_file: str = ""  # the spectator's history (ExportReplay), saved
    bot_log: str = ""  # the bot's stdout and stderr
    bot_error: str = ""  # what a Python bot raised
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Finished, with no strike, no refused answer and no crash of the bot."""
        return not self.problems

    def judge(self) -> None:
        """Fill ``problems`` from the facts (each one fails the check)."""
        if self.bot_exit is None:
            self.problems.append("the bot was still running at the time limit and was stopped")
        elif self.bot_exit != 0:
            why = f": {self.bot_error}" if self.bot_error else ""
            self.problems.append(f"the bot exited with status {self.bot_exit}{why}")
        if not self.finished:
            self.problems.append(f"the match did not finish (round {self.rounds})")
        if self.strikes:
            taken = ", and the built-in bot took the seat over" if self.taken_over else ""
            self.problems.append(f"{self.strikes} missed deadline(s){taken}")
        if self.rejected_count:
            reasons = sorted({r.reason for r in self.rejected})
            self.problems.append(
                f"{self.rejected_count} rejected answer(s): {', '.join(reasons) or '?'}"
            )


@dataclass(slots=True)
class CheckReport:
    """Every match of one check."""

    matches: list[MatchReport] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.matches) and all(m.ok for m in self.matches)

    def to_json(self) -> dict[str, Any]:
        """The report as ``--json`` prints it (keys are a public interface)."""
        return {"ok": self.ok, "matches": [{**asdict(m), "ok": m.ok} for m in self.matches]}

    def table(self) -> str:
        """A readable table, one row per match, then each match's problems and replay."""
        header = (
            f"{'#':>2} {'seat':<4} {'faction':<9} {'result':<10} {'A-B':>7} {'answers':>7} "
            f"{'strikes':>7} {'rejected':>8} {'think p50':>9} {'p99':>7}  verdict"
        )
        lines = [header, "-" * len(header)]
        for i, m in enumerate(self.matches, 1):
            result = f"won by {m.winner}" if m.finished else "unfinished"
            score = f"{m.scores.get('A', 0)}-{m.scores.get('B', 0)}"
            lines.append(
                f"{i:>2} {m.seat:<4} {m.faction:<9} {result:<10} {score:>7} {m.answered:>7} "
                f"{m.strikes:>7} {m.rejected_count:>8} {m.think_p50_ms:>7}ms "
                f"{m.think_p99_ms:>5}ms  {'ok' if m.ok else 'FAILED'}"
            )
        for i, m in enumerate(self.matches, 1):
            lines.append(f"\nmatch {i} ({m.match_id}, lineup {m.lineup})")
            lines.extend(f"  problem: {p}" for p in m.problems)
            lines.extend(
                f"  rejected: {r.reason}: {r.message} (decision {r.decision_id}, "
                f"id {r.command_id!r})"
                for r in m.rejected
            )
            lines.append(f"  replay:  {m.replay}")
            if m.replay_file:
                lines.append(f"  history: {m.replay_file}")
            if m.bot_log:
                lines.append(f"  bot log: {m.bot_log}")
        passed = sum(m.ok for m in self.matches)
        lines.append(f"\n{passed} of {len(self.matches)} matches passed")
        return "\n".join(lines)
