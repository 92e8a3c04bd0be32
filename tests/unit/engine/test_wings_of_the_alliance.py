"""R23 Wings of the Alliance: a teammate moving from or into a clearing with its team's Eyrie
roost pays no bridge fee and may leave the roost clearing even if the rival team rules it; at
the end of its turn it owes its Eyrie one card (any)."""

from __future__ import annotations

from frontier.engine import Command, CommandKind, EventKind, IllegalCommand, State
from frontier.engine.ctx import Ctx
from frontier.engine.movement import WINGS, WINGS_USED, ask_wings_card
from tests.engine_helpers import assert_refused, play
from tests.eyrie_helpers import A1, A2, B1, B2, commands_of, eyrie_position, find

QUARRY, MOUND, BEACH = "autumn.quarry", "winter.mound", "autumn.beach"
FOX, RABBIT, BIRD = "anvil", "bake_sale", "crossbow_bird"


def _marquise_at_roost(b1_warriors: int = 4, hand: tuple[str, ...] = (FOX,)) -> State:
    """A1 (Marquise) has 2 warriors in Quarry (a bridge end) where A2 has a roost and the
    rival team has ``b1_warriors`` warriors."""
    state = eyrie_position(
        turn=A1,
        step="daylight.actions",
        pieces={QUARRY: {A1: {"warrior": 2}, A2: {"roost": 1}, B1: {"warrior": b1_warriors}}},
        hands={A1: hand},
    )
    state.actions = 3
    return state


def _marches(state: State) -> list[Command]:
    return commands_of(state, A1, CommandKind.MARCH)


def test_R23_wings_no_fee_and_rival_ruled_exit() -> None:
    state = _marquise_at_roost()  # B rules Quarry 4 to 3; the Marquise rules no neighbour
    marches = _marches(state)
    assert marches, "the roost lets the Marquise leave a clearing the rival rules"
    assert all(c.piece == WINGS for c in marches)
    assert {(c.to, c.count) for c in marches} == {
        (to, n) for to in (BEACH, "autumn.creek", "autumn.mountain", MOUND) for n in (1, 2)
    }
    assert all(c.cards == () for c in marches)  # no fee, even across the bridge
    # without the wings the same move is refused (base §4 rule requirement)
    assert_refused(
        state,
        Command(CommandKind.MARCH, A1, clearing=QUARRY, to=BEACH, count=1),
        IllegalCommand,
    )
    hand_before = list(state.seats[A1].hand)
    events = play(
        state, Command(CommandKind.MARCH, A1, clearing=QUARRY, to=MOUND, count=2, piece=WINGS)
    )
    crossed = find(events, EventKind.BRIDGE_CROSSED)
    assert [(e.clearing, e.to, e.text) for e in crossed] == [(QUARRY, MOUND, WINGS)]
    assert not find(events, EventKind.CARDS_DISCARDED) and not find(events, EventKind.CARD_GIVEN)
    assert state.seats[A1].hand == hand_before
    assert state.pieces[MOUND][A1]["warrior"] == 2
    assert state.used.get(WINGS_USED) == 1


def test_R23_wings_into_a_roost_clearing_waives_the_fee_but_paying_stays_possible() -> None:
    state = eyrie_position(
        turn=A1,
        step="daylight.actions",
        pieces={MOUND: {A1: {"warrior": 1}}, QUARRY: {A2: {"roost": 1}}},
        hands={A1: [BIRD]},
    )
    state.actions = 3
    crossings = [c for c in _marches(state) if c.to == QUARRY]
    assert {(c.cards, c.piece) for c in crossings} == {((BIRD,), ""), ((), WINGS)}
    events = play(
        state, Command(CommandKind.MARCH, A1, clearing=MOUND, to=QUARRY, count=1, cards=(BIRD,))
    )
    assert find(events, EventKind.CARDS_DISCARDED)  # paying the fee is no flight: no debt
    assert not state.used.get(WINGS_USED)
    state.seats[A1].hand.append(state.deck.pop())  # a card it could give, were it owed
    events = play(state, Command(CommandKind.END_PHASE, A1))
    assert not [e for e in find(events, EventKind.DECISION_REQUESTED) if e.text == "feed_eyrie"]
    assert [e.seat for e in find(events, EventKind.TURN_STARTED)][:1] == ["B1"]


def test_R23_wings_only_offered_when_it_waives_something() -> None:
    # the team rules Quarry: a plain move from the roost clearing needs no wings
    state = _marquise_at_roost(b1_warriors=0, hand=(BIRD,))
    home_moves = [c for c in _marches(state) if c.to != MOUND]
    assert home_moves and all(c.piece == "" for c in home_moves)
    bridge = [c for c in _marches(state) if c.to == MOUND]
    assert {c.piece for c in bridge} == {"", WINGS}  # pay the fee, or fly for free


