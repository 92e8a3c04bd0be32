"""Helpers for contraband tests (R16-R21, R26): hand-built positions with the default lineup.

Positions are built conservatively, like :mod:`tests.engine_helpers`: pieces move between a
seat's supply and the board, cards between the deck, hands, play areas, the Decree and the
supporters, and contraband items come out of the stock of the map they were crafted on (the
crafter's rival map), so :func:`tests.engine_helpers.assert_items_conserved` holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from frontier.engine import CommandKind, Event, EventKind, Seat, State, Team, evolve, to_act
from frontier.engine.board import AUTUMN, HOME_MAP, WINTER, board
from frontier.engine.hashing import state_hash
from frontier.engine.model import Item, other_team
from frontier.engine.state import DroppedItem
from frontier.engine.sympathy import AllianceState
from frontier.engine.vagabond_state import VItem, vstate
from tests.alliance_helpers import add_officers, set_supporters
from tests.engine_helpers import (
    CARD_OF,
    Pieces,
    clear_pieces,
    first_legal,
    item_locations,
    lay_out,
    new_state,
    play,
    setup_seat,
    start_turn,
)
from tests.eyrie_helpers import set_decree, set_leader
from tests.vagabond_helpers import set_vagabonds

LINEUP = "A=marquise,eyrie,thief;B=marquise,alliance,tinker"  # R2's default
A1, B1, A2, B2, A3, B3 = Seat.A1, Seat.B1, Seat.A2, Seat.B2, Seat.A3, Seat.B3
KEEP_A, KEEP_B = "autumn.hill", "winter.hedge"
PAWN_A, PAWN_B = "autumn.forest.n", "winter.forest.nw"
QUARRY, MOUND = "autumn.quarry", "winter.mound"  # the top Border Bridge (R6)
WEALD, SPIRE = "autumn.weald", "winter.spire"  # the bottom Border Bridge


def full_match(seed: int = 0) -> State:
    """The default lineup after setup: keeps in Hill and Hedge, A's roost opposite its keep,
    the pawns in the given forests; round 1, A1 to act."""
    state = new_state(seed, LINEUP)
    setup_seat(state, KEEP_A)
    setup_seat(state, KEEP_B)
    play(state, first_legal(state, CommandKind.PLACE_ROOST))
    play(state, first_legal(state, CommandKind.CHOOSE_LEADER, piece="commander"))
    for pawn in (PAWN_A, PAWN_B):
        assert state.step == "setup.pawn"
        play(state, first_legal(state, CommandKind.PLACE_PAWN, clearing=pawn))
    assert state.round == 1 and to_act(state) is A1
    return state


def _take_from_stock(state: State, crafter: Seat, item: Item) -> DroppedItem:
    """A contraband item of ``crafter``: out of its rival map's stock (R16)."""
    stock = state.stock[HOME_MAP[other_team(crafter.team)]]
    assert stock[item] > 0, f"no {item} left in the stock"
    stock[item] -= 1
    return DroppedItem(item, crafter.team, crafter)


def drop(state: State, clearing: str, item: Item, crafter: Seat) -> None:
    """An item of ``crafter`` lying in ``clearing``."""
    state.dropped.setdefault(clearing, []).append(_take_from_stock(state, crafter, item))


def carry(state: State, clearing: str, carrier: Seat, item: Item, crafter: Seat) -> None:
    """An item of ``crafter`` carried by ``carrier``'s warriors in ``clearing``."""
    found = _take_from_stock(state, crafter, item)
    state.carried.setdefault(clearing, {}).setdefault(carrier, []).append(found)


def satchel(state: State, vagabond: Seat, item: Item, crafter: Seat) -> None:
    """An item of ``crafter``'s team picked up by its ``vagabond``: contraband in the Satchel."""
    found = _take_from_stock(state, crafter, item)
    vstate(state, vagabond).items.append(VItem(item, contraband=True, crafter=found.crafter.value))


def full_position(
    *,
    seed: int = 0,
    turn: Seat = A1,
    step: str = "daylight.actions",
    actions: int = 0,
    round_no: int = 1,
    pieces: Pieces | None = None,
    hands: Mapping[Seat, Iterable[str]] | None = None,
    in_play: Mapping[Seat, Iterable[str]] | None = None,
    decree: Mapping[str, Iterable[str]] | None = None,
    leader: str = "commander",
    officers: Mapping[Seat, int] | None = None,
    vagabonds: Mapping[Seat, Mapping[str, Any]] | None = None,
) -> State:
    """A position of the default lineup with the board replaced by ``pieces`` (every piece
    from its owner's supply), the named hands (other hands emptied into the deck), A2's
    leader and Decree, B2's officers (no supporters) and the Vagabonds' fields."""
    state = full_match(seed)
    clear_pieces(state)
    for seat in state.order:
        if isinstance(state.seats[seat].extra, AllianceState):
            set_supporters(state, seat, ())
    lay_out(state, pieces, hands, in_play)
    set_leader(state, A2, leader)
    set_decree(state, A2, decree or {})
    add_officers(state, officers)
    set_vagabonds(state, vagabonds)
    state.round = round_no
    start_turn(state, turn, step, actions)
    return state


def suit(state: State, clearing: str) -> str:
    return state.suits[clearing]


HAMMER_A1 = DroppedItem(Item.HAMMER, Team.A, A1)


def winter_of(suit_name: str) -> list[str]:
    """Winter clearings of ``suit_name`` in the seed-0 matches these tests build (R5)."""
    probe = full_match()
    return [c for c in board().on_map(WINTER) if probe.suits[c] == suit_name]


def autumn_of(suit_name: str) -> list[str]:
    probe = full_match()
    return [c for c in board().on_map(AUTUMN) if probe.suits[c] == suit_name]


def fee(state: State, dest: str) -> str:
    """A plain card paying the bridge fee into ``dest`` (R7)."""
    return CARD_OF[suit(state, dest)]


def of_kind(events: list[Event], kind: EventKind) -> list[Event]:
    return [e for e in events if e.kind is kind]


def item_count(state: State) -> int:
    """Every item on the table (Vagabond positions set items by hand, so tests compare)."""
    return sum(item_locations(state).values())


def assert_folds(before: State, events: list[Event], after: State) -> None:
    for event in events:
        evolve(before, event)
    assert state_hash(before) == state_hash(after)
