"""The arena's loop: seat the bots present in new matches, watch each match to its end,
put its result on the board.

Matches are created through the server's MatchService under the arena's own host key:
an outside bot's seat is HELD (its token goes to the bot in a SeatAssignment), a built-in
entrant's or a filler's is a BOT seat (the server plays it).  The arena watches a match as
a spectator (WatchEvents, GetView and GetMatchInfo with no token), so it keeps no seat's
token and no host token: after a restart it watches its matches in play again from their
records alone.

What cannot be rated is recorded as void: an abandoned match, a match the server no longer
knows.  A CreateMatch whose outcome is unknown (the call timed out) leaves no record: if
the server did create the match, nobody plays its held seats and the server's takeover
finishes it, unrated.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass, field

import grpc

from frontier.engine import Seat
from frontier.runtime.settings import host_key_metadata
from frontier.v1 import arena_pb2, match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import enum_from_proto, enum_to_proto

from . import metrics
from .lobby import Lobby
from .ratings import Board, MatchResult, SeatResult
from .scheduler import (
    FILLER_BOT,
    Entrant,
    MatchPlan,
    builtin_entrant,
    count_match,
    plan_match,
)
from .store import ArenaStore

log = logging.getLogger("frontier.arena")
CALL_TIMEOUT_S = 10.0
FINISHED = frozenset({"A", "B", "draw"})


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """How the arena plays: the server it uses, its entrants and each match's settings."""

    orchestrator_address: str  # where the arena calls MatchService
    advertised_address: str  # the orchestrator address a SeatAssignment names
    host_key: str = ""  # the arena's host key ("" on a server in local access mode)
    builtins: tuple[str, ...] = ("random", "greedy", "search")
    seed: int = 0
    max_rounds: int = 0  # 0: the full match
    max_matches: int = 2  # matches in play at once
    min_outside: int = 1  # outside bots with room before a match starts (none: the arena rests)
    # the match clock: without one a bot that leaves would hold its match for ever, with one
    # the server strikes its seat and its takeover plays on
    decision_budget_ms: int = 5000
    reserve_ms: int = 30000
    strike_limit: int = 3
    retry_s: float = 2.0  # wait after a failed call before trying again


