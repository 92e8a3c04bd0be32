"""The arena's board: ratings with uncertainty per entrant and per entrant x faction, and
the record of which matches were rated.

Pure data and functions (no I/O): :func:`apply_result` takes a board and one match's
result and returns the new board, or None when that match was rated before.  The board
itself carries the ids of the matches it counts (the latest :data:`APPLIED_KEPT`), so the
arena stores the rating and the "rated" mark in one write and a match is never rated twice,
whatever crashes between watching its end and storing the board (see store.py).

Rating over time: the board numbers the matches it counts (``Board.counted``) and each
recent match keeps every rated entrant's overall rating just after it (``MatchResult.after``).
From those, :func:`points_of` reads an entrant's latest :class:`RatingPoint`; the store
archives them per entrant (the latest :data:`HISTORY_KEPT`), merged by match id with
:func:`merge_points`, so writing a point twice keeps one.

Ratings are openskill's Plackett-Luce model, team-aware: a match is two teams ranked by
the result (a draw ranks them equal).  For the overall rating a team is its entrant, one
player however many seats it plays; for the ratings per faction it is its seats, one player
per entrant x faction.  A filler (the server's bot, no entrant) plays with the rating of
that bot's standing entrant (``builtin:<bot>``) when the board has one, and that rating is
not moved by the filler; with no such entrant, a fresh rating that is never stored.  Why:
the filler is that very bot, whose strength the board knows; a fresh rating (an
uncertainty of 25/3, four times a rated entrant's) would say "this team could be anyone",
and openskill then credits each result less to the rated entrant.  A bot that left a match
before its end is rated by the match's result all the same: leaving does not avoid a loss.
"""

from __future__ import annotations

from collections.abc import Callable

from openskill.models import PlackettLuce
from pydantic import BaseModel, Field

from .scheduler import builtin_entrant

APPLIED_KEPT = 2000  # match ids the board remembers as rated (far more than ever in flight)
RECENT_KEPT = 50  # finished matches the leaderboard lists
RANKED_AFTER = 10  # rated matches before an entrant is ranked (the default)
HISTORY_KEPT = 200  # rating points kept per entrant (its latest rated matches)

_MODEL = PlackettLuce()


class Skill(BaseModel):
    """One rating: openskill's mean and uncertainty, and the matches it counts."""

    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma
    matches: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative rating (mean minus three uncertainties) the board ranks by."""
        return self.mu - 3 * self.sigma


class EntrantRecord(BaseModel):
    """An entrant's standing on the board."""

    bot_id: str
    name: str
    builtin: bool = False
    skill: Skill = Field(default_factory=Skill)
    factions: dict[str, Skill] = Field(default_factory=dict)
    played: int = 0
    left: int = 0  # matches it left before their end
    teams: dict[str, int] = Field(default_factory=dict)  # "A"/"B" -> matches played there
    met: dict[str, int] = Field(default_factory=dict)  # entrant id -> matches against it


class SeatResult(BaseModel):
    """Who played one seat of a match (``bot_id`` "": a filler) and whether it left."""

    seat: str
    bot_id: str
    name: str
    faction: str
    builtin: bool = False
    left: bool = False


class MatchResult(BaseModel):
    """One arena match as the board records it.  ``state``: "playing", "rated" or "void"
    (ended without a result to rate); ``winner``: "A", "B", "draw" or ""."""

    match_id: str
    lineup: str
    seats: list[SeatResult]
    state: str = "playing"
    winner: str = ""
    score_a: int = 0
    score_b: int = 0
    finished_unix_ms: int = 0  # when the arena counted it (0 while playing)
    sequence: int = 0  # its number among the matches the board counted (0 while playing)
    after: dict[str, Skill] = Field(default_factory=dict)  # bot id -> rating after it


class RatingPoint(BaseModel):
    """An entrant's overall rating just after one rated match."""

    sequence: int
    match_id: str
    finished_unix_ms: int = 0
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


class Board(BaseModel):
    """Every entrant's standing, the recent matches (newest first), the rated ids and how
    many matches it counted."""

    entrants: dict[str, EntrantRecord] = Field(default_factory=dict)
    recent: list[MatchResult] = Field(default_factory=list)
    applied: list[str] = Field(default_factory=list)
    counted: int = 0

    def ranked(self, ranked_after: int = RANKED_AFTER) -> list[EntrantRecord]:
        """The entrants in board order: ranked ones first, each group by conservative
        rating, best first (then by name, for a stable order)."""
        return sorted(
            self.entrants.values(),
            key=lambda e: (e.played < ranked_after, -e.skill.ordinal, e.name),
        )


def ranks_of(winner: str) -> list[int]:
    """openskill's ranks of [team A, team B] (lower is better) for a winner."""
    if winner == "A":
        return [1, 2]
    if winner == "B":
        return [2, 1]
    if winner == "draw":
        return [1, 1]
    raise ValueError(f"a rated match has winner A, B or draw, not {winner!r}")


