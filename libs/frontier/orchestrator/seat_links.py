"""A person's hold on a seat beyond one client: new tokens, and a bot in the person's place.

Why: a seat token is a bearer secret a person keeps in a link.  A link that leaked is
revoked by reissuing the token (the seat's own token may do that); a player who lost the
link asks the host, who may reissue any seat a person holds.  A player who went silent (a
closed tab, a lost connection) would stall the match, so the host may let the built-in bot
play the seat for the person (``AssignSeatBot`` with ``replace_player``) and give it back
later (``ReturnSeat``); meanwhile the person's token still reads the seat's view, and its
commands are refused (SEAT_PLAYED_BY_BOT) so that two players never answer one decision.

Every change is written to the match record with a compare-and-set (tokens as hashes, as
CreateMatch stores them; the retired hashes, so an old link is told it was replaced; the
bots playing for their person) under the match's lock, which the commit path holds for
every command: a bot stops between two commands, never in one, and the decision it did not
answer stays open for the person.  A takeover (missed deadlines) lives in the seat's clock,
which a snapshot keeps: giving such a seat back writes one at once.

Retries: only a token's hash is kept, so the server cannot send the same new token twice.
The client therefore may draw the new token itself (``new_token``): a retry whose token is
the seat's token already succeeds and changes nothing, so a reply lost after the old token
was revoked never leaves the player without a working token.
"""

from __future__ import annotations

import re
import secrets

import grpc

from frontier.engine import Seat
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError, about
from frontier.store.matches import token_hash
from frontier.store.seats import STATUS_BOT, STATUS_BOT_FOR_PLAYER, STATUS_OPEN
from frontier.store.snapshot import SeatClock, encode

from .decisions import Decisions
from .host_keys import LOCAL, Host
from .hosted_match import HostedMatch
from .match_host import MatchHost
from .seating import Seating, bot_name

_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,128}")


def check_new_token(new_token: str) -> None:
    """INVALID_ARGUMENT (MALFORMED) for a chosen token that is not 32 to 128 URL-safe
    characters (too short to be a secret drawn at random)."""
    if new_token and _TOKEN.fullmatch(new_token) is None:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            "new_token is 32 to 128 characters of A-Z, a-z, 0-9, '-' and '_', drawn at random",
            "MALFORMED",
            about("new_token"),
        )


def check_in_play(hosted: HostedMatch) -> None:
    """FAILED_PRECONDITION once the match ended: its seats change hands no more."""
    if hosted.abandoned:
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION, "the match was abandoned", "MATCH_ABANDONED"
        )
    if hosted.state.over:
        raise ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "the match is over", "MATCH_OVER")


def check_has_player(hosted: HostedMatch, seat: Seat) -> str:
    """``seat``'s status, once a person holds it (FAILED_PRECONDITION SEAT_HAS_NO_PLAYER for
    an open seat, a bot's from the start, or one the lineup leaves empty)."""
    status, _ = hosted.seats.status(seat.value)
    if seat not in hosted.state.order or status in (STATUS_OPEN, STATUS_BOT):
        why = "is open" if status == STATUS_OPEN else "is played by a bot from the start"
        if seat not in hosted.state.order:
            why = "is left empty by the lineup"
        raise ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"no person holds seat {seat.value}: it {why}",
            "SEAT_HAS_NO_PLAYER",
            about("seat"),
        )
    return status


