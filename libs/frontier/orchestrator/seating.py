"""Claiming open seats and the host's management of a match.

A match may be created with open seats (each with a one-time invite code), seats played by
a built-in bot, and always a host credential (:mod:`frontier.store.seats`).  This module
holds what happens after creation: :meth:`Seating.claim_seat` turns an invite code into the
seat's token exactly once, and the host may give a still open seat to a built-in bot
(:meth:`Seating.assign_bot`) or end the match as abandoned (:meth:`Seating.abandon`).

Why the host's powers are only these: the host is whoever created the match, not a player.
It can keep a match from stalling on a seat nobody claims, and stop a match, but it never
acts for a seat and reads only what a spectator reads, so creating a match gives no edge
in it.  Every change is written to the match record with a compare-and-set (so a code is
claimed once even if two claims race) under the match's lock, by the match's single
writer.
"""

from __future__ import annotations

import secrets

import grpc

from frontier.bots import bot_names
from frontier.engine import Seat
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError, about
from frontier.store.matches import token_hash

from .commit import CommitPath
from .decisions import Decisions
from .host_keys import LOCAL, Host
from .hosted_match import HostedMatch
from .match_host import MatchHost
from .referee import DEFAULT_TAKEOVER_BOT


def bot_name(name: str, field: str = "bot") -> str:
    """A built-in bot name for a seat ("" = greedy); INVALID_ARGUMENT about ``field`` when
    unknown."""
    bot = name or DEFAULT_TAKEOVER_BOT
    if bot not in bot_names():
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"bot {name[:40]!r} is unknown; known: {', '.join(bot_names())}",
            "MALFORMED",
            about(field),
        )
    return bot


