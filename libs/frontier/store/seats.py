"""Who plays each seat of a match: held by the creator, open for a claim, or a built-in bot.

Why here, in the runtime: the seat arrangement is part of the match record on the bus (like
the seat tokens), so the orchestrator that creates a match, the one that loads it after a
restart and ``ListMatches`` for matches hosted elsewhere all read it the same way.  Every
secret (seat tokens, invite codes, the host credential) is stored only as its SHA-256
(:func:`frontier.store.matches.token_hash`), never in clear.

Record keys (all optional, so matches recorded before them read as "every seat held"):
``invites`` (invite hash -> seat), ``claimed`` (invite hashes already used), ``bots``
(seat -> built-in bot name), ``host`` (the host credential's hash) and ``host_claimed``
(invite hashes the creator claimed itself, so that their seats read as the host's),
``standins`` (seat -> the built-in bot that plays a person's seat until the host gives it
back) and ``retired`` (hashes of seat tokens replaced by a newer one -> their seat, so that
an old link is told it was replaced rather than that it is unknown).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

SEAT_HELD = "held"
SEAT_OPEN = "open"
SEAT_BOT = "bot"
STATUS_OPEN = "open"
STATUS_BOT = "bot"
STATUS_HOST = "host"  # held by the creator: never invited, or an invite it claimed itself
STATUS_CLAIMED = "claimed"  # an invite claimed by somebody else
STATUS_BOT_FOR_PLAYER = "bot_for_player"  # a bot plays a person's seat until given back


@dataclass(slots=True)
class SeatArrangement:
    """The seats' arrangement of one match, as recorded (hashes only)."""

    invites: dict[str, str] = field(default_factory=dict)  # invite hash -> seat
    claimed: set[str] = field(default_factory=set)  # invite hashes used (claimed or botted)
    bots: dict[str, str] = field(default_factory=dict)  # seat -> built-in bot name
    host_hash: str = ""
    host_claimed: set[str] = field(default_factory=set)  # invite hashes the creator claimed
    standins: dict[str, str] = field(default_factory=dict)  # seat -> bot playing for its person
    retired: dict[str, str] = field(default_factory=dict)  # replaced token hash -> seat

    def open_seats(self) -> set[str]:
        return {seat for h, seat in self.invites.items() if h not in self.claimed}

    def status(self, seat: str) -> tuple[str, str]:
        """(status, bot name) of ``seat``: open, bot, bot for its player, host or claimed."""
        if seat in self.bots:
            return STATUS_BOT, self.bots[seat]
        if seat in self.open_seats():
            return STATUS_OPEN, ""
        if seat in self.standins:
            return STATUS_BOT_FOR_PLAYER, self.standins[seat]
        return self.holder(seat), ""

    def holder(self, seat: str) -> str:
        """Who holds a seat a person plays: the host (held, or an invite it claimed itself)
        or a claimer."""
        invited = {h for h, s in self.invites.items() if s == seat}
        if invited and not invited <= self.host_claimed:
            return STATUS_CLAIMED
        return STATUS_HOST

    def as_record(self) -> dict[str, object]:
        return {
            "invites": dict(self.invites),
            "claimed": sorted(self.claimed),
            "bots": dict(self.bots),
            "host": self.host_hash,
            "host_claimed": sorted(self.host_claimed),
            "standins": dict(self.standins),
            "retired": dict(self.retired),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, object]) -> SeatArrangement:
        """Read back :meth:`as_record` from a match record (our own data)."""
        invites = record.get("invites", {})
        claimed = record.get("claimed", [])
        bots = record.get("bots", {})
        host = record.get("host", "")
        by_host = record.get("host_claimed", [])
        standins = record.get("standins", {})
        retired = record.get("retired", {})
        return cls(
            {str(k): str(v) for k, v in invites.items()} if isinstance(invites, dict) else {},
            {str(h) for h in claimed} if isinstance(claimed, list) else set(),
            {str(k): str(v) for k, v in bots.items()} if isinstance(bots, dict) else {},
            host if isinstance(host, str) else "",
            {str(h) for h in by_host} if isinstance(by_host, list) else set(),
            _names(standins),
            _names(retired),
        )


def _names(value: object) -> dict[str, str]:
    """A record's string map (our own data; anything else reads as empty)."""
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
