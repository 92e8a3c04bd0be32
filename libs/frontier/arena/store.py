"""The arena on NATS: registered bots, the board and the matches in play, in one KV bucket
(``frontier-arena``, kept for ever: a restart keeps the leaderboard).

Keys: ``bot.<id>`` (a :class:`~.registry.BotRecord`), ``name.<lowercased name>`` (the id
owning a name: its ``create`` is what makes names unique across arenas), ``board`` (the
:class:`~.ratings.Board`), ``match.<id>`` (a match being played, so that a restarted
arena watches it again) and ``history.<entrant>`` (its rating after each of its latest
:data:`~.ratings.HISTORY_KEPT` rated matches: one key each, as the board itself is one
value that NATS bounds to its largest message).

Exactly once: the board is written with compare-and-set on its revision, and it lists the
matches it counts; a result is applied by reading the board, applying (which is a no-op for
a listed match), and writing it back only if nobody wrote in between (else again).  The
match's own record is deleted afterwards: a crash between the two leaves a record that the
next start finds already counted, and simply deletes.

The rating points follow the board: it keeps each recent match's ratings after it, and
after the board is written (or found to count the match already) the points are merged
into each entrant's history by match id, so a point is archived once however often this
runs; a crash before that leaves the point on the board, where the leaderboard reads it
too, and the next count of that match or of the entrant's next one archives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import time
from collections.abc import Callable

import grpc
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NoKeysError, NotFoundError
from nats.js.kv import KeyValue
from pydantic import BaseModel, Field

from frontier.runtime.errors import FIELD, ServiceError
from frontier.store.credentials import ID_PATTERN

from .ratings import Board, MatchResult, RatingPoint, apply_result, merge_points, points_of
from .registry import BotRecord, parse_key

BOARD_KEY = "board"
_SAFE = re.compile(r"[A-Za-z0-9_-]{1,100}")


def _match_key(match_id: str) -> str:
    """A KV key for a match id (hashed when the id has characters a key may not)."""
    safe = match_id if _SAFE.fullmatch(match_id) else hashlib.sha256(match_id.encode()).hexdigest()
    return f"match.{safe}"


def _history_key(bot_id: str) -> str:
    """A KV key for an entrant's history (``builtin:greedy`` -> ``history.builtin.greedy``)."""
    safe = bot_id.replace(":", ".")
    if not re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}", safe):
        safe = hashlib.sha256(bot_id.encode()).hexdigest()
    return f"history.{safe}"


class History(BaseModel):
    """One entrant's archived rating points, oldest first."""

    points: list[RatingPoint] = Field(default_factory=list)


class ArenaStore:
    """The arena's bucket (``Bus.arena_bucket``); ``clock`` (unix seconds) stamps the time a
    match is counted."""

    def __init__(self, bucket: KeyValue, clock: Callable[[], float] = time.time) -> None:
        self.bucket = bucket
        self.clock = clock

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
        if the board had it already.  Then archive its rating points and forget the match's
        in-play record."""
        if not result.finished_unix_ms:
            result = result.model_copy(update={"finished_unix_ms": int(self.clock() * 1000)})
        entrants = sorted({s.bot_id for s in result.seats if s.bot_id})
        while True:
            board, revision = await self.board()
            new = apply_result(board, result)
            if new is None:
                break
            try:
                await self.bucket.update(BOARD_KEY, new.model_dump_json().encode(), last=revision)
            except KeyWrongLastSequenceError:
                continue  # another writer came first: read its board and apply again
            await self.archive(new, entrants)
            await self.forget_match(result.match_id)
            return True
        await self.archive(board, entrants)
        await self.forget_match(result.match_id)
        return False

    # ----- rating over time ----------------------------------------------------------------
    async def archive(self, board: Board, bot_ids: list[str]) -> None:
        """Merge each entrant's points on ``board`` into its history (compare-and-set)."""
        for bot_id in bot_ids:
            fresh = points_of(board, bot_id)
            while fresh:
                kept, revision = await self._history(bot_id)
                merged = merge_points(kept, fresh)
                if merged == kept:
                    break
                value = History(points=merged).model_dump_json().encode()
                try:
                    if revision:
                        await self.bucket.update(_history_key(bot_id), value, last=revision)
                    else:
                        await self.bucket.create(_history_key(bot_id), value)
                except KeyWrongLastSequenceError:
                    continue  # written meanwhile: merge into that
                break

    async def histories(self, board: Board) -> dict[str, list[RatingPoint]]:
        """Every entrant's rating points: its archive merged with the board's own."""
        ids = sorted(board.entrants)
        kept = await asyncio.gather(*(self._history(bot_id) for bot_id in ids))
        return {
            bot_id: merge_points(points, points_of(board, bot_id))
            for bot_id, (points, _) in zip(ids, kept, strict=True)
        }

    async def _history(self, bot_id: str) -> tuple[list[RatingPoint], int]:
        """An entrant's archived points and their revision (0: none yet)."""
        try:
            entry = await self.bucket.get(_history_key(bot_id))
        except (KeyNotFoundError, NotFoundError):
            return [], 0
        if entry.value is None:
            return [], entry.revision or 0
        return History.model_validate_json(entry.value).points, entry.revision or 0

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
