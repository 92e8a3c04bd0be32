"""Helpers for Woodland Alliance tests: a setup with Alliances, and hand-built positions.

Positions are built conservatively, like :mod:`tests.engine_helpers`: pieces move between a
seat's supply and the board, cards between the deck, the discard pile, hands, play areas and
the supporters, so the card and piece counts of a position stay those of a real match.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from frontier.engine import Event, EventKind, Seat, State
from frontier.engine.board import board
from frontier.engine.sympathy import AllianceState, alliance_state
from tests.engine_helpers import (
    Pieces,
    after_setup,
    clear_board,
    lay_out,
    new_state,
    put_in_play,
    start_turn,
    take_card,
)

LINEUP = "A=marquise,alliance;B=marquise,alliance"
A1, B1, A2, B2 = Seat.A1, Seat.B1, Seat.A2, Seat.B2
KEEP_A, KEEP_B = "autumn.hill", "winter.hedge"


def fresh(seed: int = 0, lineup: str = LINEUP) -> State:
    return new_state(seed, lineup)


def alliance_match(seed: int = 0, lineup: str = LINEUP) -> State:
    """A match after setup (keeps in Hill and Hedge): round 1, A1 to act."""
    return after_setup(seed, KEEP_A, KEEP_B, lineup=lineup)


def set_supporters(state: State, seat: Seat, cards: Iterable[str]) -> None:
    """Give ``seat``'s Alliance exactly ``cards`` as supporters (old ones go under the deck)."""
    st = alliance_state(state, seat)
    state.deck[:0] = st.supporters
    st.supporters = []
    for cid in cards:
        take_card(state, cid)
        st.supporters.append(cid)


def add_officers(state: State, officers: Mapping[Seat, int] | None) -> None:
    """Move ``n`` warriors of each named Alliance from its supply to its officers."""
    for seat, n in (officers or {}).items():
        state.seats[seat].supply["warrior"] -= n
        alliance_state(state, seat).officers += n


def alliance_position(
    *,
    seed: int = 0,
    lineup: str = LINEUP,
    turn: Seat = A2,
    step: str = "birdsong.actions",
    actions: int = 0,
    pieces: Pieces | None = None,
    hands: Mapping[Seat, Iterable[str]] | None = None,
    supporters: Mapping[Seat, Iterable[str]] | None = None,
    officers: Mapping[Seat, int] | None = None,
    in_play: Mapping[Seat, Iterable[str]] | None = None,
    rng_state: int | None = None,
) -> State:
    """A round-1 position after setup with the board replaced by ``pieces``.

    Every named piece comes from its owner's supply; ``officers`` come from the Alliance's
    supply of warriors.  Hands and supporters not named are emptied into the deck.
    """
    state = alliance_match(seed, lineup)
    clear_board(state)
    for st in state.seats.values():  # clear_board hands every seat a keep
        if st.faction.value != "marquise":
            st.supply.pop("keep", None)
    for seat in state.order:
        if isinstance(state.seats[seat].extra, AllianceState):
            set_supporters(state, seat, ())
            alliance_state(state, seat).officers = 0
    lay_out(state, pieces, hands)
    for seat, cards in (supporters or {}).items():
        set_supporters(state, seat, cards)
    add_officers(state, officers)
    for seat, cards in (in_play or {}).items():
        put_in_play(state, seat, *cards)
    start_turn(state, turn, step, actions)
    if rng_state is not None:
        state.rng = rng_state
    return state


def clearings_of_suit(state: State, map_name: str, suit: str) -> list[str]:
    return [c for c in board().on_map(map_name) if state.suits[c] == suit]


def sym(n: int = 1) -> dict[str, int]:
    return {"sympathy": n}


def kinds_of_seat(state: State, clearing: str, seat: Seat) -> dict[str, Any]:
    return {k: n for k, n in state.pieces[clearing].get(seat, {}).items() if n}


# One card of each suit (and spares), by printed suit.
SUIT_CARD = {"fox": "anvil", "rabbit": "a_visit_to_friends", "mouse": "mouse_in_a_sack"}
OTHER_CARD = {"fox": "smugglers_trail", "rabbit": "root_tea_mouse", "mouse": "travel_gear_fox"}
BIRD = "ambush_bird.1"


def events_of(events: list[Event], kind: EventKind) -> list[Event]:
    return [e for e in events if e.kind is kind]


def supporters_of(state: State, seat: Seat) -> list[str]:
    return alliance_state(state, seat).supporters


def turn_passed_to(events: list[Event], seat: Seat) -> bool:
    return any(e.kind is EventKind.TURN_STARTED and e.seat == seat.value for e in events)
