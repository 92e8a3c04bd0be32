"""Movement (base Root §4) and the Border Bridges' fees (R6, R7, R8)."""

from __future__ import annotations

from frontier.engine import Command, CommandKind, EventKind, IllegalCommand, Seat, State
from frontier.engine.model import Faction
from frontier.engine.movement import fee_recipient
from frontier.engine.state import SeatSpec
from tests.engine_helpers import (
    CARD_OF,
    A,
    B,
    assert_conserved,
    assert_refused,
    card_not_matching,
    kinds_of,
    legal_of,
    play,
    position,
)

QUARRY, MOUND = "autumn.quarry", "winter.mound"
WEALD, SPIRE = "autumn.weald", "winter.spire"


def _at_the_bridge(hand: list[str], mound_b: int = 0, quarry_a: int = 3) -> State:
    pieces = {QUARRY: {A: {"warrior": quarry_a}}}
    if mound_b:
        pieces[MOUND] = {B: {"warrior": mound_b}}
    return position(pieces=pieces, hands={A: hand})


def test_base_move_needs_rule_of_origin_or_destination() -> None:
    state = position(
        pieces={
            "autumn.creek": {A: {"warrior": 1}, B: {"warrior": 1}},
            "autumn.hill": {B: {"warrior": 2}},
            "autumn.beach": {A: {"warrior": 2}},
        }
    )
    moves = {(c.clearing, c.to) for c in legal_of(state, CommandKind.MARCH)}
    assert ("autumn.creek", "autumn.hill") not in moves  # neither ruled by A
    assert ("autumn.creek", "autumn.quarry") not in moves  # creek tied, quarry empty
    assert ("autumn.beach", "autumn.hill") in moves  # A rules the origin
    assert_refused(
        state,
        Command(CommandKind.MARCH, A, clearing="autumn.creek", to="autumn.hill", count=1),
        IllegalCommand,
        match="autumn.creek",
    )


def test_base_move_any_number_of_warriors_to_an_adjacent_clearing_only() -> None:
    state = position(pieces={"autumn.creek": {A: {"warrior": 3}}})
    counts = {c.count for c in legal_of(state, CommandKind.MARCH) if c.to == "autumn.hill"}
    assert counts == {1, 2, 3}
    assert_refused(
        state,
        Command(CommandKind.MARCH, A, clearing="autumn.creek", to="autumn.dune", count=1),
        IllegalCommand,
    )
    assert_refused(
        state,
        Command(CommandKind.MARCH, A, clearing="autumn.creek", to="autumn.hill", count=4),
        IllegalCommand,
    )


def test_R7_bridge_crossing_costs_a_card_matching_the_destination() -> None:
    state = _at_the_bridge([])
    suit = state.suits[MOUND]
    set_cards = [CARD_OF[suit], card_not_matching(suit), CARD_OF["bird"]]
    state = _at_the_bridge(set_cards)
    crossing = [c for c in legal_of(state, CommandKind.MARCH) if c.to == MOUND]
    assert {c.cards for c in crossing} == {(CARD_OF[suit],), (CARD_OF["bird"],)}  # birds wild
    # a non-matching card cannot pay
    assert_refused(
        state,
        Command(CommandKind.MARCH, A, clearing=QUARRY, to=MOUND, count=2, cards=(set_cards[1],)),
        IllegalCommand,
        match="cannot be used",
    )
    # the crossing without a fee is refused too
    assert_refused(
        state, Command(CommandKind.MARCH, A, clearing=QUARRY, to=MOUND, count=2), IllegalCommand
    )
    events = play(
        state,
        Command(CommandKind.MARCH, A, clearing=QUARRY, to=MOUND, count=2, cards=(CARD_OF[suit],)),
    )
    assert kinds_of(events)[:4] == [
        "actions_changed",
        "bridge_crossed",
        "cards_discarded",
        "pieces_moved",
    ]
    assert state.discard == [CARD_OF[suit]]
    assert state.pieces[MOUND][A]["warrior"] == 2
    assert_conserved(state)


