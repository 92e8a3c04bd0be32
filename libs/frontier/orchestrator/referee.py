"""The match clock and the seat discipline, as plain data and pure functions.

The clock is a chess clock with a Bronstein-style increment: every decision grants the seat
``budget_ms``; time a decision takes beyond it comes out of the seat's reserve, and unused
budget is not banked (so the reserve only shrinks).  A decision's deadline is therefore
``opened + budget + reserve``.  A seat that misses it is answered with the default command
(:func:`frontier.bots.default_command`), its reserve is spent, and it gets a strike; at
``strike_limit`` strikes the built-in bot plays the seat for the rest of the match.

Why pure: the orchestrator (asyncio) only measures time and calls :func:`settle`; what a
decision does to a seat's clock is decided here, is recorded in the batch's
``DecisionRecord``, and is restored from the stream after a restart, so it is persisted,
idempotent and replayable like every other part of a match.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

from frontier.bots import bot_names
from frontier.store.snapshot import SeatClock
from frontier.v1 import events_pb2

from .spectator_delay import MAX_DELAY_S

DAY_MS = 86_400_000
DEFAULT_STRIKE_LIMIT = 3
MAX_STRIKE_LIMIT = 100
DEFAULT_TAKEOVER_BOT = "greedy"

AnsweredBy: TypeAlias = events_pb2.AnsweredBy.ValueType
SEAT = events_pb2.ANSWERED_BY_SEAT
TIMEOUT = events_pb2.ANSWERED_BY_TIMEOUT
STANDING_ANSWER = events_pb2.ANSWERED_BY_STANDING_ANSWER
BUILT_IN_BOT = events_pb2.ANSWERED_BY_BUILT_IN_BOT


class InvalidClock(ValueError):
    """Clock settings that make no sense (reported as INVALID_ARGUMENT)."""


@dataclass(frozen=True, slots=True)
class ClockConfig:
    """A match's clock settings (from CreateMatch, kept in the match record)."""

    budget_ms: int = 0
    reserve_ms: int = 0
    strike_limit: int = DEFAULT_STRIKE_LIMIT
    takeover_bot: str = DEFAULT_TAKEOVER_BOT
    spectator_delay_s: int = 0  # readers without a seat see the match this late (0: live)

    @property
    def enabled(self) -> bool:
        return self.budget_ms > 0

    @classmethod
    def make(
        cls,
        budget_ms: int,
        reserve_ms: int,
        strike_limit: int,
        takeover_bot: str,
        spectator_delay_s: int = 0,
    ) -> ClockConfig:
        """Validate wire values; 0 and "" mean the defaults."""
        if not 0 <= budget_ms <= DAY_MS:
            raise InvalidClock(f"decision_budget_ms must be in 0..{DAY_MS}, got {budget_ms}")
        if not 0 <= reserve_ms <= DAY_MS:
            raise InvalidClock(f"reserve_ms must be in 0..{DAY_MS}, got {reserve_ms}")
        if reserve_ms and not budget_ms:
            raise InvalidClock("reserve_ms needs decision_budget_ms > 0 (no clock without it)")
        if not 0 <= strike_limit <= MAX_STRIKE_LIMIT:
            raise InvalidClock(f"strike_limit must be in 0..{MAX_STRIKE_LIMIT}, got {strike_limit}")
        bot = takeover_bot or DEFAULT_TAKEOVER_BOT
        if bot not in bot_names():
            raise InvalidClock(
                f"takeover_bot {takeover_bot[:40]!r} is unknown; known: {', '.join(bot_names())}"
            )
        if not 0 <= spectator_delay_s <= MAX_DELAY_S:
            raise InvalidClock(
                f"spectator_delay_s must be in 0..{MAX_DELAY_S}, got {spectator_delay_s}"
            )
        return cls(
            budget_ms, reserve_ms, strike_limit or DEFAULT_STRIKE_LIMIT, bot, spectator_delay_s
        )

    def as_record(self) -> dict[str, object]:
        return {
            "budget_ms": self.budget_ms,
            "reserve_ms": self.reserve_ms,
            "strike_limit": self.strike_limit,
            "takeover_bot": self.takeover_bot,
            "spectator_delay_s": self.spectator_delay_s,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, object]) -> ClockConfig:
        """Read back :meth:`as_record` (our own data; a match without a clock has ``{}``)."""

        def number(key: str, default: int) -> int:
            value = record.get(key, default)
            return value if isinstance(value, int) else default

        bot = record.get("takeover_bot", DEFAULT_TAKEOVER_BOT)
        return cls(
            number("budget_ms", 0),
            number("reserve_ms", 0),
            number("strike_limit", DEFAULT_STRIKE_LIMIT),
            bot if isinstance(bot, str) and bot else DEFAULT_TAKEOVER_BOT,
            number("spectator_delay_s", 0),
        )

    def fresh(self) -> SeatClock:
        return SeatClock(self.reserve_ms)

    def allowance_ms(self, clock: SeatClock) -> int:
        """How long a decision may stay open: its budget plus the seat's reserve."""
        return self.budget_ms + clock.reserve_ms


def settle(
    config: ClockConfig, clock: SeatClock, decision_id: str, by: AnsweredBy, elapsed_ms: int
) -> tuple[events_pb2.DecisionRecord, SeatClock]:
    """A decision's record and the seat's clock after it.

    * an answer by the seat spends ``elapsed - budget`` of the reserve (never below 0);
    * an automatic answer (standing answer, built-in bot) takes no time;
    * a timeout spends the whole allowance, adds a strike and, at the limit, hands the seat
      to the built-in bot (``taken_over`` is set on the record of that very decision).
    """
    if by == TIMEOUT:
        elapsed = config.allowance_ms(clock)
        strikes = clock.strikes + 1
        after = SeatClock(0, strikes, clock.taken_over or strikes >= config.strike_limit)
    elif by in (STANDING_ANSWER, BUILT_IN_BOT):
        elapsed = 0
        after = SeatClock(clock.reserve_ms, clock.strikes, clock.taken_over)
    else:
        elapsed = max(0, elapsed_ms)
        reserve = clock.reserve_ms
        if config.enabled:
            reserve = max(0, reserve - max(0, elapsed - config.budget_ms))
        after = SeatClock(reserve, clock.strikes, clock.taken_over)
    record = events_pb2.DecisionRecord(
        decision_id=decision_id,
        answered_by=by,
        elapsed_ms=elapsed,
        reserve_ms=after.reserve_ms,
        strikes=after.strikes,
        taken_over=after.taken_over and not clock.taken_over,
    )
    return record, after


def record_for(
    record: events_pb2.DecisionRecord, acting_seat: str, viewer: str | None
) -> events_pb2.DecisionRecord:
    """The record as ``viewer`` may see it: a standing answer is shown as the seat's own
    answer to everyone but that seat, because standing answers are private to their seat."""
    if record.answered_by != STANDING_ANSWER or viewer == acting_seat:
        return record
    shown = events_pb2.DecisionRecord()
    shown.CopyFrom(record)
    shown.answered_by = SEAT
    return shown
