"""What an arena campaign checks once its matches are over, and how it shows the board.

The arena counts each match it ends on its board (frontier/arena/ratings.py): the board
lists the ids of the matches it counted (``Board.applied``, the latest 2000) and how many
(``Board.counted``), while the leaderboard's ``recent_matches`` shows only the latest 50,
each with its ``sequence`` among the counted matches.  The campaign polls the leaderboard
all through the run, so it has seen every counted match with its state, and reads the
board itself from the arena's KV bucket at the end.  :func:`audit` then holds these
against the orchestrator's own list of matches (the stack runs no other matches):

- every match the server created was counted by the arena once, and nothing else was;
- none is still being played;
- a rated match is one the server finished, with the same winner; a void one has a reason
  (the server abandoned it, or no longer knows it);
- the counted matches are numbered 1..N without a gap, and the leaderboard links the latest;
- every rated match's replay exports (``MatchService.ExportReplay``) as a JSON document.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import grpc

from frontier.arena.ratings import APPLIED_KEPT, RECENT_KEPT, Board
from frontier.v1 import arena_pb2, match_pb2, match_pb2_grpc

RATED = arena_pb2.ARENA_MATCH_STATE_RATED
VOID = arena_pb2.ARENA_MATCH_STATE_VOID
DEFAULT_BUILTINS = ("random", "greedy", "search")  # the arena's standing entrants
CALL_TIMEOUT_S = 30.0


@dataclass
class Audit:
    """The checks' findings: counts, the void matches' reasons, and every problem found."""

    created: int = 0  # matches the orchestrator knows
    counted: int = 0  # matches the arena counted
    rated: int = 0
    void: dict[str, str] = field(default_factory=dict)  # match id -> why it is void
    replays_exported: int = 0
    seats_taken_over: int = 0  # seats marked left (their bot left or was taken over)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def list_matches(stub: match_pb2_grpc.MatchServiceStub) -> dict[str, match_pb2.MatchSummary]:
    """Every match the orchestrator knows, page by page."""
    found: dict[str, match_pb2.MatchSummary] = {}
    token = ""
    while True:
        request = match_pb2.ListMatchesRequest(page_size=1000, page_token=token)
        page = stub.ListMatches(request, timeout=CALL_TIMEOUT_S)
        found.update((m.match_id, m) for m in page.matches)
        token = page.next_page_token
        if not token:
            return found


def audit(
    seen: dict[str, arena_pb2.ArenaMatch],
    board: Board,
    final: arena_pb2.GetLeaderboardResponse,
    server: dict[str, match_pb2.MatchSummary],
    stub: match_pb2_grpc.MatchServiceStub,
) -> Audit:
    """Check the arena's matches against the server's (see the module docstring)."""
    result = Audit(created=len(server), counted=board.counted)
    applied = board.applied
    problems = result.problems
    if len(set(applied)) != len(applied):
        problems.append("the board counts a match twice")
    if board.counted != len(applied) and len(applied) < APPLIED_KEPT:
        problems.append(f"the board counted {board.counted} matches but lists {len(applied)}")
    for match_id in sorted(set(server) - set(applied)):
        status = match_pb2.MatchStatus.Name(server[match_id].status)
        problems.append(f"match {match_id} ({status}) was created but never counted")
    for match_id in applied:
        _check_match(result, match_id, seen.get(match_id), server.get(match_id))
    sequences = sorted(seen[m].sequence for m in applied if m in seen)
    if sequences != list(range(board.counted - len(applied) + 1, board.counted + 1)):
        problems.append(f"the counted matches are not numbered 1..{board.counted} once each")
    latest = [m.match_id for m in final.recent_matches]
    if latest != list(reversed(applied))[:RECENT_KEPT]:
        problems.append("the leaderboard does not link the latest counted matches")
    for match_id in applied:
        if match_id in seen and seen[match_id].state == RATED:
            _export(result, stub, match_id)
    return result


def _check_match(
    result: Audit,
    match_id: str,
    match: arena_pb2.ArenaMatch | None,
    summary: match_pb2.MatchSummary | None,
) -> None:
    if match is None:
        result.problems.append(f"match {match_id} was counted but never shown on the board")
        return
    result.seats_taken_over += sum(1 for s in match.seats if s.left)
    if match.state == RATED:
        result.rated += 1
        if summary is None or summary.status != match_pb2.MATCH_STATUS_FINISHED:
            result.problems.append(f"match {match_id} is rated but the server did not finish it")
        elif summary.winner != match.winner:
            result.problems.append(f"match {match_id}: the board and the server disagree")
    elif match.state == VOID:
        if summary is None:
            result.void[match_id] = "no longer known to the server"
        elif summary.status == match_pb2.MATCH_STATUS_ABANDONED:
            result.void[match_id] = "abandoned by the server"
        else:
            status = match_pb2.MatchStatus.Name(summary.status)
            result.problems.append(f"match {match_id} is void but the server says {status}")
    else:
        result.problems.append(f"match {match_id} is counted but still {match.state}")


def _export(result: Audit, stub: match_pb2_grpc.MatchServiceStub, match_id: str) -> None:
    try:
        reply = stub.ExportReplay(
            match_pb2.ExportReplayRequest(match_id=match_id), timeout=CALL_TIMEOUT_S
        )
        document = json.loads(reply.json)
    except (grpc.RpcError, ValueError) as exc:
        result.problems.append(f"the replay of match {match_id} does not export: {exc}")
        return
    if not isinstance(document, dict) or not document:
        result.problems.append(f"the replay of match {match_id} is empty")
        return
    result.replays_exported += 1


# ----- the board as a report -----------------------------------------------------------------
def interval(entry: arena_pb2.LeaderboardEntry) -> tuple[float, float]:
    """``mu ± 2 sigma``: about 95 % of the arena's belief about the entrant's skill."""
    return entry.rating.mu - 2 * entry.rating.sigma, entry.rating.mu + 2 * entry.rating.sigma


def board_rows(board: arena_pb2.GetLeaderboardResponse) -> list[dict[str, object]]:
    """The board as plain rows: rank (0: unranked), name, mu, sigma, interval, matches."""
    rows: list[dict[str, object]] = []
    rank = 0
    for entry in board.entries:
        rank += int(entry.ranked)
        low, high = interval(entry)
        rows.append(
            {
                "rank": rank if entry.ranked else 0,
                "bot_id": entry.bot_id,
                "name": entry.name,
                "mu": round(entry.rating.mu, 2),
                "sigma": round(entry.rating.sigma, 2),
                "low": round(low, 2),
                "high": round(high, 2),
                "matches": entry.matches_played,
                "left": entry.matches_left,
                "ranked": entry.ranked,
            }
        )
    return rows


def builtin_overlaps(
    board: arena_pb2.GetLeaderboardResponse, builtins: Sequence[str] = DEFAULT_BUILTINS
) -> dict[str, bool]:
    """For each pair of the built-ins on the board (``builtins``, in that order): whether
    their ``mu ± 2 sigma`` intervals overlap (the arena cannot yet tell them apart)."""
    order = [f"builtin:{name}" for name in builtins]
    found = {e.bot_id: interval(e) for e in board.entries if e.bot_id in order}
    overlaps: dict[str, bool] = {}
    for a, b in combinations([b for b in order if b in found], 2):
        (low_a, high_a), (low_b, high_b) = found[a], found[b]
        pair = f"{a.removeprefix('builtin:')}/{b.removeprefix('builtin:')}"
        overlaps[pair] = low_a <= high_b and low_b <= high_a
    return overlaps


def board_table(board: arena_pb2.GetLeaderboardResponse) -> list[str]:
    """The board as a text table: rank, name, ``mu ± 2 sigma`` and its interval, matches."""
    lines = [f"{'#':>3}  {'name':14} {'mu ± 2 sigma':>14} {'interval':>17} {'matches':>7} left"]
    rank = 0
    for entry in board.entries:
        rank += int(entry.ranked)
        low, high = interval(entry)
        shown = f"{rank:>3}" if entry.ranked else "  -"
        rating = f"{entry.rating.mu:.2f} ± {2 * entry.rating.sigma:.2f}"
        span = f"[{low:.2f}, {high:.2f}]"
        lines.append(
            f"{shown}  {entry.name:14} {rating:>14} {span:>17} "
            f"{entry.matches_played:>7} {entry.matches_left:>4}"
        )
    return lines
