"""ArenaService (arena.proto): registration, a bot's Enter stream, the board and the
arena's state, over the lobby, the store and the loop of :mod:`.runner`.

Registration is a host call: with ``FRONTIER_ACCESS=keys`` it needs a live host key in the
``x-frontier-host-key`` metadata (the key's id owns the bot); with ``local`` anyone may
register.  Enter needs the bot key in its first message.  The board and the state are
public.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import grpc

from frontier.engine import Seat
from frontier.runtime.errors import FIELD, GrpcContext, ServiceError, abort, grpc_errors
from frontier.runtime.settings import HOST_KEY_METADATA
from frontier.store.host_keys import HostKeyStore
from frontier.v1 import arena_pb2, arena_pb2_grpc, types_pb2
from frontier.wire.convert import enum_to_proto

from . import metrics
from .lobby import Lobby, Presence
from .ratings import RANKED_AFTER, Board, EntrantRecord, MatchResult, RatingPoint, Skill
from .registry import BotRecord, new_bot
from .runner import Arena
from .store import ArenaStore

log = logging.getLogger("frontier.arena")
HEARTBEAT_S = 15.0  # the arena sends a Heartbeat after this long without a message
HELLO_TIMEOUT_S = 10.0  # a stream without its EnterHello by then ends
MAX_CAPACITY = 16
BOTS_PER_KEY = 20  # bots one host key may register (the default)
STATES = {
    "playing": arena_pb2.ARENA_MATCH_STATE_PLAYING,
    "rated": arena_pb2.ARENA_MATCH_STATE_RATED,
    "void": arena_pb2.ARENA_MATCH_STATE_VOID,
}


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    def __init__(
        self,
        arena: Arena,
        store: ArenaStore,
        lobby: Lobby,
        host_keys: HostKeyStore | None,
        ranked_after: int = RANKED_AFTER,
        bots_per_key: int = BOTS_PER_KEY,
    ) -> None:
        self.arena = arena
        self.store = store
        self.lobby = lobby
        self.host_keys = host_keys  # None: local access, anyone registers
        self.ranked_after = ranked_after
        self.bots_per_key = bots_per_key  # 0: no limit
        # the last answer and the board revision it was made of: the histories only ever gain
        # points the board already holds, so one board revision has one answer, and a
        # reader's refresh costs one read instead of one per entrant
        self._leaderboard: tuple[int, arena_pb2.GetLeaderboardResponse] | None = None

    @grpc_errors
    async def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: GrpcContext
    ) -> arena_pb2.RegisterBotResponse:
        owner = await self._owner(context)
        record, key = new_bot(request.name, request.description, owner)
        if owner and self.bots_per_key:
            owned = sum(1 for bot in await self.store.bots() if bot.owner == owner)
            if owned >= self.bots_per_key:
                raise ServiceError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"this host key registered {owned} bots, its limit (quota arena_bots = "
                    f"{self.bots_per_key}); ask the operator for more",
                    "QUOTA_EXCEEDED",
                    {"quota": "arena_bots", "limit": str(self.bots_per_key)},
                )
        await self.store.register(record)
        log.info("registered bot %s (%s) for %s", record.bot_id, record.name, owner or "local")
        return arena_pb2.RegisterBotResponse(bot_id=record.bot_id, bot_key=key)

    async def _owner(self, context: GrpcContext) -> str:
        """The host key id of the caller ("" in local access mode)."""
        if self.host_keys is None:
            return ""
        sent = [v for k, v in context.invocation_metadata() or () if k == HOST_KEY_METADATA]
        key = sent[0] if sent and isinstance(sent[0], str) else ""
        if not key:
            raise ServiceError(
                grpc.StatusCode.UNAUTHENTICATED,
                f"registering a bot needs a host key in the {HOST_KEY_METADATA!r} metadata "
                "(FRONTIER_HOST_KEY for the CLI)",
                "HOST_KEY_REQUIRED",
            )
        record = await self.host_keys.check(key)
        if record is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "the host key is not one this server issued, or it was revoked",
                "UNKNOWN_HOST_KEY",
            )
        return record.key_id

    async def Enter(
        self, requests: AsyncIterator[arena_pb2.EnterRequest], context: GrpcContext
    ) -> AsyncIterator[arena_pb2.EnterResponse]:
        with metrics.enter_stream("hello"):
            try:
                bot, capacity = await self._hello(requests)
            except Exception as exc:
                metrics.entered(welcomed=False)
                await abort(context, exc)
        metrics.entered(welcomed=True)
        presence = self.lobby.enter(bot.bot_id, bot.name, capacity, self.arena.playing(bot.bot_id))
        log.info("bot %s (%s) entered, %d matches", bot.bot_id, bot.name, capacity)
        reader = asyncio.create_task(self._read(requests, presence))
        open_streams = metrics.ENTER_STREAMS.labels("entered")
        open_streams.inc()
        try:
            yield arena_pb2.EnterResponse(
                welcome=arena_pb2.EnterWelcome(bot_id=bot.bot_id, name=bot.name)
            )
            while not presence.closed:
                presence.wake.clear()
                while presence.outbox:
                    yield presence.outbox.popleft()
                try:
                    await asyncio.wait_for(presence.wake.wait(), HEARTBEAT_S)
                except TimeoutError:
                    yield arena_pb2.EnterResponse(heartbeat=arena_pb2.ArenaHeartbeat())
        finally:
            open_streams.dec()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            gone = self.lobby.leave(presence)
            if gone:
                log.info("bot %s left %d matches in play", bot.bot_id, len(gone))
                await self.arena.left(bot.bot_id, gone)

    async def _hello(
        self, requests: AsyncIterator[arena_pb2.EnterRequest]
    ) -> tuple[BotRecord, int]:
        """The bot of the stream's first message, and its capacity."""
        try:
            first = await asyncio.wait_for(anext(requests), HELLO_TIMEOUT_S)
        except (TimeoutError, StopAsyncIteration):
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"an Enter stream starts with EnterHello within {HELLO_TIMEOUT_S:g} s",
                "BAD_ENTRY",
                {FIELD: "hello"},
            ) from None
        if first.WhichOneof("message") != "hello":
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "the first message of an Enter stream is EnterHello",
                "BAD_ENTRY",
                {FIELD: "hello"},
            )
        hello = first.hello
        if not 1 <= hello.capacity <= MAX_CAPACITY:
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"capacity is 1 to {MAX_CAPACITY} matches at once, not {hello.capacity}",
                "BAD_ENTRY",
                {FIELD: "hello.capacity"},
            )
        if not hello.bot_key:
            raise ServiceError(
                grpc.StatusCode.UNAUTHENTICATED,
                "EnterHello.bot_key is empty: send the key RegisterBot returned",
                "UNKNOWN_BOT_KEY",
                {FIELD: "hello.bot_key"},
            )
        bot = await self.store.check_key(hello.bot_key)
        if bot is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "the bot key is not one this arena issued",
                "UNKNOWN_BOT_KEY",
                {FIELD: "hello.bot_key"},
            )
        if not hello.whole_teams:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "every arena match seats a bot's whole team: three SeatAssignments of one "
                "match, each played on its own BotService stream; set EnterHello.whole_teams "
                "once the bot plays them",
                "WHOLE_TEAMS_REQUIRED",
                {FIELD: "hello.whole_teams"},
            )
        return bot, hello.capacity

    async def _read(
        self, requests: AsyncIterator[arena_pb2.EnterRequest], presence: Presence
    ) -> None:
        try:
            async for request in requests:
                which = request.WhichOneof("message")
                if which == "heartbeat":
                    presence.push(arena_pb2.EnterResponse(heartbeat=arena_pb2.ArenaHeartbeat()))
                elif which == "seat_done":
                    if request.seat_done.leaving:
                        presence.leaving = True
                    self.lobby.release(presence.bot_id, request.seat_done.match_id)
                # a later EnterHello or an empty message: ignored
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a broken stream ends this stream only
            log.debug("enter stream of %s ended: %s", presence.bot_id, exc)
        finally:
            presence.close()

    @grpc_errors
    async def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: GrpcContext
    ) -> arena_pb2.GetLeaderboardResponse:
        board, revision = await self.store.board()
        cached = self._leaderboard
        if cached is not None and cached[0] == revision:
            return cached[1]
        reply = leaderboard_message(board, self.ranked_after, await self.store.histories(board))
        self._leaderboard = (revision, reply)
        return reply

    @grpc_errors
    async def GetArenaStatus(
        self, request: arena_pb2.GetArenaStatusRequest, context: GrpcContext
    ) -> arena_pb2.GetArenaStatusResponse:
        bots = [
            arena_pb2.PresentBot(
                bot_id=p.bot_id,
                name=p.name,
                capacity=p.capacity,
                seats_in_play=self.arena.seats_in_play(p.bot_id),
            )
            for p in self.lobby.present()
        ]
        matches = [match_message(m) for m in self.arena.in_play.values()]
        return arena_pb2.GetArenaStatusResponse(bots=bots, matches_in_play=matches)