def test_R23_entering_a_roost_clearing_does_not_waive_the_rule_requirement() -> None:
    state = eyrie_position(
        turn=A1,
        step="daylight.actions",
        pieces={
            BEACH: {A1: {"warrior": 1}, B1: {"warrior": 2}},
            QUARRY: {A2: {"roost": 1}, B1: {"warrior": 3}},
        },
    )
    state.actions = 3
    assert not [c for c in _marches(state) if c.clearing == BEACH]


def test_R23_no_wings_for_the_eyrie_itself_nor_from_a_rival_roost() -> None:
    state = eyrie_position(
        leader="commander",  # a Move vizier (bird)
        pieces={QUARRY: {A2: {"roost": 1, "warrior": 1}, B1: {"warrior": 3}}},
    )
    assert not commands_of(state, A2, CommandKind.DECREE_MOVE)  # the Eyrie's own rule stands
    state = eyrie_position(
        turn=A1,
        step="daylight.actions",
        pieces={MOUND: {A1: {"warrior": 1}, B2: {"roost": 1}, B1: {"warrior": 2}}},
    )
    state.actions = 3
    assert not _marches(state)  # a rival Eyrie's roost gives A1 nothing


def test_R23_teammate_owes_eyrie_a_card_at_end_of_turn() -> None:
    state = _marquise_at_roost(hand=(FOX, RABBIT))
    play(state, Command(CommandKind.MARCH, A1, clearing=QUARRY, to=BEACH, count=1, piece=WINGS))
    creek = "autumn.creek"  # Beach is now ruled by the team; Creek still needs the wings
    play(state, Command(CommandKind.MARCH, A1, clearing=QUARRY, to=creek, count=1, piece=WINGS))
    assert state.used.get(WINGS_USED) == 2
    eyrie_hand = list(state.seats[A2].hand)
    events = play(state, Command(CommandKind.END_PHASE, A1))
    assert state.turn_seat is A1, "the turn does not pass before the card is given"
    asked = [e for e in find(events, EventKind.DECISION_REQUESTED) if e.text == "feed_eyrie"]
    assert [(e.seat, e.target) for e in asked] == [("A1", "A2")]
    offered = commands_of(state, A1, CommandKind.FEED_EYRIE)
    assert {c.cards[0] for c in offered} == set(state.seats[A1].hand)  # any card
    given = offered[0].cards[0]
    events = play(state, offered[0])
    gifts = find(events, EventKind.CARD_GIVEN)
    assert [(e.seat, e.target, e.cards) for e in gifts] == [("A1", "A2", (given,))]
    assert state.seats[A2].hand == [*eyrie_hand, given]
    # one card per turn, however many flights; then the next seat plays
    assert not [e for e in find(events, EventKind.DECISION_REQUESTED) if e.text == "feed_eyrie"]
    assert [e.seat for e in find(events, EventKind.TURN_STARTED)][:1] == ["B1"]


def test_R23_no_card_owed_without_a_flight() -> None:
    state = _marquise_at_roost(b1_warriors=0)
    play(state, Command(CommandKind.MARCH, A1, clearing=QUARRY, to=BEACH, count=1))
    events = play(state, Command(CommandKind.END_PHASE, A1))
    assert not [e for e in find(events, EventKind.DECISION_REQUESTED) if e.text == "feed_eyrie"]
    assert [e.seat for e in find(events, EventKind.TURN_STARTED)][:1] == ["B1"]


def test_R23_nothing_owed_with_an_empty_hand() -> None:
    state = _marquise_at_roost(hand=())
    state.used[WINGS_USED] = 1
    ctx = Ctx(state)
    assert ask_wings_card(ctx, A1) is False
    assert ctx.events == [] and not state.decisions
    state.seats[A1].hand.append(state.deck.pop())
    assert ask_wings_card(ctx, A1) is True
    assert state.decisions[0].kind == "feed_eyrie" and state.decisions[0].target == "A2"


def test_R23_feed_card_is_hidden_from_other_seats() -> None:
    from frontier.engine.view import event_for

    state = _marquise_at_roost(hand=(FOX,))
    play(state, Command(CommandKind.MARCH, A1, clearing=QUARRY, to=BEACH, count=1, piece=WINGS))
    play(state, Command(CommandKind.END_PHASE, A1))
    events = play(state, commands_of(state, A1, CommandKind.FEED_EYRIE)[0])
    gift = find(events, EventKind.CARD_GIVEN)[0]
    assert event_for(state, gift, B1).cards == ("hidden",)
    assert event_for(state, gift, A2).cards == gift.cards
