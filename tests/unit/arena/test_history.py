"""Rating over time: every rated match adds one point per rated entrant (its overall rating
just after), a match counted twice adds none, a void match none, each entrant keeps its
latest HISTORY_KEPT points, and a point survives a crash between the board's write and the
archive's."""

from __future__ import annotations

from typing import Any

import pytest

from frontier.arena.lobby import Lobby
from frontier.arena.ratings import (
    HISTORY_KEPT,
    Board,
    MatchResult,
    RatingPoint,
    SeatResult,
    apply_result,
    merge_points,
    points_of,
)
from frontier.arena.runner import Arena, ArenaConfig
from frontier.arena.service import ArenaServicer, leaderboard_message
from frontier.arena.store import ArenaStore
from frontier.v1 import arena_pb2

from .memory_kv import MemoryKV
from .test_service import Context

NOW_S = 1_700_000_000.5


def duel(match_id: str, winner: str = "A", state: str = "rated") -> MatchResult:
    """alpha (A1) against beta (B1), a filler on A2."""
    seats = [
        SeatResult(seat="A1", bot_id="alpha", name="alpha", faction="marquise"),
        SeatResult(seat="B1", bot_id="beta", name="beta", faction="eyrie"),
        SeatResult(seat="A2", bot_id="", name="greedy", faction="vagabond", builtin=True),
    ]
    return MatchResult(match_id=match_id, lineup="l", seats=seats, state=state, winner=winner)


@pytest.fixture
def kv() -> MemoryKV:
    return MemoryKV()


@pytest.fixture
def store(kv: MemoryKV) -> ArenaStore:
    return ArenaStore(kv.as_bucket(), clock=lambda: NOW_S)


def test_each_rated_match_adds_the_rating_after_it_and_a_void_one_adds_none():
    board = Board()
    for match in (duel("m1"), duel("m2", state="void", winner=""), duel("m3", winner="B")):
        board = apply_result(board, match) or board
    alpha = points_of(board, "alpha")
    assert [(p.match_id, p.sequence) for p in alpha] == [("m1", 1), ("m3", 3)]
    assert alpha[-1].mu == board.entrants["alpha"].skill.mu
    assert alpha[-1].sigma == board.entrants["alpha"].skill.sigma
    assert alpha[0].mu > alpha[1].mu  # won, then lost
    assert points_of(board, "") == [] and board.counted == 3


def test_a_match_counted_again_adds_no_point():
    once = apply_result(Board(), duel("m1"))
    assert once is not None
    assert apply_result(once, duel("m1")) is None
    assert len(points_of(once, "beta")) == 1


def test_merging_keeps_one_point_per_match_in_order_and_the_latest_only():
    def point(n: int, mu: float = 25.0) -> RatingPoint:
        return RatingPoint(sequence=n, match_id=f"m{n}", mu=mu, sigma=8.0)

    kept = [point(n) for n in range(1, 4)]
    merged = merge_points(kept, [point(3, mu=30.0), point(5), point(4)])
    assert [p.sequence for p in merged] == [1, 2, 3, 4, 5]
    assert merged[2].mu == 30.0  # the newer list's point for a match
    assert [p.sequence for p in merge_points(merged, [], limit=2)] == [4, 5]


async def test_a_result_recorded_twice_archives_one_stamped_point(store: ArenaStore):
    assert await store.record_result(duel("m1"))
    assert not await store.record_result(duel("m1"))  # again, as after a restart
    board, _ = await store.board()
    histories = await store.histories(board)
    assert [p.match_id for p in histories["alpha"]] == ["m1"]
    assert histories["beta"][0].finished_unix_ms == int(NOW_S * 1000)
    assert board.recent[0].finished_unix_ms == int(NOW_S * 1000)


