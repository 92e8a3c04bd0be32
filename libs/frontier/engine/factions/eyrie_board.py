"""The Eyrie's faction board (base Root §10): leaders and their Loyal Viziers, the Decree's
columns, the roost track, the per-seat :class:`EyrieState`, and how the Eyrie's own event
kinds change it.

The Loyal Viziers are not deck cards: they are two permanent bird entries of the Decree
(``loyal_vizier.1`` / ``.2``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cards import card
from ..errors import CorruptEvent
from ..model import Event, EventKind, Seat, Suit
from ..pieces import (
    ROOST,
)
from ..state import SeatSpec, State

# ----- constants (base Root §10, root_data.json factions.eyrie) ---------------------------

BUILDER = "builder"
CHARISMATIC = "charismatic"
COMMANDER = "commander"
DESPOT = "despot"
LEADERS: tuple[str, ...] = (BUILDER, CHARISMATIC, COMMANDER, DESPOT)

RECRUIT = "recruit"
MOVE = "move"
BATTLE = "battle"
BUILD = "build"
COLUMNS: tuple[str, ...] = (RECRUIT, MOVE, BATTLE, BUILD)

VIZIERS: tuple[str, str] = ("loyal_vizier.1", "loyal_vizier.2")
VIZIER_COLUMNS: dict[str, tuple[str, str]] = {
    BUILDER: (RECRUIT, MOVE),
    CHARISMATIC: (RECRUIT, BATTLE),
    COMMANDER: (MOVE, BATTLE),
    DESPOT: (MOVE, BUILD),
}

WARRIORS = 20
ROOSTS = 7
SETUP_WARRIORS = 6
NEW_ROOST_WARRIORS = 3
ROOST_VP = (0, 0, 1, 2, 3, 4, 4, 5)  # Evening VP by roosts on the map
DRAW_BONUS_AT = (3, 6)  # roosts on the map that uncover an Evening draw bonus
MAX_ADDED = 2  # cards added to the Decree per Birdsong
ISOLATION_ROUNDS = 2  # R24: Imperial Isolation in rounds 1 and 2

# per-turn counters (state.used)
ADDED = "decree_added"
ADDED_BIRD = "decree_added_bird"
LEADER_DECISION = "eyrie_leader"
DESPOT_EFFECT = "despot"

# ----- faction state -----------------------------------------------------------------------


@dataclass(slots=True)
class EyrieState:
    """The leader, the face-up candidates, the deposed leaders and the Decree (all public)."""

    leader: str = ""
    candidates: list[str] = field(default_factory=lambda: list(LEADERS))  # face up
    deposed: list[str] = field(default_factory=list)  # face down
    decree: dict[str, list[str]] = field(default_factory=lambda: {c: [] for c in COLUMNS})

    def clone(self) -> EyrieState:
        return EyrieState(
            self.leader,
            list(self.candidates),
            list(self.deposed),
            {c: list(entries) for c, entries in self.decree.items()},
        )

    def public_view(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "candidates": list(self.candidates),
            "deposed": list(self.deposed),
            "decree": {c: list(self.decree[c]) for c in COLUMNS},
        }

    def private_view(self) -> dict[str, Any]:
        return {}  # nothing of the Eyrie's own data is secret (the hand is not part of it)


def new_state(spec: SeatSpec) -> EyrieState:
    return EyrieState()


def eyrie(state: State, seat: Seat) -> EyrieState:
    extra = state.seats[seat].extra
    if not isinstance(extra, EyrieState):
        raise CorruptEvent(f"{seat.value} is not an Eyrie seat")
    return extra


def is_vizier(entry: str) -> bool:
    return entry in VIZIERS


def entry_suit(entry: str) -> Suit:
    return Suit.BIRD if is_vizier(entry) else card(entry).suit


def leader_of(state: State, seat: Seat) -> str:
    """The seat's Eyrie leader, or '' for any other faction (or between leaders)."""
    extra = state.seats[seat].extra
    return extra.leader if isinstance(extra, EyrieState) else ""


def roosts_on_map(state: State, seat: Seat) -> int:
    return ROOSTS - state.seats[seat].supply.get(ROOST, 0)


# ----- evolve -----------------------------------------------------------------------------------


def _leader_chosen(state: State, e: Event) -> None:
    ey = eyrie(state, Seat(e.seat))
    if e.piece not in ey.candidates:
        raise CorruptEvent(f"leader {e.piece} is not face up")
    ey.candidates.remove(e.piece)
    ey.leader = e.piece
    for column in COLUMNS:  # (re)tuck the viziers as the new leader requires
        ey.decree[column] = [x for x in ey.decree[column] if not is_vizier(x)]
    for vizier, column in zip(VIZIERS, VIZIER_COLUMNS[e.piece], strict=True):
        ey.decree[column].append(vizier)


def _leader_deposed(state: State, e: Event) -> None:
    ey = eyrie(state, Seat(e.seat))
    if ey.leader != e.piece:
        raise CorruptEvent(f"{e.piece} is not the leader")
    ey.deposed.append(ey.leader)
    ey.leader = ""
    if not ey.candidates:  # a new clutch: all four face up again
        ey.candidates = list(LEADERS)
        ey.deposed = []


def _decree_added(state: State, e: Event) -> None:
    seat = Seat(e.seat)
    cid = e.cards[0]
    hand = state.seats[seat].hand
    if cid not in hand:
        raise CorruptEvent(f"{seat.value} does not hold {cid}")
    hand.remove(cid)
    eyrie(state, seat).decree[e.piece].append(cid)


def _decree_purged(state: State, e: Event) -> None:
    ey = eyrie(state, Seat(e.seat))
    for cid in e.cards:
        for column in COLUMNS:
            if cid in ey.decree[column]:
                ey.decree[column].remove(cid)
                break
        else:
            raise CorruptEvent(f"{cid} is not on the Decree")
        state.discard.append(cid)


def _noop(state: State, e: Event) -> None:
    return None


EVOLVE = {
    EventKind.LEADER_CHOSEN: _leader_chosen,
    EventKind.LEADER_DEPOSED: _leader_deposed,
    EventKind.DECREE_ADDED: _decree_added,
    EventKind.DECREE_PURGED: _decree_purged,
    EventKind.DECREE_CARD_SKIPPED: _noop,
    EventKind.TURMOIL: _noop,
}
