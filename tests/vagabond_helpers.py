"""Helpers for Vagabond tests: a setup with Vagabonds, and hand-built positions.

Positions are built like :mod:`tests.engine_helpers`: pieces move between a seat's supply and
the board and cards between the deck, the discard pile and hands, so counts stay those of a
real match.  A Vagabond's items are written directly as keys (``"sword"``,
``"boots/exhausted"``, ``"tea/damaged"``...), the form commands and events use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from frontier.engine import CommandKind, Seat, State, to_act
from frontier.engine.model import Item
from frontier.engine.vagabond_state import VagabondState, VItem, vstate
from tests.engine_helpers import (
    Pieces,
    clear_board,
    first_legal,
    lay_out,
    new_state,
    play,
    setup_seat,
    start_turn,
)

LINEUP = "A=marquise,,thief;B=marquise,,tinker"
A1, B1, A3, B3 = Seat.A1, Seat.B1, Seat.A3, Seat.B3
KEEP_A, KEEP_B = "autumn.hill", "winter.hedge"
PAWN_A, PAWN_B = "autumn.forest.n", "winter.forest.nw"
CREEK = "autumn.creek"  # rabbit, next to Hill and Quarry, in forest N
HILL = "autumn.hill"  # fox
BEACH = "autumn.beach"  # rabbit, with a ruin
QUARRY = "autumn.quarry"  # the top Border Bridge to winter.mound
MOUND = "winter.mound"


def fresh(seed: int = 0, lineup: str = LINEUP) -> State:
    return new_state(seed, lineup)


def vagabond_match(
    seed: int = 0, lineup: str = LINEUP, pawns: tuple[str, str] = (PAWN_A, PAWN_B)
) -> State:
    """A match after setup (keeps in Hill and Hedge, pawns in the given forests): round 1."""
    state = fresh(seed, lineup)
    setup_seat(state, KEEP_A)
    setup_seat(state, KEEP_B)
    for pawn in pawns:
        seat = to_act(state)
        assert seat is not None and state.step == "setup.pawn"
        play(state, first_legal(state, CommandKind.PLACE_PAWN, clearing=pawn))
    assert state.round == 1
    return state


def item(key: str) -> VItem:
    kind, *flags = key.split("/")
    return VItem(
        Item(kind),
        exhausted="exhausted" in flags,
        damaged="damaged" in flags,
        contraband="contraband" in flags,
    )


def set_vagabond(
    state: State,
    seat: Seat,
    location: str | None = None,
    items: Iterable[str] | None = None,
    **fields: Any,
) -> VagabondState:
    vs = vstate(state, seat)
    if location is not None:
        vs.location = location
    if items is not None:
        vs.items = [item(k) for k in items]
    for name, value in fields.items():
        setattr(vs, name, value)
    return vs


def set_vagabonds(state: State, vagabonds: Mapping[Seat, Mapping[str, Any]] | None) -> None:
    """Set each named Vagabond's fields (see :func:`set_vagabond`)."""
    for seat, values in (vagabonds or {}).items():
        set_vagabond(state, seat, **values)


def item_keys(state: State, seat: Seat) -> list[str]:
    return sorted(it.key for it in vstate(state, seat).items)


def vb_position(
    *,
    seed: int = 0,
    lineup: str = LINEUP,
    turn: Seat = A3,
    step: str = "daylight.actions",
    pieces: Pieces | None = None,
    hands: Mapping[Seat, Iterable[str]] | None = None,
    vagabonds: Mapping[Seat, Mapping[str, Any]] | None = None,
) -> State:
    """A round-1 position after setup: the board replaced by ``pieces``, hands by ``hands``
    (other hands emptied into the deck), and each named Vagabond's fields set (``location``,
    ``items`` as keys, ``relations``, ``explored``, ``quests_done``, ``legendary``)."""
    state = vagabond_match(seed, lineup)
    clear_board(state)
    lay_out(state, pieces, hands)
    set_vagabonds(state, vagabonds)
    start_turn(state, turn, step, 0)
    return state