def test_R7_no_payable_card_means_no_crossing() -> None:
    state = _at_the_bridge([])
    state = _at_the_bridge([card_not_matching(state.suits[MOUND])])
    assert not [c for c in legal_of(state, CommandKind.MARCH) if c.to == MOUND]
    assert [c for c in legal_of(state, CommandKind.MARCH) if c.to == "autumn.creek"]


def test_R7_the_bottom_bridge_costs_a_fee_in_both_directions() -> None:
    state = position(pieces={SPIRE: {A: {"warrior": 2}}}, hands={A: [CARD_OF["rabbit"]]})
    # autumn.weald is a rabbit clearing: a rabbit card pays the way back
    back = [c for c in legal_of(state, CommandKind.MARCH) if c.to == WEALD]
    assert back and all(c.cards == (CARD_OF["rabbit"],) for c in back)


def test_R8_fee_goes_to_rival_seat_with_most_warriors_when_rival_rules_with_five() -> None:
    probe = _at_the_bridge([])
    fee = CARD_OF[probe.suits[MOUND]]
    state = _at_the_bridge([fee], mound_b=5, quarry_a=3)
    events = play(
        state, Command(CommandKind.MARCH, A, clearing=QUARRY, to=MOUND, count=1, cards=(fee,))
    )
    crossed = next(e for e in events if e.kind is EventKind.BRIDGE_CROSSED)
    assert crossed.target == "B1"
    given = next(e for e in events if e.kind is EventKind.CARD_GIVEN)
    assert (given.seat, given.target, given.cards) == ("A1", "B1", (fee,))
    assert fee in state.seats[B].hand and fee not in state.discard
    assert_conserved(state)


def test_R8_fee_is_discarded_with_fewer_than_five_rival_warriors() -> None:
    probe = _at_the_bridge([])
    fee = CARD_OF[probe.suits[MOUND]]
    state = _at_the_bridge([fee], mound_b=4, quarry_a=3)
    play(state, Command(CommandKind.MARCH, A, clearing=QUARRY, to=MOUND, count=1, cards=(fee,)))
    assert state.discard == [fee] and fee not in state.seats[B].hand


def test_R8_fee_is_discarded_when_the_rival_does_not_rule_the_destination() -> None:
    probe = _at_the_bridge([])
    fee = CARD_OF[probe.suits[MOUND]]
    state = position(
        pieces={QUARRY: {A: {"warrior": 3}}, MOUND: {A: {"warrior": 6}, B: {"warrior": 5}}},
        hands={A: [fee]},
    )
    play(state, Command(CommandKind.MARCH, A, clearing=QUARRY, to=MOUND, count=1, cards=(fee,)))
    assert state.discard == [fee]


def test_R8_recipient_is_the_rival_seat_with_most_warriors_ties_earliest_in_turn_order() -> None:
    state = position()
    state.lineup[Seat.B2] = SeatSpec(Faction.ALLIANCE)
    state.pieces[MOUND] = {B: {"warrior": 2}, Seat.B2: {"warrior": 3}}
    assert fee_recipient(state, A, MOUND) is Seat.B2  # 5 combined, B2 has the most
    state.pieces[MOUND] = {B: {"warrior": 3}, Seat.B2: {"warrior": 3}}
    assert fee_recipient(state, A, MOUND) is B  # tie: B1 plays before B2
    state.pieces[MOUND] = {B: {"warrior": 2}, Seat.B2: {"warrior": 2}}
    assert fee_recipient(state, A, MOUND) is None  # only 4 combined
    # a rival's own crossing into its home: the rival is team A here
    state.pieces[QUARRY] = {A: {"warrior": 5}}
    assert fee_recipient(state, B, QUARRY) is A
    assert fee_recipient(state, Seat.B2, QUARRY) is A