def apply_result(board: Board, result: MatchResult) -> Board | None:
    """The board with ``result`` counted (a copy), or None if ``result.match_id`` was
    counted already.  A "void" result is listed but changes no rating; a "rated" one
    updates every entrant's overall and faction ratings, played and left counts."""
    if result.match_id in board.applied:
        return None
    new = board.model_copy(deep=True)
    # a board stored before it counted its matches starts from the ids it remembers
    new.counted = max(new.counted, len(new.applied)) + 1
    counted = result.model_copy(deep=True, update={"sequence": new.counted, "after": {}})
    if counted.state == "rated":
        _rate(new, counted)
    elif counted.state != "void":
        raise ValueError(f"only a rated or void match goes on the board, not {result.state!r}")
    new.applied = [*new.applied, result.match_id][-APPLIED_KEPT:]
    new.recent = [counted, *new.recent][:RECENT_KEPT]
    return new


def points_of(board: Board, bot_id: str) -> list[RatingPoint]:
    """``bot_id``'s rating points of the board's recent matches, oldest first."""
    return [
        RatingPoint(
            sequence=m.sequence,
            match_id=m.match_id,
            finished_unix_ms=m.finished_unix_ms,
            mu=m.after[bot_id].mu,
            sigma=m.after[bot_id].sigma,
        )
        for m in reversed(board.recent)
        if bot_id in m.after
    ]


def merge_points(
    kept: list[RatingPoint], new: list[RatingPoint], limit: int = HISTORY_KEPT
) -> list[RatingPoint]:
    """``kept`` and ``new`` as one history: one point per match (the newer list's), in the
    board's order, the latest ``limit``."""
    by_match = {p.match_id: p for p in kept}
    by_match.update((p.match_id, p) for p in new)
    return sorted(by_match.values(), key=lambda p: p.sequence)[-limit:]


def _rate(board: Board, result: MatchResult) -> None:
    ranks = ranks_of(result.winner)
    by_entrant: dict[str, list[SeatResult]] = {}
    for seat in result.seats:
        if seat.bot_id:
            by_entrant.setdefault(seat.bot_id, []).append(seat)
    side = {bot_id: seats[0].seat[0] for bot_id, seats in by_entrant.items()}
    if any(s.seat[0] != side[bot_id] for bot_id, seats in by_entrant.items() for s in seats):
        raise ValueError(f"an entrant plays on both teams of match {result.match_id}")
    for bot_id, seats in by_entrant.items():
        entrant = board.entrants.setdefault(
            bot_id, EntrantRecord(bot_id=bot_id, name=seats[0].name, builtin=seats[0].builtin)
        )
        entrant.name = seats[0].name
    overall = _update(result, ranks, lambda s: (_key(s), _standing(board, s).skill))
    per_faction = _update(
        result,
        ranks,
        lambda s: ((*_key(s), s.faction), _standing(board, s).factions.get(s.faction, Skill())),
    )
    for bot_id, seats in by_entrant.items():
        entrant = board.entrants[bot_id]
        entrant.skill = overall[(bot_id,)]
        result.after[bot_id] = overall[(bot_id,)]
        for seat in seats:
            entrant.factions[seat.faction] = per_faction[(bot_id, seat.faction)]
        entrant.played += 1
        entrant.left += int(any(s.left for s in seats))
        team = side[bot_id]
        entrant.teams[team] = entrant.teams.get(team, 0) + 1
        for other, other_team in side.items():
            if other_team != team:
                entrant.met[other] = entrant.met.get(other, 0) + 1


def _key(seat: SeatResult) -> tuple[str, ...]:
    """Who a seat is in the rating update: its entrant, or (a filler) its bot."""
    return (seat.bot_id,) if seat.bot_id else ("", seat.name)


def _standing(board: Board, seat: SeatResult) -> EntrantRecord:
    """Whose rating a seat plays with: its entrant's, or a filler's bot's standing entrant's
    (a fresh record when the board has none; see the module docstring)."""
    bot_id = seat.bot_id or builtin_entrant(seat.name).bot_id
    return board.entrants.get(bot_id) or EntrantRecord(bot_id=bot_id, name=seat.name)


def _update(
    result: MatchResult,
    ranks: list[int],
    player_of: Callable[[SeatResult], tuple[tuple[str, ...], Skill]],
) -> dict[tuple[str, ...], Skill]:
    """One openskill update of both teams; the new skill of each rated player.  A team's
    players are the distinct keys ``player_of`` gives its seats: one entrant playing all
    three seats is one player (its overall rating) or three (one per faction)."""
    teams: list[dict[tuple[str, ...], Skill]] = [{}, {}]
    for seat in result.seats:
        key, skill = player_of(seat)
        teams[0 if seat.seat.startswith("A") else 1].setdefault(key, skill)
    if not teams[0] or not teams[1]:
        raise ValueError(f"match {result.match_id} lacks a team")
    rated = _MODEL.rate(
        [[_MODEL.rating(mu=s.mu, sigma=s.sigma) for s in team.values()] for team in teams],
        ranks=[float(r) for r in ranks],
    )
    new: dict[tuple[str, ...], Skill] = {}
    for team, ratings in zip(teams, rated, strict=True):
        for (key, skill), rating in zip(team.items(), ratings, strict=True):
            if key[0]:  # an entrant's; a filler's rating is never moved
                new[key] = Skill(mu=rating.mu, sigma=rating.sigma, matches=skill.matches + 1)
    return new