async def test_each_entrant_keeps_its_latest_points_only(kv: MemoryKV, store: ArenaStore):
    total = HISTORY_KEPT + 60  # more than the board's recent matches hold, too
    for n in range(1, total + 1):
        await store.record_result(duel(f"m{n}", winner="AB"[n % 2]))
    board, _ = await store.board()
    alpha = (await store.histories(board))["alpha"]
    assert len(alpha) == HISTORY_KEPT
    assert [p.sequence for p in alpha] == list(range(total - HISTORY_KEPT + 1, total + 1))
    assert alpha[-1].mu == board.entrants["alpha"].skill.mu
    assert "history.alpha" in kv.values


async def test_a_crash_before_the_archive_keeps_the_point(
    kv: MemoryKV, store: ArenaStore, monkeypatch: pytest.MonkeyPatch
):
    archive = store.archive

    async def crash(board: Board, bot_ids: list[str]) -> None:
        raise ConnectionError("NATS went away")

    monkeypatch.setattr(store, "archive", crash)
    with pytest.raises(ConnectionError):
        await store.record_result(duel("m1"))
    assert "history.alpha" not in kv.values
    board, _ = await store.board()
    assert [p.match_id for p in (await store.histories(board))["alpha"]] == ["m1"]
    monkeypatch.setattr(store, "archive", archive)
    assert not await store.record_result(duel("m1"))  # the retry finds it counted
    assert "history.alpha" in kv.values and "history.beta" in kv.values
    assert [p.match_id for p in (await store.histories(board))["beta"]] == ["m1"]


async def test_a_builtin_entrant_has_a_history_key_too(kv: MemoryKV, store: ArenaStore):
    match = duel("m1")
    match.seats[2] = SeatResult(
        seat="A2", bot_id="builtin:greedy", name="greedy", faction="vagabond", builtin=True
    )
    await store.record_result(match)
    assert "history.builtin.greedy" in kv.values


async def test_the_leaderboard_carries_each_entrants_history(store: ArenaStore):
    for n in (1, 2):
        await store.record_result(duel(f"m{n}"))
    board, _ = await store.board()
    reply = leaderboard_message(board, 10, await store.histories(board))
    alpha = next(e for e in reply.entries if e.bot_id == "alpha")
    assert [p.match_id for p in alpha.history] == ["m1", "m2"]
    assert alpha.history[-1].ordinal == pytest.approx(alpha.rating.ordinal)
    assert [m.sequence for m in reply.recent_matches] == [2, 1]
    assert reply.recent_matches[0].finished_unix_ms == int(NOW_S * 1000)


class CountingKV(MemoryKV):
    """Counts the reads, to see what one GetLeaderboard costs."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def get(self, key: str) -> Any:
        self.reads += 1
        return await super().get(key)


async def test_one_board_revision_is_read_once_per_answer_and_a_new_result_shows():
    kv = CountingKV()
    store = ArenaStore(kv.as_bucket(), clock=lambda: NOW_S)
    lobby = Lobby()
    arena = Arena(ArenaConfig("127.0.0.1:1", "127.0.0.1:1"), store, lobby, stub=None)  # type: ignore[arg-type]
    service = ArenaServicer(arena, store, lobby, None)
    request, context = arena_pb2.GetLeaderboardRequest(), Context()
    await store.record_result(duel("m1"))
    first = await service.GetLeaderboard(request, context)
    kv.reads = 0
    assert await service.GetLeaderboard(request, context) == first
    assert kv.reads == 1  # the board only: its histories are those of the last answer
    await store.record_result(duel("m2", winner="B"))
    later = await service.GetLeaderboard(request, context)
    alpha = next(e for e in later.entries if e.bot_id == "alpha")
    assert [p.match_id for p in alpha.history] == ["m1", "m2"]


def test_a_board_stored_before_counting_numbers_on_from_its_ids():
    old = Board(applied=["m1", "m2", "m3"])
    new = apply_result(old, duel("m4"))
    assert new is not None and new.counted == 4 and new.recent[0].sequence == 4
