"""Helpers for Eyrie tests: a setup with Eyries, and hand-built positions with a Decree.

Positions are built conservatively, like :mod:`tests.engine_helpers`: pieces move between a
seat's supply and the board, cards between the deck, the discard pile, hands, play areas and
the Decree, so the piece and card counts of a position stay those of a real match.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from frontier.engine import Command, CommandKind, Event, Seat, State
from frontier.engine.board import board
from frontier.engine.factions.eyrie_board import (
    COLUMNS,
    LEADERS,
    VIZIER_COLUMNS,
    VIZIERS,
    EyrieState,
    eyrie,
)
from frontier.engine.factions.eyrie_decree import resolved_key
from frontier.engine.model import Suit
from tests.engine_helpers import (
    Pieces,
    clear_pieces,
    first_legal,
    lay_out,
    legal_of,
    new_state,
    play,
    setup_seat,
    start_turn,
    take_card,
)

LINEUP = "A=marquise,eyrie;B=marquise,eyrie"
A1, B1, A2, B2 = Seat.A1, Seat.B1, Seat.A2, Seat.B2
KEEP_A, KEEP_B = "autumn.hill", "winter.hedge"
ROOST_A, ROOST_B = "autumn.weald", "winter.mound"  # the corners opposite those keeps (R12)
MOUNTAIN, WEALD, QUARRY, BEACH = "autumn.mountain", "autumn.weald", "autumn.quarry", "autumn.beach"
CREEK, HAVEN, POND, MEADOW = "autumn.creek", "autumn.haven", "autumn.pond", "autumn.meadow"
MOUND, WATERFALL = "winter.mound", "autumn.waterfall"
FOX, RABBIT, MOUSE, BIRD = "anvil", "bake_sale", "investments", "crossbow_bird"
BIRD2 = "ambush_bird.1"


def winter_clearing(state: State, suit: str) -> str:
    """The first Winter clearing of ``suit`` (Winter suits are seeded, R5)."""
    return next(c for c in board().on_map("winter") if state.suits[c] == suit)


def mark_resolved(state: State, column: str, suit: str = "bird", n: int = 1) -> None:
    """Mark Decree cards as already resolved this Daylight (earlier columns of a position)."""
    state.used[resolved_key(column, Suit(suit))] = n


def fresh(seed: int = 0, lineup: str = LINEUP) -> State:
    return new_state(seed, lineup)


def setup_eyrie(state: State, leader: str = "commander") -> list[Event]:
    """The Eyrie to act places its roost in its only (or first) corner and picks ``leader``."""
    events = play(state, first_legal(state, CommandKind.PLACE_ROOST))
    events += play(state, first_legal(state, CommandKind.CHOOSE_LEADER, piece=leader))
    return events


def eyrie_match(
    seed: int = 0, leaders: tuple[str, str] = ("commander", "commander"), lineup: str = LINEUP
) -> State:
    """A match after setup (keeps in Hill and Hedge, roosts opposite): round 1, A1 to act."""
    state = fresh(seed, lineup)
    setup_seat(state, KEEP_A)
    setup_seat(state, KEEP_B)
    eyries = [s for s in (A2, B2) if s in state.seats]
    for seat, leader in zip(eyries, leaders, strict=False):
        assert state.turn_seat is seat
        setup_eyrie(state, leader)
    assert state.round == 1
    return state


def set_leader(state: State, seat: Seat, leader: str) -> None:
    """Make ``leader`` the leader (the others face up) and tuck the viziers for it."""
    ey = eyrie(state, seat)
    ey.leader = leader
    ey.candidates = [x for x in LEADERS if x != leader]
    ey.deposed = []
    for column in COLUMNS:
        ey.decree[column] = [e for e in ey.decree[column] if e not in VIZIERS]
    for vizier, column in zip(VIZIERS, VIZIER_COLUMNS[leader], strict=True):
        ey.decree[column].append(vizier)


def set_decree(state: State, seat: Seat, cards: Mapping[str, Iterable[str]]) -> None:
    """Replace the non-vizier Decree cards: ``cards`` maps column -> card ids (from anywhere)."""
    ey = eyrie(state, seat)
    for column in COLUMNS:
        old = [e for e in ey.decree[column] if e not in VIZIERS]
        state.deck[:0] = old
        ey.decree[column] = [e for e in ey.decree[column] if e in VIZIERS]
    for column, ids in cards.items():
        for cid in ids:
            take_card(state, cid)
            ey.decree[column].append(cid)


def eyrie_position(
    *,
    seed: int = 0,
    turn: Seat = A2,
    step: str = "daylight.decree",
    round_no: int = 3,  # past Imperial Isolation (R24) unless a test asks for it
    leader: str = "commander",
    decree: Mapping[str, Iterable[str]] | None = None,
    pieces: Pieces | None = None,
    hands: Mapping[Seat, Iterable[str]] | None = None,
    in_play: Mapping[Seat, Iterable[str]] | None = None,
    lineup: str = LINEUP,
) -> State:
    """A position after setup with the board replaced by ``pieces`` (all from the supply),
    the named hands (other hands emptied), the Eyrie ``turn``'s leader and Decree set."""
    state = eyrie_match(seed, lineup=lineup)
    clear_pieces(state)
    lay_out(state, pieces, hands, in_play)
    if isinstance(state.seats[turn].extra, EyrieState):
        set_leader(state, turn, leader)
        set_decree(state, turn, decree or {})
    state.round = round_no
    start_turn(state, turn, step, 0)
    return state


def commands_of(state: State, seat: Seat, kind: CommandKind) -> list[Command]:
    return legal_of(state, kind, seat)


def all_cards_with_decree(state: State) -> list[str]:
    """Every card of the match wherever it is, the Decree included (viziers excluded)."""
    cards = [*state.deck, *state.discard]
    for st in state.seats.values():
        cards += st.hand + st.play_area
        if isinstance(st.extra, EyrieState):
            cards += [e for col in COLUMNS for e in st.extra.decree[col] if e not in VIZIERS]
    return cards


def find(events: Iterable[Event], kind: Any) -> list[Event]:
    return [e for e in events if e.kind is kind]
