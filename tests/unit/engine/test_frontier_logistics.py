"""The Marquise's logistics across the frontier: Shared Field Hospitals (R22) in a real battle
and wood carried across a Border Bridge (R26), with the default lineup (R2)."""

from __future__ import annotations

from collections.abc import Mapping

from frontier.engine import Command, CommandKind, EventKind, Seat, State
from frontier.engine.factions.marquise import BUILD_COST
from tests.contraband_helpers import A1, A2, B1, MOUND, QUARRY, SPIRE, WEALD, full_position, suit
from tests.engine_helpers import CARD_OF, dice_seed, kinds_of, legal_of, play

CREEK, HILL = "autumn.creek", "autumn.hill"  # rabbit, fox
DUNE = "autumn.dune"  # mouse, out of the way of the bridges
Pieces = Mapping[str, Mapping[Seat, Mapping[str, int]]]


# ----- R22: Shared Field Hospitals ---------------------------------------------------------------


def _b1_wipes_out_a2_in(clearing: str) -> State:
    """B1 battles A2's two warriors in ``clearing`` and removes both (dice 2-1); A1 holds its
    keep in Hill and a card matching the clearing."""
    state = full_position(
        turn=B1,
        actions=1,
        pieces={
            clearing: {A2: {"warrior": 2}, B1: {"warrior": 3}},
            HILL: {A1: {"keep": 1}},
        },
        hands={A1: [CARD_OF[suit(full_position(), clearing)]]},
    )
    state.rng = dice_seed(2, 1)
    play(state, Command(CommandKind.BATTLE, B1, clearing=clearing, target="A2"))
    return state


def test_R22_teammate_warriors_removed_in_battle_on_the_home_map_ask_the_marquise() -> None:
    state = _b1_wipes_out_a2_in(CREEK)
    assert state.pieces[CREEK][A2].get("warrior", 0) == 0
    d = state.decisions[0]
    assert (d.seat, d.kind, d.target, d.count, d.clearing) == (
        A1,
        "field_hospitals",
        "A2",
        2,
        CREEK,
    )
    assert state.turn_seat is B1  # the Marquise answers during B1's turn
    card = CARD_OF["rabbit"]
    assert legal_of(state, CommandKind.FIELD_HOSPITALS, A1) == [
        Command(CommandKind.FIELD_HOSPITALS, A1, clearing=CREEK, cards=(card,))
    ]
    events = play(state, Command(CommandKind.FIELD_HOSPITALS, A1, clearing=CREEK, cards=(card,)))
    placed = [e for e in events if e.kind is EventKind.PIECES_PLACED]
    assert [(e.seat, e.clearing, e.count) for e in placed] == [("A2", HILL, 2)]
    assert state.pieces[HILL][A2]["warrior"] == 2  # as warriors of their own faction
    assert card in state.discard and state.seats[A1].hand == []


def test_R22_not_for_a_teammate_removed_on_the_rival_map() -> None:
    state = _b1_wipes_out_a2_in(MOUND)
    assert state.pieces[MOUND][A2].get("warrior", 0) == 0
    assert not [d for d in state.decisions if d.kind == "field_hospitals"]


# ----- R26: wood across a Border Bridge ----------------------------------------------------------


def _wood_position(pieces: Pieces, hand: list[str]) -> State:
    """A1's Daylight with one sawmill already placed in Dune (the next one costs 1 wood)."""
    state = full_position(
        actions=2, pieces={DUNE: {A1: {"sawmill": 1}}, **pieces}, hands={A1: hand}
    )
    assert BUILD_COST[1] == 1
    return state


def _sawmills(state: State, clearing: str) -> list[Command]:
    return [
        c
        for c in legal_of(state, CommandKind.BUILD)
        if c.clearing == clearing and c.piece == "sawmill"
    ]


def test_R26_wood_from_across_a_ruled_bridge_costs_one_fee_card() -> None:
    hand = [CARD_OF["rabbit"], CARD_OF["fox"], CARD_OF["bird"]]
    state = _wood_position(
        {QUARRY: {A1: {"warrior": 1, "wood": 1}}, MOUND: {A1: {"warrior": 1}}}, hand
    )
    assert suit(state, MOUND) == "rabbit"
    builds = _sawmills(state, MOUND)  # Mound's group has no wood: it must come from Quarry
    # one option per card paying Mound's suit (R7), birds wild
    assert sorted(c.cards for c in builds) == sorted([(CARD_OF["bird"],), (CARD_OF["rabbit"],)])
    events = play(state, next(c for c in builds if c.cards == (CARD_OF["rabbit"],)))
    crossed = next(e for e in events if e.kind is EventKind.BRIDGE_CROSSED)
    assert (crossed.clearing, crossed.to, crossed.text) == (QUARRY, MOUND, "wood")
    assert kinds_of(events)[:6] == [
        "actions_changed",
        "bridge_crossed",
        "cards_discarded",
        "wood_spent",
        "pieces_placed",
        "scored",
    ]
    spent = next(e for e in events if e.kind is EventKind.WOOD_SPENT)
    assert spent.clearings == (QUARRY,)
    assert state.pieces[MOUND][A1]["sawmill"] == 1
    assert CARD_OF["rabbit"] in state.discard and state.actions == 1


def test_R26_no_fee_when_the_wood_on_this_side_is_enough() -> None:
    state = _wood_position(
        {QUARRY: {A1: {"warrior": 1, "wood": 1}}, MOUND: {A1: {"warrior": 1, "wood": 1}}},
        [CARD_OF["rabbit"]],
    )
    assert [c.cards for c in _sawmills(state, MOUND)] == [()]
    events = play(state, _sawmills(state, MOUND)[0])
    assert "bridge_crossed" not in kinds_of(events)
    assert next(e for e in events if e.kind is EventKind.WOOD_SPENT).clearings == (MOUND,)


def test_R26_no_wood_across_without_a_fee_card_or_a_ruled_route() -> None:
    pieces = {QUARRY: {A1: {"warrior": 1, "wood": 1}}, MOUND: {A1: {"warrior": 1}}}
    assert _sawmills(_wood_position(pieces, [CARD_OF["fox"]]), MOUND) == []  # no rabbit card
    unruled = {QUARRY: {A1: {"warrior": 1, "wood": 1}, B1: {"warrior": 2}}, MOUND: pieces[MOUND]}
    assert _sawmills(_wood_position(unruled, [CARD_OF["rabbit"]]), MOUND) == []


def test_R26_one_fee_per_building_action_even_across_both_bridges() -> None:
    drift = "winter.drift"  # between Mound and Spire
    state = _wood_position(
        {
            QUARRY: {A1: {"warrior": 1}},
            MOUND: {A1: {"warrior": 1}},
            drift: {A1: {"warrior": 1}},
            SPIRE: {A1: {"warrior": 1}},
            WEALD: {A1: {"warrior": 1, "wood": 1}},
        },
        [CARD_OF[suit(full_position(), QUARRY)]],
    )
    builds = _sawmills(state, QUARRY)
    assert len(builds) == 1
    events = play(state, builds[0])
    assert [(e.clearing, e.to) for e in events if e.kind is EventKind.BRIDGE_CROSSED] == [
        (MOUND, QUARRY)
    ]
    assert len([e for e in events if e.kind is EventKind.CARDS_DISCARDED]) == 1
    assert next(e for e in events if e.kind is EventKind.WOOD_SPENT).clearings == (WEALD,)
