"""Step 1 of the commit path: what a seat's command must be before a domain service sees it.

A request names its command (a full command or a legal id) and the version it expects; the
match must be in play, the seat neither taken over nor another's, and the command one of
the seat's legal commands at this version (:mod:`.legal_cache`).  Checked here, in the
orchestrator, so that a bad command never costs a domain call and is refused with its own
reason; :mod:`.commit` runs these first, and :mod:`.decisions` resolves a bot's answer the
same way.
"""

from __future__ import annotations

import grpc

from frontier.engine import Seat
from frontier.engine.decide import check
from frontier.engine.errors import IllegalCommand, WrongSeat
from frontier.engine.model import Command
from frontier.runtime.errors import CURRENT_VERSION, FIELD, ServiceError, about, classify, shown

from .hosted_match import HostedMatch


def checked(
    hosted: HostedMatch,
    seat: Seat,
    expected_version: int,
    command: Command | None,
    legal_id: str,
) -> Command:
    """The command a request names, once its version, the match and the seat allow it."""
    if expected_version >= 0 and expected_version != hosted.state.version:
        raise ServiceError(
            grpc.StatusCode.ABORTED,
            f"stale version: you expected {expected_version}, the match is at "
            f"{hosted.state.version}",
            "STALE_VERSION",
            {FIELD: "expected_version", CURRENT_VERSION: str(hosted.state.version)},
        )
    check_not_taken_over(hosted, seat)
    return resolve(hosted, seat, command, legal_id)


def check_not_taken_over(hosted: HostedMatch, seat: Seat) -> None:
    """Refuse a seat's own command once the match ended (finished or abandoned), or while
    the built-in bot plays the seat (the host gave it to the bot, or it took it over)."""
    if hosted.abandoned:
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            "the match was abandoned (nobody acted in it for the server's idle timeout)",
            "MATCH_ABANDONED",
        )
    if hosted.state.over:
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"the match is over (winner: {hosted.state.winner})",
            "MATCH_OVER",
        )
    if seat.value in hosted.seats.standins:
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"the host gave seat {seat.value} to the built-in bot "
            f"{hosted.seats.standins[seat.value]!r}: its token acts again once the host "
            "gives it back",
            "SEAT_PLAYED_BY_BOT",
        )
    if hosted.clock_of(seat).taken_over:
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"seat {seat.value} missed {hosted.clock.strike_limit} deadlines and is played "
            "by the built-in bot for the rest of the match",
            "SEAT_TAKEN_OVER",
        )


def resolve(hosted: HostedMatch, seat: Seat, command: Command | None, legal_id: str) -> Command:
    """The command a request names: a full command of the token's seat, or a legal id."""
    if command is None:
        found = hosted.legal(seat).by_id.get(legal_id)
        if found is not None:
            return found
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"no legal command with id {shown(legal_id)} for seat {seat.value} now",
            "UNKNOWN_LEGAL_ID",
            about("legal_id"),
        )
    if command.seat is not seat:
        raise ServiceError(
            grpc.StatusCode.PERMISSION_DENIED,
            f"the token acts for seat {seat.value}, not {command.seat.value}",
            "WRONG_SEAT",
            about("command.seat"),
        )
    return command


def check_legal(hosted: HostedMatch, cmd: Command) -> str:
    """``cmd``'s key, once it is one of its seat's legal commands now (else the engine's
    ``check`` raises, saying why not)."""
    legal = hosted.legal(cmd.seat)
    key = cmd.key()
    if not legal.contains(cmd, key):
        try:
            check(hosted.state, cmd, legal.commands)  # raises, saying why not
        except (IllegalCommand, WrongSeat) as exc:
            code, message, reason = classify(exc)
            raise ServiceError(code, message, reason, about("command")) from exc
        raise AssertionError(f"check() accepted {key}, not in the legal list")
    return key
