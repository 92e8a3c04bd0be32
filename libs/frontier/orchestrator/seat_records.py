"""How each seat of a hosted match has played: think times and refused bot answers.

Why: a bot author tests a bot by playing it and reading back what the server saw of it --
how long it thought, which of its answers were refused and why, how many deadlines it
missed -- through the public API (``GetMatchInfoResponse.seat_records``), so any client can
judge a bot, not only ``frontier check-bot``.  Strikes and the takeover are the seat's clock
(:class:`frontier.store.snapshot.SeatClock`, kept with the match); what this module keeps
lives in the orchestrator's memory from the moment it loads the match, and is bounded: the
think times as 4-byte integers (one per answer, a few KB for a whole match) and only the
latest :data:`KEPT_REJECTIONS` refused answers.

Secrecy: think times are public (every watcher reads them in the decision records of
WatchEvents); a refused answer names the legal id a seat tried and why it failed, so it is
shown to that seat alone.  A standing answer is private to its seat too: every other reader
sees it in WatchEvents as the seat's own answer after 0 ms, so the record shows it to them
the same way (counted, with a think time of 0), and to the seat itself not at all.
"""

from __future__ import annotations

import time
from array import array
from collections import deque
from dataclasses import dataclass, field

from frontier.engine import Seat
from frontier.runtime.errors import REASON_PREFIX
from frontier.v1 import errors_pb2, match_pb2, types_pb2
from frontier.wire.convert import enum_to_proto

KEPT_REJECTIONS = 20  # refused answers kept per seat (the latest ones)


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why the server refused a bot's answer: an ErrorInfo reason and the words for it."""

    reason: str  # e.g. "UNKNOWN_LEGAL_ID" (the ErrorReason catalogue's names)
    message: str


@dataclass(slots=True)
class SeatPlay:
    """One seat's answers so far."""

    think_ms: array[int] = field(default_factory=lambda: array("I"))
    standing: int = 0  # decisions its standing answers answered
    rejected_count: int = 0
    rejected: deque[match_pb2.RejectedAnswer] = field(
        default_factory=lambda: deque(maxlen=KEPT_REJECTIONS)
    )

    def answered(self, elapsed_ms: int) -> None:
        """The seat's own client answered a decision after ``elapsed_ms``."""
        self.think_ms.append(min(max(0, elapsed_ms), 0xFFFFFFFF))

    def answered_by_standing_answer(self) -> None:
        """The server answered a decision from the seat's standing answers."""
        self.standing += 1

    def refused(self, decision_id: str, command_id: str, rejection: Rejection) -> None:
        """The server refused an answer of the seat's bot stream."""
        self.rejected_count += 1
        self.rejected.append(
            match_pb2.RejectedAnswer(
                decision_id=decision_id[:64],
                command_id=command_id[:256],
                reason=rejection.reason,
                reason_code=errors_pb2.ErrorReason.Value(REASON_PREFIX + rejection.reason),
                message=rejection.message,
                unix_ms=int(time.time() * 1000),
            )
        )

    def summary(self, zeros: int = 0) -> match_pb2.ThinkTimeSummary:
        """Count, median, 99th percentile (nearest rank) and maximum of the think times,
        with ``zeros`` answers of 0 ms besides."""
        if not self.think_ms and not zeros:
            return match_pb2.ThinkTimeSummary()
        ordered = [0] * zeros + sorted(self.think_ms)
        return match_pb2.ThinkTimeSummary(
            count=len(ordered),
            p50_ms=nearest_rank(ordered, 50),
            p99_ms=nearest_rank(ordered, 99),
            max_ms=ordered[-1],
        )


def nearest_rank(ordered: list[int], percent: int) -> int:
    """The ``percent``-th percentile of the sorted, non-empty ``ordered`` (nearest rank: the
    smallest value with at least ``percent``% of the values at or below it)."""
    rank = max(1, -(-percent * len(ordered) // 100))  # ceil without floats
    return ordered[rank - 1]


def seat_record(
    seat: Seat,
    play: SeatPlay | None,
    strikes: int,
    taken_over: bool,
    viewer: Seat | None,
) -> match_pb2.SeatPlayRecord:
    """``seat``'s record as ``viewer`` may see it (rejections for the seat itself only)."""
    play = play or SeatPlay()
    shown_as_own = 0 if viewer is seat else play.standing  # what WatchEvents shows them
    record = match_pb2.SeatPlayRecord(
        seat=types_pb2.Seat.ValueType(enum_to_proto(seat)),
        strikes=strikes,
        taken_over=taken_over,
        answered=len(play.think_ms) + shown_as_own,
        think_time=play.summary(shown_as_own),
    )
    if viewer is seat:
        record.rejected_count = play.rejected_count
        record.rejected.extend(play.rejected)
    return record
