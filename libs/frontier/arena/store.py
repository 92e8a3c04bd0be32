"""The arena on NATS: registered bots, the board and the matches in play, in one KV bucket
(``frontier-arena``, kept for ever: a restart keeps the leaderboard).

Keys: ``bot.<id>`` (a :class:`~.registry.BotRecord`), ``name.<lowercased name>`` (the id
owning a name: its ``create`` is what makes names unique across arenas), ``board`` (the
:class:`~.ratings.Board`) and ``match.<id>`` (a match being played, so that a restarted
arena watches it again).

Exactly once: the board is written with compare-and-set on its revision, and it lists the
matches it counts; a result is applied by reading the board, applying (which is a no-op for
a listed match), and writing it back only if nobody wrote in between (else again).  The
match's own record is deleted afterwards: a crash between the two leaves a record that the
next start finds already counted, and simply deletes.
"""

from __future__ import annotations

import contextlib
import hashlib
import re

import grpc
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NoKeysError, NotFoundError
from nats.js.kv import KeyValue

from frontier.runtime.errors import FIELD, ServiceError
from frontier.store.credentials import ID_PATTERN

from .ratings import Board, MatchResult, apply_result
from .registry import BotRecord, parse_key

BOARD_KEY = "board"
_SAFE = re.compile(r"[A-Za-z0-9_-]{1,100}")


def _match_key(match_id: str) -> str:
    """A KV key for a match id (hashed when the id has characters a key may not)."""
    safe = match_id if _SAFE.fullmatch(match_id) else hashlib.sha256(match_id.encode()).hexdigest()
    return f"match.{safe}"


class ArenaStore:
    """The arena's bucket (``Bus.arena_bucket``)."""

    def __init__(self, bucket: KeyValue) -> None:
        self.bucket = bucket

    # ----- bots ----------------------------------------------------------------------------
    async def register(self, record: BotRecord) -> None:
        """Store a new bot; BOT_NAME_TAKEN (nothing stored) when its name is another's."""
        try:
            await self.bucket.create(f"name.{record.name.lower()}", record.bot_id.encode())
        except KeyWrongLastSequenceError:
            raise ServiceError(
                grpc.StatusCode.ALREADY_EXISTS,
                f"another bot is named {record.name!r}: choose another name",
                "BOT_NAME_TAKEN",
                {FIELD: "name"},
            ) from None
        await self.bucket.create(f"bot.{record.bot_id}", record.model_dump_json().encode())

    async def bot(self, bot_id: str) -> BotRecord | None:
        if ID_PATTERN.fullmatch(bot_id) is None:
            return None
        raw = await self._get(f"bot.{bot_id}")
        return None if raw is None else BotRecord.model_validate_json(raw)

    async def bots(self) -> list[BotRecord]:
        found = [await self.bot(key.removeprefix("bot.")) for key in await self._keys("bot.")]
        return [b for b in found if b is not None]

    async def check_key(self, key: str) -> BotRecord | None:
        """The bot whose key ``key`` is (None: malformed, unknown or a wrong secret)."""
        parsed = parse_key(key)
        if parsed is None:
            return None
        record = await self.bot(parsed[0])
        return record if record is not None and record.matches(parsed[1]) else None

    # ----- the board -----------------------------------------------------------------------
    async def board(self) -> tuple[Board, int]:
        """The board and its revision (0: none stored yet)."""
        try:
            entry = await self.bucket.get(BOARD_KEY)
        except (KeyNotFoundError, NotFoundError):
            return Board(), 0
        if entry.value is None:
            return Board(), entry.revision or 0
        return Board.model_validate_json(entry.value), entry.revision or 0

    async def record_result(self, result: MatchResult) -> bool:
        """Count ``result`` on the board exactly once; True if this call counted it, False
        if the board had it already.  Then forget the match's in-play record."""
        while True:
            board, revision = await self.board()
            new = apply_result(board, result)
            if new is None:
                break
            try:
                await self.bucket.update(BOARD_KEY, new.model_dump_json().encode(), last=revision)
            except KeyWrongLastSequenceError:
                continue  # another writer came first: read its board and apply again
            await self.forget_match(result.match_id)
            return True
        await self.forget_match(result.match_id)
        return False

    # ----- matches in play -----------------------------------------------------------------
    async def put_match(self, result: MatchResult) -> None:
        await self.bucket.put(_match_key(result.match_id), result.model_dump_json().encode())

    async def forget_match(self, match_id: str) -> None:
        with contextlib.suppress(KeyNotFoundError, NotFoundError):
            await self.bucket.delete(_match_key(match_id))

    async def matches_in_play(self) -> list[MatchResult]:
        found = []
        for key in await self._keys("match."):
            raw = await self._get(key)
            if raw is not None:
                found.append(MatchResult.model_validate_json(raw))
        return found

    # ----- plumbing ------------------------------------------------------------------------
    async def _get(self, key: str) -> bytes | None:
        try:
            entry = await self.bucket.get(key)
        except (KeyNotFoundError, NotFoundError):
            return None
        return entry.value

    async def _keys(self, prefix: str) -> list[str]:
        try:
            keys = await self.bucket.keys()
        except NoKeysError:
            return []
        return sorted(k for k in keys if k.startswith(prefix))
