"""Queries over the pieces on the board: counts, buildings, open slots and team ruling (R13).

Everything here is a pure read of the state; rules code asks these questions constantly,
so they stay small and allocation-free where it matters.
"""

from __future__ import annotations

from .board import board
from .model import TEAM_OF, Faction, Seat, Team
from .state import State
from .vagabond_state import pawn_places

WARRIOR = "warrior"
SAWMILL = "sawmill"
WORKSHOP = "workshop"
RECRUITER = "recruiter"
WOOD = "wood"
KEEP = "keep"
ROOST = "roost"
SYMPATHY = "sympathy"
BASES = ("base_fox", "base_rabbit", "base_mouse")

MARQUISE_BUILDINGS = (SAWMILL, WORKSHOP, RECRUITER)
BUILDINGS = frozenset((SAWMILL, WORKSHOP, RECRUITER, ROOST, *BASES))
TOKENS = frozenset((WOOD, KEEP, SYMPATHY))
RULE_PIECES = BUILDINGS | {WARRIOR}  # what counts for rule (R13): warriors and buildings


def count(state: State, clearing: str, seat: Seat, piece: str) -> int:
    return state.pieces[clearing].get(seat, {}).get(piece, 0)


def warriors(state: State, clearing: str, seat: Seat) -> int:
    return state.pieces[clearing].get(seat, {}).get(WARRIOR, 0)


def has_any_piece(state: State, clearing: str, seat: Seat) -> bool:
    kinds = state.pieces[clearing].get(seat)
    if kinds:
        for n in kinds.values():
            if n > 0:
                return True
    return False


def open_slots(state: State, clearing: str) -> int:
    """Free slots = slots - buildings - (1 while a ruin still stands there)."""
    free = board().clearings[clearing].slots
    if state.ruins.get(clearing):
        free -= 1
    for kinds in state.pieces[clearing].values():
        for kind, n in kinds.items():
            if kind in BUILDINGS:
                free -= n
    return free


def ruler(state: State, clearing: str) -> Team | None:
    """R13: the team whose warriors + buildings sum higher rules; on a tie, a team with an
    Eyrie piece there rules (Lords of the Forest), otherwise nobody."""
    return _ruler_of(state, state.pieces[clearing])


def rulers(state: State) -> dict[str, Team | None]:
    """The ruler of every clearing at once.

    Legal-command enumeration asks "who rules here?" hundreds of times per command; one
    pass per enumeration is far cheaper than recounting each clearing on every question.
    """
    # The count of :func:`_ruler_of` inlined (no call per clearing): this runs once per
    # enumeration of most steps, so it is one of the hottest loops of the engine.
    out: dict[str, Team | None] = {}
    team_a, team_b = Team.A, Team.B  # locals: an enum member lookup costs a dict miss
    for clearing, per_seat in state.pieces.items():
        a = b = 0
        for seat, kinds in per_seat.items():
            n = 0
            for kind, k in kinds.items():
                if kind in RULE_PIECES:
                    n += k
            if TEAM_OF[seat] is team_a:
                a += n
            else:
                b += n
        if a > b:
            out[clearing] = team_a
        elif b > a:
            out[clearing] = team_b
        elif a == 0:
            out[clearing] = None
        else:
            out[clearing] = _lords_of_the_forest(state, per_seat)
    return out


def _ruler_of(state: State, per_seat: dict[Seat, dict[str, int]]) -> Team | None:
    a = b = 0
    for seat, kinds in per_seat.items():
        n = 0
        for kind, k in kinds.items():
            if kind in RULE_PIECES:
                n += k
        if TEAM_OF[seat] is Team.A:
            a += n
        else:
            b += n
    if a > b:
        return Team.A
    if b > a:
        return Team.B
    if a == 0:
        return None
    return _lords_of_the_forest(state, per_seat)


def _lords_of_the_forest(state: State, per_seat: dict[Seat, dict[str, int]]) -> Team | None:
    """A tie with pieces on both sides: the team with an Eyrie piece there rules, unless both
    or neither has one.  Kept apart from the count because ties are rare."""
    eyrie_a = eyrie_b = False
    for seat, kinds in per_seat.items():
        if state.lineup[seat].faction is not Faction.EYRIE:
            continue
        # An Eyrie's only counted pieces are warriors and roosts: any means a piece there.
        if any(k for kind, k in kinds.items() if kind in RULE_PIECES):
            if TEAM_OF[seat] is Team.A:
                eyrie_a = True
            else:
                eyrie_b = True
    if eyrie_a == eyrie_b:
        return None
    return Team.A if eyrie_a else Team.B


def rules(state: State, clearing: str, seat: Seat) -> bool:
    """Both team members count as ruling a clearing their team rules (R13)."""
    return ruler(state, clearing) is seat.team


def keep_clearing(state: State, seat: Seat) -> str | None:
    for clearing, per_seat in state.pieces.items():
        if per_seat.get(seat, {}).get(KEEP, 0):
            return clearing
    return None


def blocked_by_keep(state: State, clearing: str, seat: Seat) -> bool:
    """Only the Marquise that owns a keep may place pieces in its clearing."""
    for owner, kinds in state.pieces[clearing].items():
        if owner is not seat and kinds.get(KEEP, 0):
            return True
    return False


def enemies_with_pieces(
    state: State, clearing: str, seat: Seat, pawns: list[tuple[Seat, str]] | None = None
) -> list[Seat]:
    """Rival seats with a piece in ``clearing``; a Vagabond pawn there is a piece too.

    ``pawns`` is :func:`pawn_places` of ``state`` when the caller asks about many clearings.
    """
    team = TEAM_OF[seat]
    out: list[Seat] = []
    for s, kinds in state.pieces[clearing].items():
        if TEAM_OF[s] is not team:
            for n in kinds.values():
                if n > 0:
                    out.append(s)
                    break
    for s, where in pawns if pawns is not None else pawn_places(state):
        if where == clearing and TEAM_OF[s] is not team and s not in out:
            out.append(s)
    return out


def clearings_with(state: State, seat: Seat, piece: str) -> list[str]:
    pieces = state.pieces
    out: list[str] = []
    for c in board().order:
        kinds = pieces[c].get(seat)
        if kinds and kinds.get(piece, 0):
            out.append(c)
    return out


def warriors_on_board(state: State, team: Team) -> int:
    return sum(
        kinds.get(WARRIOR, 0)
        for per_seat in state.pieces.values()
        for seat, kinds in per_seat.items()
        if seat.team is team
    )


def clearings_ruled(state: State, team: Team) -> int:
    return sum(1 for c in board().order if ruler(state, c) is team)