class SeatLinks:
    """Reissued tokens and the bots that play for a person, on the hosted matches."""

    def __init__(self, bus: Bus, host: MatchHost, seating: Seating, decisions: Decisions) -> None:
        self.bus = bus
        self.host = host
        self.seating = seating
        self.decisions = decisions

    async def reissue(
        self,
        match_id: str,
        seat_token: str,
        host_token: str,
        seat: Seat | None,
        new_token: str = "",
    ) -> tuple[Seat, str]:
        """A new token for ``seat`` (the token's own seat, or any the host names); the old
        one stops working.  See the module's docstring for ``new_token``."""
        check_new_token(new_token)
        if seat_token and host_token:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "send seat_token or host_token, not both",
                "MALFORMED",
                about("host_token"),
            )
        if not seat_token and not host_token:
            raise ServiceError(
                grpc.StatusCode.UNAUTHENTICATED,
                "a seat token (your own seat) or the host token is required",
                "TOKEN_REQUIRED",
                about("seat_token"),
            )
        hosted = await self.host.get(match_id)
        async with hosted.lock:
            done = hosted.seat_by_token_hash.get(token_hash(new_token)) if new_token else None
            if done is not None and done == _meant(hosted, seat_token, seat):
                return Seat(done), new_token  # a retry: the caller knows the seat's token
            target = self._target(hosted, seat_token, host_token, seat)
            check_in_play(hosted)
            check_has_player(hosted, target)
            token = new_token or secrets.token_urlsafe(24)
            self._check_unused(hosted, token_hash(token))
            await self._store_token(hosted, target, token_hash(token))
            session = hosted.sessions.get(target)
        if session is not None:  # a bot stream that came with the old token
            session.close(grpc.StatusCode.PERMISSION_DENIED, "the seat's token was reissued")
        return target, token

    def _target(
        self, hosted: HostedMatch, seat_token: str, host_token: str, seat: Seat | None
    ) -> Seat:
        """The seat a reissue is for, once the caller may reissue it."""
        if host_token:
            self.seating.check_host(hosted, host_token)
            if seat is None:
                raise ServiceError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "the host names the seat to reissue",
                    "MALFORMED",
                    about("seat"),
                )
            return seat
        own = self._seat_of(hosted, seat_token)
        if seat is not None and seat is not own:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"the token acts for seat {own.value}, not {seat.value}",
                "WRONG_SEAT",
                about("seat"),
            )
        return own

    def _seat_of(self, hosted: HostedMatch, token: str) -> Seat:
        seat = hosted.seat_by_token_hash.get(token_hash(token))
        if seat is not None:
            return Seat(seat)
        if self.seating.is_host(hosted, token):
            reason, why = "HOST_CANNOT_ACT", "the host token holds no seat: send it as host_token"
        elif token_hash(token) in hosted.seats.retired:
            reason, why = "TOKEN_REISSUED", "this seat token was replaced by a newer one"
        else:
            reason, why = "UNKNOWN_TOKEN", "this token acts for no seat of this match"
        raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, why, reason, about("seat_token"))

    @staticmethod
    def _check_unused(hosted: HostedMatch, new_hash: str) -> None:
        """A chosen token must be nobody's secret already (another seat's, the host's, an
        invite's or a retired one)."""
        seats = hosted.seats
        if (
            new_hash in hosted.seat_by_token_hash
            or new_hash == seats.host_hash
            or new_hash in seats.invites
            or new_hash in seats.retired
        ):
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "new_token is taken: draw another",
                "MALFORMED",
                about("new_token"),
            )

    async def _store_token(self, hosted: HostedMatch, seat: Seat, new_hash: str) -> None:
        def change(record: dict[str, object]) -> None:
            tokens = record.setdefault("tokens", {})
            retired = record.setdefault("retired", {})
            assert isinstance(tokens, dict) and isinstance(retired, dict)
            for old in [h for h, s in tokens.items() if s == seat.value]:
                del tokens[old]
                retired[old] = seat.value
            tokens[new_hash] = seat.value

        await self.bus.update_match(hosted.match_id, change)
        hosted.replace_token(seat, new_hash)

    async def play_for(
        self, match_id: str, host_token: str, seat: Seat, bot: str, caller: Host = LOCAL
    ) -> None:
        """The host lets the built-in ``bot`` play ``seat`` for its person (an open seat is
        simply given to it, as AssignSeatBot without ``replace_player``)."""
        hosted = await self.host.get(match_id)
        self.seating.check_host(hosted, host_token)
        name = bot_name(bot)
        if hosted.seats.status(seat.value)[0] == STATUS_OPEN and seat in hosted.state.order:
            await self.seating.assign_bot(match_id, host_token, seat, bot, caller)
            return
        async with hosted.lock:
            check_in_play(hosted)
            status, playing = hosted.seats.status(seat.value)
            if seat in hosted.state.order and status in (STATUS_BOT, STATUS_BOT_FOR_PLAYER):
                raise _bot_plays(seat, playing)
            check_has_player(hosted, seat)
            access = self.host.access
            payer = access.host_of(hosted.host_id) if access and hosted.host_id else caller
            if access is not None and payer.limits is not None:
                access.check_bots(payer, self.host.hosted_by(payer.host_id)[1], 1)

            def change(record: dict[str, object]) -> None:
                standins = record.setdefault("standins", {})
                assert isinstance(standins, dict)
                if seat.value in standins:
                    raise _bot_plays(seat, str(standins[seat.value]))
                standins[seat.value] = name

            await self.bus.update_match(match_id, change)
            hosted.play_for(seat, name)
            session = hosted.sessions.get(seat)
        if session is not None:  # its bot stream: no decision is waiting for it now
            session.poke()
        self.decisions.ensure_referee(hosted)
        await hosted.tell_readers()

    async def give_back(self, match_id: str, host_token: str, seat: Seat) -> None:
        """The host gives ``seat`` back to its person: the bot the host chose, or the one
        that took the seat over, answers no more of its decisions."""
        hosted = await self.host.get(match_id)
        self.seating.check_host(hosted, host_token)
        async with hosted.lock:
            check_in_play(hosted)
            check_has_player(hosted, seat)
            clock = hosted.clock_of(seat)
            if seat.value not in hosted.seats.standins and not clock.taken_over:
                raise ServiceError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"seat {seat.value} is played by its person already",
                    "SEAT_NOT_PLAYED_BY_BOT",
                    about("seat"),
                )
            if seat.value in hosted.seats.standins:

                def change(record: dict[str, object]) -> None:
                    standins = record.get("standins")
                    if isinstance(standins, dict):
                        standins.pop(seat.value, None)

                await self.bus.update_match(match_id, change)
            # the strikes start again: one more missed deadline is not a takeover at once
            hosted.give_back(seat, SeatClock(clock.reserve_ms, 0, False))
            if clock.taken_over:  # the takeover is in the seat's clock: keep it undone
                await self.bus.put_snapshot(match_id, encode(hosted.snapshot()))
            session = hosted.sessions.get(seat)
        if session is not None:
            session.poke()
        await hosted.tell_readers()


def _meant(hosted: HostedMatch, seat_token: str, seat: Seat | None) -> str:
    """The seat a reissue names: ``seat``, else the seat token's (current or retired)."""
    if seat is not None:
        return seat.value
    hashed = token_hash(seat_token)
    return hosted.seat_by_token_hash.get(hashed) or hosted.seats.retired.get(hashed, "")


def _bot_plays(seat: Seat, bot: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.FAILED_PRECONDITION,
        f"the built-in bot {bot!r} plays seat {seat.value} already",
        "BOT_ALREADY_PLAYS",
        about("seat"),
    )
