"""The campaign's checks (frontier.bench.campaign_audit) on made-up boards and server
lists: each kind of lost, doubled or unexportable match is reported, and a clean run has
no problem; the built-ins' intervals are compared pair by pair."""

from __future__ import annotations

import json
from typing import Any, cast

import grpc
import pytest

from frontier.arena.ratings import Board
from frontier.bench.campaign_audit import audit, board_table, builtin_overlaps
from frontier.v1 import arena_pb2, match_pb2, match_pb2_grpc

FINISHED = match_pb2.MATCH_STATUS_FINISHED
ABANDONED = match_pb2.MATCH_STATUS_ABANDONED


class Replays:
    """A MatchService whose ExportReplay answers for the ids it was given."""

    def __init__(self, exportable: set[str]) -> None:
        self.exportable = exportable
        self.asked: list[str] = []

    def ExportReplay(
        self, request: match_pb2.ExportReplayRequest, timeout: float
    ) -> match_pb2.ExportReplayResponse:
        self.asked.append(request.match_id)
        if request.match_id not in self.exportable:
            raise cast(grpc.RpcError, _NotFound())
        return match_pb2.ExportReplayResponse(json=json.dumps({"match_id": request.match_id}))


class _NotFound(grpc.RpcError):
    def __str__(self) -> str:
        return "NOT_FOUND"


def arena_match(match_id: str, sequence: int, state: str, winner: str = "A") -> Any:
    rated = state == "rated"
    return arena_pb2.ArenaMatch(
        match_id=match_id,
        sequence=sequence,
        state=arena_pb2.ARENA_MATCH_STATE_RATED if rated else arena_pb2.ARENA_MATCH_STATE_VOID,
        winner=winner if rated else "",
        seats=[arena_pb2.ArenaSeat(bot_id="b1", left=match_id == "m2")],
    )


def summary(match_id: str, status: int, winner: str = "A") -> match_pb2.MatchSummary:
    return match_pb2.MatchSummary(match_id=match_id, status=status, winner=winner)  # type: ignore[arg-type]


def run_audit(
    board: Board,
    seen: list[Any],
    server: list[match_pb2.MatchSummary],
    exportable: set[str] | None = None,
) -> tuple[list[str], Any, Replays]:
    final = arena_pb2.GetLeaderboardResponse(recent_matches=list(reversed(seen)))
    replays = Replays(exportable if exportable is not None else {m.match_id for m in seen})
    stub = cast(match_pb2_grpc.MatchServiceStub, replays)
    found = audit(
        {m.match_id: m for m in seen}, board, final, {s.match_id: s for s in server}, stub
    )
    return found.problems, found, replays


def clean() -> tuple[Board, list[Any], list[match_pb2.MatchSummary]]:
    board = Board(applied=["m1", "m2", "m3"], counted=3)
    seen = [
        arena_match("m1", 1, "rated"),
        arena_match("m2", 2, "rated"),
        arena_match("m3", 3, "void"),
    ]
    server = [summary("m1", FINISHED), summary("m2", FINISHED), summary("m3", ABANDONED, "")]
    return board, seen, server


def test_a_clean_run_has_no_problem_and_exports_every_rated_replay() -> None:
    problems, found, replays = run_audit(*clean())
    assert problems == []
    assert (found.created, found.counted, found.rated) == (3, 3, 2)
    assert found.void == {"m3": "abandoned by the server"}
    assert replays.asked == ["m1", "m2"] and found.replays_exported == 2
    assert found.seats_taken_over == 1


def test_a_match_the_server_created_but_the_arena_never_counted_is_lost() -> None:
    board, seen, server = clean()
    problems, _, _ = run_audit(board, seen, [*server, summary("m4", FINISHED)])
    assert problems == ["match m4 (MATCH_STATUS_FINISHED) was created but never counted"]


def test_a_match_counted_twice_is_reported() -> None:
    board, seen, server = clean()
    board = Board(applied=["m1", "m2", "m3", "m2"], counted=4)
    problems, _, _ = run_audit(board, seen, server)
    assert "the board counts a match twice" in problems


@pytest.mark.parametrize(
    ("server_status", "expected"),
    [
        (FINISHED, "match m3 is void but the server says MATCH_STATUS_FINISHED"),
        (None, None),  # unknown to the server: void with that reason
    ],
)
def test_a_void_match_needs_a_reason(server_status: int | None, expected: str | None) -> None:
    board, seen, server = clean()
    server = server[:2] + ([summary("m3", server_status)] if server_status else [])
    problems, found, _ = run_audit(board, seen, server)
    if expected is None:
        assert problems == [] and found.void == {"m3": "no longer known to the server"}
    else:
        assert problems == [expected]


def test_a_rated_match_the_server_did_not_finish_or_scored_otherwise_is_reported() -> None:
    board, seen, server = clean()
    server = [summary("m1", ABANDONED), summary("m2", FINISHED, "B"), server[2]]
    problems, _, _ = run_audit(board, seen, server)
    assert problems == [
        "match m1 is rated but the server did not finish it",
        "match m2: the board and the server disagree",
    ]


def test_a_gap_in_the_numbering_and_an_unseen_match_are_reported() -> None:
    board, seen, server = clean()
    problems, _, _ = run_audit(board, seen[:2], server)
    assert "match m3 was counted but never shown on the board" in problems
    assert "the counted matches are not numbered 1..3 once each" in problems


def test_a_replay_that_does_not_export_is_reported() -> None:
    problems, found, _ = run_audit(*clean(), exportable={"m1"})
    assert problems == ["the replay of match m2 does not export: NOT_FOUND"]
    assert found.replays_exported == 1


def entry(bot_id: str, mu: float, sigma: float) -> arena_pb2.LeaderboardEntry:
    return arena_pb2.LeaderboardEntry(
        bot_id=bot_id,
        name=bot_id.removeprefix("builtin:"),
        ranked=True,
        matches_played=12,
        rating=arena_pb2.SkillRating(mu=mu, sigma=sigma, ordinal=mu - 3 * sigma),
    )


def test_the_builtins_intervals_are_compared_pair_by_pair() -> None:
    board = arena_pb2.GetLeaderboardResponse(
        entries=[
            entry("builtin:search", 30.0, 1.0),  # [28, 32]
            entry("builtin:greedy", 25.0, 1.5),  # [22, 28]: touches search's
            entry("builtin:random", 18.0, 1.0),  # [16, 20]
            entry("abc", 40.0, 1.0),  # an outside bot is not compared
        ]
    )
    assert builtin_overlaps(board) == {
        "random/greedy": False,
        "random/search": False,
        "greedy/search": True,
    }
    halving = ("random", "greedy", "search-halving")
    assert builtin_overlaps(board, halving) == {"random/greedy": False}  # search is not one
    table = board_table(board)
    assert table[1].split()[:2] == ["1", "search"]
    assert "30.00 ± 2.00" in table[1] and "[28.00, 32.00]" in table[1]