def skill_message(skill: Skill) -> arena_pb2.SkillRating:
    return arena_pb2.SkillRating(
        mu=skill.mu, sigma=skill.sigma, ordinal=skill.ordinal, matches=skill.matches
    )


def point_message(point: RatingPoint) -> arena_pb2.RatingPoint:
    return arena_pb2.RatingPoint(
        sequence=point.sequence,
        match_id=point.match_id,
        finished_unix_ms=point.finished_unix_ms,
        mu=point.mu,
        sigma=point.sigma,
        ordinal=point.ordinal,
    )


def entry_message(
    entrant: EntrantRecord, ranked_after: int, history: list[RatingPoint] | None = None
) -> arena_pb2.LeaderboardEntry:
    return arena_pb2.LeaderboardEntry(
        bot_id=entrant.bot_id,
        name=entrant.name,
        rating=skill_message(entrant.skill),
        matches_played=entrant.played,
        ranked=entrant.played >= ranked_after,
        factions=[
            arena_pb2.FactionRating(faction=f, rating=skill_message(s))
            for f, s in sorted(entrant.factions.items())
        ],
        matches_left=entrant.left,
        builtin=entrant.builtin,
        history=[point_message(p) for p in history or ()],
    )


def match_message(match: MatchResult) -> arena_pb2.ArenaMatch:
    return arena_pb2.ArenaMatch(
        match_id=match.match_id,
        lineup=match.lineup,
        seats=[
            arena_pb2.ArenaSeat(
                seat=types_pb2.Seat.ValueType(enum_to_proto(Seat(s.seat))),
                bot_id=s.bot_id,
                name=s.name,
                faction=s.faction,
                left=s.left,
            )
            for s in match.seats
        ],
        state=STATES.get(match.state, arena_pb2.ARENA_MATCH_STATE_UNSPECIFIED),
        winner=match.winner,
        score_a=match.score_a,
        score_b=match.score_b,
        finished_unix_ms=match.finished_unix_ms,
        sequence=match.sequence,
    )


def leaderboard_message(
    board: Board, ranked_after: int, histories: dict[str, list[RatingPoint]] | None = None
) -> arena_pb2.GetLeaderboardResponse:
    """The board as GetLeaderboard answers it; ``histories`` each entrant's rating points."""
    found = histories or {}
    return arena_pb2.GetLeaderboardResponse(
        entries=[
            entry_message(e, ranked_after, found.get(e.bot_id)) for e in board.ranked(ranked_after)
        ],
        recent_matches=[match_message(m) for m in board.recent],
        ranked_after=ranked_after,
    )