class Seating:
    """Open seats, their claims, and the host credential of the hosted matches."""

    def __init__(
        self, bus: Bus, host: MatchHost, commits: CommitPath, decisions: Decisions
    ) -> None:
        self.bus = bus
        self.host = host
        self.commits = commits
        self.decisions = decisions

    def is_host(self, hosted: HostedMatch, token: str) -> bool:
        host = hosted.seats.host_hash
        return bool(token) and bool(host) and secrets.compare_digest(token_hash(token), host)

    def check_host(self, hosted: HostedMatch, token: str) -> None:
        if not token:
            raise ServiceError(
                grpc.StatusCode.UNAUTHENTICATED,
                "the host token is required",
                "TOKEN_REQUIRED",
                about("host_token"),
            )
        if not self.is_host(hosted, token):
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "this is not the match's host token (CreateMatchResponse.host_token)",
                "NOT_HOST",
                about("host_token"),
            )

    async def claim_seat(
        self,
        match_id: str,
        invite_code: str,
        host_token: str = "",
        allow_host_claim: bool = False,
    ) -> tuple[Seat, str]:
        """The seat of ``invite_code`` and its new token; the code works once.  The match's
        creator (``host_token``) claims its own invite only with ``allow_host_claim``."""
        if not invite_code:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "invite_code is required",
                "MALFORMED",
                about("invite_code"),
            )
        hosted = await self.host.get(match_id)
        by_host = self._claim_by_host(hosted, host_token, allow_host_claim)
        code_hash = token_hash(invite_code)

        async def work() -> tuple[Seat, str]:
            seat = self._open_seat_of(hosted, code_hash)
            token = secrets.token_urlsafe(24)
            seat_hash = token_hash(token)

            def change(record: dict[str, object]) -> None:
                claimed = record.setdefault("claimed", [])
                tokens = record.setdefault("tokens", {})
                assert isinstance(claimed, list) and isinstance(tokens, dict)
                if code_hash in claimed:
                    raise _already_claimed(seat)
                claimed.append(code_hash)
                tokens[seat_hash] = seat.value
                if by_host:
                    host_claimed = record.setdefault("host_claimed", [])
                    assert isinstance(host_claimed, list)
                    host_claimed.append(code_hash)

            await self.bus.update_match(match_id, change)
            hosted.claim(code_hash, seat_hash, seat, by_host)
            return seat, token

        async with hosted.lock:
            return await work()

    def _claim_by_host(self, hosted: HostedMatch, host_token: str, allowed: bool) -> bool:
        """Whether a claim comes from the match's creator, which may claim its own invite
        only when it says so: an invite is handed out for somebody else, and one the
        creator claimed by mistake (opening its own link) would be gone."""
        if not host_token:
            return False
        self.check_host(hosted, host_token)
        if not allowed:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "the match's creator cannot claim an invite it handed out unless it asks to "
                "(ClaimSeatRequest.allow_host_claim)",
                "HOST_CLAIM_REFUSED",
                about("allow_host_claim"),
            )
        return True

    def _open_seat_of(self, hosted: HostedMatch, code_hash: str) -> Seat:
        seat = hosted.seats.invites.get(code_hash)
        if seat is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "this invite code opens no seat of this match",
                "UNKNOWN_INVITE",
                about("invite_code"),
            )
        if code_hash in hosted.seats.claimed:
            if seat in hosted.seats.bots:
                raise ServiceError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"seat {seat} was given to the built-in bot {hosted.seats.bots[seat]!r} "
                    "by the host",
                    "SEAT_NOT_OPEN",
                    about("invite_code"),
                )
            raise _already_claimed(Seat(seat))
        return Seat(seat)

    async def assign_bot(
        self, match_id: str, host_token: str, seat: Seat, bot: str, caller: Host = LOCAL
    ) -> None:
        """The host gives the open ``seat`` to the built-in ``bot``, within the bot seat
        quota of the match's host key (the caller's, for a match created without one)."""
        hosted = await self.host.get(match_id)
        self.check_host(hosted, host_token)
        name = bot_name(bot)
        access = self.host.access
        async with hosted.lock:
            payer = access.host_of(hosted.host_id) if access and hosted.host_id else caller
            if access is not None and payer.limits is not None and not hosted.ended:
                access.check_bots(payer, self.host.hosted_by(payer.host_id)[1], 1)
            if hosted.ended:
                raise ServiceError(
                    grpc.StatusCode.FAILED_PRECONDITION, "the match is over", "MATCH_OVER"
                )
            codes = [h for h, s in hosted.seats.invites.items() if s == seat.value]
            if not codes or codes[0] in hosted.seats.claimed:
                raise ServiceError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"seat {seat.value} is not open (held, claimed or a bot already)",
                    "SEAT_NOT_OPEN",
                    about("seat"),
                )

            def change(record: dict[str, object]) -> None:
                claimed = record.setdefault("claimed", [])
                bots = record.setdefault("bots", {})
                assert isinstance(claimed, list) and isinstance(bots, dict)
                if codes[0] in claimed:
                    raise _already_claimed(seat)
                claimed.append(codes[0])
                bots[seat.value] = name

            await self.bus.update_match(match_id, change)
            hosted.give_to_bot(codes[0], seat, name)
        self.decisions.ensure_referee(hosted)
        hosted.wake.set()

    async def abandon(self, match_id: str, host_token: str) -> int:
        """The host ends the unfinished match as abandoned; returns its version."""
        hosted = await self.host.get(match_id)
        self.check_host(hosted, host_token)

        async def work() -> int:
            if hosted.state.over:
                raise ServiceError(
                    grpc.StatusCode.FAILED_PRECONDITION, "the match is over", "MATCH_OVER"
                )
            if hosted.abandoned:
                raise ServiceError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "the match was abandoned already",
                    "MATCH_ABANDONED",
                )
            await self.commits.abandon(hosted, "the match was abandoned by its host")
            return hosted.state.version

        return await self.commits.serialized(hosted, work)


def _already_claimed(seat: Seat | str) -> ServiceError:
    shown = seat.value if isinstance(seat, Seat) else seat
    return ServiceError(
        grpc.StatusCode.FAILED_PRECONDITION,
        f"seat {shown} was claimed already: an invite code works once",
        "SEAT_ALREADY_CLAIMED",
        about("invite_code"),
    )