@dataclass
class Arena:
    """The scheduler loop and the match watchers of one arena process."""

    config: ArenaConfig
    store: ArenaStore
    lobby: Lobby
    stub: match_pb2_grpc.MatchServiceAsyncStub
    in_play: dict[str, MatchResult] = field(default_factory=dict)
    history: dict[str, dict[str, int]] = field(default_factory=dict)
    index: int = 0
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def entrants(self) -> list[Entrant]:
        return [builtin_entrant(name) for name in self.config.builtins]

    async def resume(self) -> None:
        """Load the board's history and watch again the matches a previous run left."""
        board, _ = await self.store.board()
        self.history = history_of(board)
        self.index = len(board.applied)
        for record in await self.store.matches_in_play():
            if record.match_id in board.applied:
                await self.store.forget_match(record.match_id)  # counted before a crash
                continue
            self._count(record)
            self._watch(record)
        self.index += len(self.in_play)  # the next match is the one after all of these

    async def run(self, stop: asyncio.Event) -> None:
        """Seat the bots whenever one may play, until ``stop``."""
        while not stop.is_set():
            self.lobby.changed.clear()
            try:
                launched = await self.schedule()
            except Exception:  # NATS away, say: nothing is lost, the loop tries again
                log.exception("seating failed; again in %g s", self.config.retry_s)
                launched = False
            wait_s = None if launched else self.config.retry_s
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.lobby.changed.wait(), wait_s)

    async def schedule(self) -> bool:
        """Start matches while there is room and bots to seat; False after a failed
        CreateMatch (the loop tries again later)."""
        while len(self.in_play) < self.config.max_matches:
            plan = plan_match(
                self.lobby.free_entrants(),
                self.entrants,
                self.history,
                self.config.seed,
                self.index,
                self.config.min_outside,
            )
            if plan is None:
                return True
            if not await self.launch(plan):
                return False
        return True

    async def launch(self, plan: MatchPlan) -> bool:
        """Create ``plan``'s match, record it, and send each outside bot its seat."""
        try:
            created = await self.stub.CreateMatch(
                create_request(plan, self.config),
                timeout=CALL_TIMEOUT_S,
                metadata=host_key_metadata(self.config.host_key),
            )
        except grpc.aio.AioRpcError as exc:
            log.warning("CreateMatch failed: %s %s", exc.code().name, exc.details())
            return False
        self.index += 1
        record = result_of(created.match_id, plan)
        metrics.match_started()
        await self.store.put_match(record)
        self._count(record)
        tokens = {enum_from_proto(Seat, t.seat): t.token for t in created.seats}
        for planned in plan.seats:
            entrant = planned.entrant
            if entrant is None or entrant.builtin:
                continue
            assignment = arena_pb2.SeatAssignment(
                match_id=created.match_id,
                seat=types_pb2.Seat.ValueType(enum_to_proto(planned.seat)),
                seat_token=tokens[planned.seat],
                orchestrator_address=self.config.advertised_address,
                lineup=plan.lineup,
            )
            if not self.lobby.assign(entrant.bot_id, assignment):
                await self.left(entrant.bot_id, {created.match_id})  # gone since the plan
        self._watch(record)
        log.info("match %s: %s", created.match_id, plan.lineup)
        return True

    def playing(self, bot_id: str) -> set[str]:
        """The matches in play in which ``bot_id`` has a seat."""
        return {
            match_id
            for match_id, record in self.in_play.items()
            if any(seat.bot_id == bot_id for seat in record.seats)
        }

    def seats_in_play(self, bot_id: str) -> int:
        """The seats ``bot_id`` plays in the matches in play.  The metrics' scrape thread calls
        it too: the table's values are copied first (one C call under the GIL), so a match
        starting or ending meanwhile cannot break the iteration."""
        return sum(s.bot_id == bot_id for r in list(self.in_play.values()) for s in r.seats)

    async def left(self, bot_id: str, match_ids: set[str]) -> None:
        """The bot left while playing ``match_ids``: its seats there are marked left (the
        server's takeover plays them to the end)."""
        for match_id in match_ids:
            record = self.in_play.get(match_id)
            if record is None:
                continue
            for seat in record.seats:
                if seat.bot_id == bot_id:
                    seat.left = True
            await self.store.put_match(record)

    def _count(self, record: MatchResult) -> None:
        self.in_play[record.match_id] = record
        count_match(self.history, [(s.bot_id, s.faction, s.seat[0]) for s in record.seats])

    def _watch(self, record: MatchResult) -> None:
        task = asyncio.create_task(self.watch(record), name=f"arena-watch-{record.match_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def watch(self, record: MatchResult) -> None:
        """Follow the match as a spectator until it ends, then record its result."""
        while True:
            try:
                call = self.stub.WatchEvents(match_pb2.WatchEventsRequest(match_id=record.match_id))
                async for _ in call:
                    pass  # the stream ends with the match; the outcome is read below
                done = await self.outcome(record)
            except grpc.aio.AioRpcError as exc:
                if exc.code() is grpc.StatusCode.NOT_FOUND:
                    record.state = "void"
                    done = True
                else:
                    log.info("watching %s: %s; again", record.match_id, exc.code().name)
                    done = False
            except Exception:  # an unreadable answer: the match stays watched
                log.exception("watching %s failed; again", record.match_id)
                done = False
            if done:
                break
            await asyncio.sleep(self.config.retry_s)
        await self.finish(record)

    async def outcome(self, record: MatchResult) -> bool:
        """Read a watched match's end into ``record``; False while it is still played."""
        reply = await self.stub.GetView(
            match_pb2.GetViewRequest(match_id=record.match_id), timeout=CALL_TIMEOUT_S
        )
        view = json.loads(reply.view.json) if reply.view.json else {}
        winner = str(view.get("winner") or "")
        if winner not in FINISHED:
            if view.get("end_reason"):  # ended without a winner: abandoned
                record.state = "void"
                return True
            return False
        scores = view.get("scores", {})
        record.state, record.winner = "rated", winner
        record.score_a, record.score_b = int(scores.get("A", 0)), int(scores.get("B", 0))
        info = await self.stub.GetMatchInfo(
            match_pb2.GetMatchInfoRequest(match_id=record.match_id), timeout=CALL_TIMEOUT_S
        )
        taken = {enum_from_proto(Seat, r.seat).value for r in info.seat_records if r.taken_over}
        struck = {enum_from_proto(Seat, r.seat).value for r in info.seat_records if r.strikes}
        for seat in record.seats:
            if not seat.bot_id or seat.builtin:
                continue
            if seat.seat in taken:
                seat.left = True
            elif seat.left and self.lobby.is_present(seat.bot_id) and seat.seat not in struck:
                # its stream broke, but it came back and played on.  Present again is not
                # enough: a bot whose process died and started anew enters again without its
                # old seats, which then miss deadlines until the match ends or the takeover
                seat.left = False
        return True

    async def finish(self, record: MatchResult) -> None:
        """Count the match on the board (once), free its bots' seats."""
        while True:
            try:
                counted = await self.store.record_result(record)
                break
            except Exception:  # NATS away: the result waits in memory until it is back
                log.exception("recording %s failed; again", record.match_id)
                await asyncio.sleep(self.config.retry_s)
        log.info("match %s %s (%s)", record.match_id, record.state, record.winner or "-")
        if counted:
            metrics.match_ended(record)
        else:
            log.info("match %s was on the board already", record.match_id)
        self.in_play.pop(record.match_id, None)
        for seat in record.seats:
            if seat.bot_id and not seat.builtin:
                self.lobby.release(seat.bot_id, record.match_id)
        self.lobby.changed.set()

    async def close(self) -> None:
        """Stop watching (the records stay: the next start watches again)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def create_request(plan: MatchPlan, config: ArenaConfig) -> match_pb2.CreateMatchRequest:
    """HELD seats for the outside bots, BOT seats for the built-ins and the fillers."""
    setup = []
    for planned in plan.seats:
        seat = types_pb2.Seat.ValueType(enum_to_proto(planned.seat))
        entrant = planned.entrant
        if entrant is not None and not entrant.builtin:
            setup.append(match_pb2.SeatSetup(seat=seat, mode=match_pb2.SEAT_MODE_HELD))
        else:
            bot = FILLER_BOT if entrant is None else entrant.builtin
            setup.append(match_pb2.SeatSetup(seat=seat, mode=match_pb2.SEAT_MODE_BOT, bot=bot))
    match_config = match_pb2.MatchConfig(
        seed=plan.seed,
        lineup=plan.lineup,
        max_rounds=config.max_rounds,
        decision_budget_ms=config.decision_budget_ms,
        reserve_ms=config.reserve_ms,
        strike_limit=config.strike_limit,
    )
    return match_pb2.CreateMatchRequest(config=match_config, seat_setup=setup)


def result_of(match_id: str, plan: MatchPlan) -> MatchResult:
    """The record of a new match of ``plan``, being played."""
    seats = [
        SeatResult(
            seat=p.seat.value,
            bot_id="" if p.entrant is None else p.entrant.bot_id,
            name=FILLER_BOT if p.entrant is None else p.entrant.name,
            faction=p.faction,
            builtin=p.entrant is None or bool(p.entrant.builtin),
        )
        for p in plan.seats
    ]
    return MatchResult(match_id=match_id, lineup=plan.lineup, seats=seats)


def history_of(board: Board) -> dict[str, dict[str, int]]:
    """The scheduler's history (factions and teams played, entrants met) from the board's
    counts."""
    history: dict[str, dict[str, int]] = {}
    for entrant in board.entrants.values():
        played = history.setdefault(entrant.bot_id, {})
        for faction, skill in entrant.factions.items():
            played[f"faction:{faction}"] = skill.matches
        for team, count in entrant.teams.items():
            played[f"team:{team}"] = count
        for other, count in entrant.met.items():
            played[f"met:{other}"] = count
    return history
