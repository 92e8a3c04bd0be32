"""Marquise de Cat (base Root §9, setup R12) and Field Hospitals (R22 for the Marquise path)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from frontier.engine import (
    Command,
    CommandKind,
    EventKind,
    IllegalCommand,
    Seat,
    State,
    Team,
    legal_commands,
)
from frontier.engine.factions.marquise import BUILD_COST, BUILD_VP, evening_draw_count
from frontier.engine.field_hospitals import hospital_seat
from frontier.engine.model import Faction
from frontier.engine.state import SeatSpec
from tests.engine_helpers import (
    CARD_OF,
    A,
    B,
    assert_conserved,
    assert_refused,
    dice_seed,
    kinds_of,
    legal_of,
    play,
    position,
    put,
)

CREEK, HILL, DUNE, BEACH = "autumn.creek", "autumn.hill", "autumn.dune", "autumn.beach"
MEADOW = "autumn.meadow"
Pieces = Mapping[str, Mapping[Seat, Mapping[str, int]]]


def _a_turn_starts(pieces: Pieces) -> State:
    """B ends its Daylight; A's next turn starts (Birdsong hooks run)."""
    state = position(turn=B, actions=0, pieces=pieces)
    play(state, Command(CommandKind.END_PHASE, B))
    assert state.turn_seat is A and state.round == 2
    return state


# ----- the keep ------------------------------------------------------------------------------


def test_marquise_keep_placement_only_in_a_home_corner() -> None:
    from tests.engine_helpers import new_state

    state = new_state()
    corners = [c.clearing for c in legal_of(state, CommandKind.PLACE_KEEP)]
    assert corners == ["autumn.hill", "autumn.quarry", "autumn.weald", "autumn.haven"]
    assert_refused(
        state, Command(CommandKind.PLACE_KEEP, A, clearing="winter.mound"), IllegalCommand
    )


def test_marquise_keep_blocks_others_placement_but_not_movement() -> None:
    state = position(
        turn=B,
        pieces={
            HILL: {A: {"keep": 1}, B: {"warrior": 3, "wood": 1}},
            CREEK: {B: {"warrior": 1}},
        },
    )
    builds = {c.clearing for c in legal_of(state, CommandKind.BUILD)}
    assert HILL not in builds  # B rules the keep clearing but may not place there
    assert CREEK in builds
    moves = {(c.clearing, c.to) for c in legal_of(state, CommandKind.MARCH)}
    assert (CREEK, HILL) in moves  # moving in is allowed
    assert_refused(
        state,
        Command(CommandKind.BUILD, B, clearing=HILL, piece="sawmill"),
        IllegalCommand,
        match=HILL,
    )


def test_marquise_own_keep_clearing_accepts_own_buildings() -> None:
    state = position(pieces={HILL: {A: {"keep": 1, "warrior": 1, "wood": 1}}})
    assert HILL in {c.clearing for c in legal_of(state, CommandKind.BUILD)}


# ----- Birdsong wood -------------------------------------------------------------------------


def test_marquise_birdsong_wood_at_every_sawmill() -> None:
    state = _a_turn_starts(
        {CREEK: {A: {"sawmill": 2, "warrior": 1}}, DUNE: {A: {"sawmill": 1, "warrior": 1}}}
    )
    assert state.pieces[CREEK][A]["wood"] == 2
    assert state.pieces[DUNE][A]["wood"] == 1
    assert state.seats[A].supply["wood"] == 5


def test_marquise_birdsong_wood_shortage_is_the_marquise_choice() -> None:
    state = position(turn=B, actions=0)
    put(state, MEADOW, A, "wood", 7)  # one wood left in supply
    put(state, CREEK, A, "sawmill")
    put(state, DUNE, A, "sawmill")
    play(state, Command(CommandKind.END_PHASE, B))
    assert state.turn_seat is A and state.step == "birdsong.wood"
    options = legal_of(state, CommandKind.PLACE_WOOD)
    assert {c.clearing for c in options} == {CREEK, DUNE}
    assert_refused(state, Command(CommandKind.PLACE_WOOD, A, clearing=HILL), IllegalCommand)
    play(state, Command(CommandKind.PLACE_WOOD, A, clearing=DUNE))
    assert state.pieces[DUNE][A]["wood"] == 1 and state.seats[A].supply["wood"] == 0
    assert state.step != "birdsong.wood"
    assert_conserved(state)


# ----- building --------------------------------------------------------------------------------


@pytest.mark.parametrize("building", ["sawmill", "workshop", "recruiter"])
@pytest.mark.parametrize("already", [1, 2, 3, 4, 5])
def test_marquise_build_costs_and_vp_tracks(building: str, already: int) -> None:
    cost, vp = BUILD_COST[already], BUILD_VP[building][already]
    state = position(pieces={CREEK: {A: {"warrior": 1, "wood": cost}}})
    put(state, "autumn.meadow", A, building, already)  # on the map: the track shows the next
    cmd = Command(CommandKind.BUILD, A, clearing=CREEK, piece=building)
    assert cmd in legal_of(state, CommandKind.BUILD)
    events = play(state, cmd)
    spent = [e for e in events if e.kind is EventKind.WOOD_SPENT]
    assert sum(len(e.clearings) for e in spent) == cost
    assert state.scores[Team.A] == vp
    assert state.pieces[CREEK][A][building] == 1
    assert state.seats[A].supply["wood"] == 8
    assert state.actions == 2
    assert_conserved(state)


def test_marquise_build_vp_tables_match_base_root() -> None:
    assert BUILD_COST == (0, 1, 2, 3, 3, 4)
    assert BUILD_VP == {
        "sawmill": (0, 1, 2, 3, 4, 5),
        "workshop": (0, 2, 2, 3, 4, 5),
        "recruiter": (0, 1, 2, 3, 3, 4),
    }


def test_marquise_build_needs_enough_wood_an_open_slot_and_rule() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 1, "wood": 1}}})
    put(state, MEADOW, A, "sawmill", 2)  # the third sawmill costs 2
    assert "sawmill" not in {c.piece for c in legal_of(state, CommandKind.BUILD)}
    assert_refused(
        state, Command(CommandKind.BUILD, A, clearing=CREEK, piece="sawmill"), IllegalCommand
    )
    # no open slot: creek has 2 slots
    state = position(
        pieces={CREEK: {A: {"warrior": 1, "wood": 3, "workshop": 1}, B: {"sawmill": 1}}}
    )
    assert CREEK not in {c.clearing for c in legal_of(state, CommandKind.BUILD)}
    # not ruled: tie 1 v 1
    state = position(pieces={CREEK: {A: {"warrior": 1, "wood": 3}, B: {"warrior": 1}}})
    assert CREEK not in {c.clearing for c in legal_of(state, CommandKind.BUILD)}


def test_marquise_cannot_build_a_seventh_building_of_a_type() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 1, "wood": 8}}})
    put(state, MEADOW, A, "recruiter", 6)
    assert "recruiter" not in {c.piece for c in legal_of(state, CommandKind.BUILD)}


def test_marquise_connected_wood_through_ruled_clearings() -> None:
    # creek - hill - dune: wood in dune reaches creek while A rules hill
    state = position(
        pieces={
            CREEK: {A: {"warrior": 1}},
            HILL: {A: {"warrior": 1}},
            DUNE: {A: {"warrior": 1, "wood": 1}},
        }
    )
    put(state, MEADOW, A, "sawmill")  # the 2nd sawmill costs 1 wood
    events = play(state, Command(CommandKind.BUILD, A, clearing=CREEK, piece="sawmill"))
    spent = next(e for e in events if e.kind is EventKind.WOOD_SPENT)
    assert spent.clearings == (DUNE,)
    # an unruled clearing in between breaks the chain
    state = position(
        pieces={
            CREEK: {A: {"warrior": 1}},
            HILL: {A: {"warrior": 1}, B: {"warrior": 1}},
            DUNE: {A: {"warrior": 1, "wood": 1}},
        }
    )
    put(state, MEADOW, A, "sawmill")
    assert (CREEK, "sawmill") not in {
        (c.clearing, c.piece) for c in legal_of(state, CommandKind.BUILD)
    }


def test_marquise_nearest_wood_is_spent_first() -> None:
    state = position(
        pieces={
            CREEK: {A: {"warrior": 1, "wood": 1}},
            HILL: {A: {"warrior": 1, "wood": 2}},
        }
    )
    put(state, MEADOW, A, "workshop", 2)  # the 3rd workshop costs 2
    events = play(state, Command(CommandKind.BUILD, A, clearing=CREEK, piece="workshop"))
    spent = next(e for e in events if e.kind is EventKind.WOOD_SPENT)
    assert spent.clearings == (CREEK, HILL)


def test_marquise_wood_does_not_cross_a_bridge_for_free() -> None:
    # R7/R26: wood across a bridge would need a fee; the engine never moves it for free
    state = position(
        pieces={
            "autumn.quarry": {A: {"warrior": 2}},
            "winter.mound": {A: {"warrior": 2, "wood": 3}},
        }
    )
    put(state, MEADOW, A, "sawmill")
    builds = {(c.clearing, c.piece) for c in legal_of(state, CommandKind.BUILD)}
    assert ("autumn.quarry", "sawmill") not in builds
    assert ("winter.mound", "sawmill") in builds


# ----- recruit, march, overwork, extra actions -------------------------------------------------


def test_marquise_recruit_once_per_turn() -> None:
    state = position(pieces={CREEK: {A: {"recruiter": 2}}, DUNE: {A: {"recruiter": 1}}})
    events = play(state, Command(CommandKind.RECRUIT, A))
    placed = {e.clearing: e.count for e in events if e.kind is EventKind.PIECES_PLACED}
    assert placed == {CREEK: 2, DUNE: 1}  # one warrior per recruiter
    assert state.actions == 2
    assert not legal_of(state, CommandKind.RECRUIT)
    assert_refused(state, Command(CommandKind.RECRUIT, A), IllegalCommand, match="recruit")


def test_marquise_recruit_with_a_short_supply_places_what_is_left() -> None:
    state = position(pieces={CREEK: {A: {"recruiter": 2}}})
    put(state, MEADOW, A, "warrior", 24)  # 1 warrior left for 2 recruiters in one clearing...
    events = play(state, Command(CommandKind.RECRUIT, A))
    placed = [(e.clearing, e.count) for e in events if e.kind is EventKind.PIECES_PLACED]
    assert placed == [(CREEK, 1)] and not state.decisions  # ...only one place to put it
    assert state.seats[A].supply["warrior"] == 0
    assert_conserved(state)


def test_marquise_chooses_which_recruiters_get_the_last_warriors() -> None:
    # Law 1.5.4, 6.5.3: 2 warriors left for 3 recruiters in 2 clearings; today's board order
    # would fill Creek first, the Marquise picks Dune then Creek
    state = position(pieces={CREEK: {A: {"recruiter": 2}}, DUNE: {A: {"recruiter": 1}}})
    put(state, MEADOW, A, "warrior", 23)
    events = play(state, Command(CommandKind.RECRUIT, A))
    assert not [e for e in events if e.kind is EventKind.PIECES_PLACED]
    d = state.decisions[0]
    assert (d.seat, d.kind, d.count) == (A, "recruit", 2)
    options = legal_of(state, CommandKind.RECRUIT)
    assert {c.clearing for c in options} == {CREEK, DUNE}
    assert_refused(state, Command(CommandKind.RECRUIT, A, clearing=MEADOW), IllegalCommand)
    play(state, Command(CommandKind.RECRUIT, A, clearing=DUNE))
    # Dune's one recruiter has its warrior: the last one goes to Creek without asking
    assert not state.decisions
    assert state.pieces[DUNE][A]["warrior"] == 1 and state.pieces[CREEK][A]["warrior"] == 1
    assert state.seats[A].supply["warrior"] == 0
    assert state.actions == 2
    assert_conserved(state)


def test_marquise_may_give_both_last_warriors_to_one_clearing_with_two_recruiters() -> None:
    state = position(pieces={CREEK: {A: {"recruiter": 2}}, DUNE: {A: {"recruiter": 2}}})
    put(state, MEADOW, A, "warrior", 23)
    play(state, Command(CommandKind.RECRUIT, A))
    play(state, Command(CommandKind.RECRUIT, A, clearing=DUNE))
    assert state.decisions[0].count == 1  # Dune still has a recruiter without its warrior
    assert {c.clearing for c in legal_of(state, CommandKind.RECRUIT)} == {CREEK, DUNE}
    play(state, Command(CommandKind.RECRUIT, A, clearing=DUNE))
    assert state.pieces[DUNE][A]["warrior"] == 2 and state.pieces[CREEK][A].get("warrior", 0) == 0
    assert not state.decisions


def test_marquise_march_two_moves_one_action() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 3}}})
    play(state, Command(CommandKind.MARCH, A, clearing=CREEK, to=HILL, count=2))
    assert state.actions == 2 and state.march_left == 1
    play(state, Command(CommandKind.MARCH, A, clearing=HILL, to=DUNE, count=1))
    assert state.actions == 2 and state.march_left == 0  # the second move was free
    play(state, Command(CommandKind.MARCH, A, clearing=CREEK, to=HILL, count=1))
    assert state.actions == 1 and state.march_left == 1  # a new march
    assert state.pieces[DUNE][A]["warrior"] == 1 and state.pieces[HILL][A]["warrior"] == 2


def test_marquise_another_action_ends_the_march() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 3, "recruiter": 1}}})
    play(state, Command(CommandKind.MARCH, A, clearing=CREEK, to=HILL, count=1))
    play(state, Command(CommandKind.RECRUIT, A))
    assert state.actions == 1 and state.march_left == 0


def test_marquise_overwork() -> None:
    state = position(
        pieces={CREEK: {A: {"sawmill": 1}}},
        hands={A: [CARD_OF["rabbit"], CARD_OF["fox"], CARD_OF["bird"]]},
    )
    options = {c.cards for c in legal_of(state, CommandKind.OVERWORK)}
    assert options == {(CARD_OF["rabbit"],), (CARD_OF["bird"],)}  # creek is rabbit; birds wild
    assert_refused(
        state,
        Command(CommandKind.OVERWORK, A, clearing=CREEK, cards=(CARD_OF["fox"],)),
        IllegalCommand,
    )
    play(state, Command(CommandKind.OVERWORK, A, clearing=CREEK, cards=(CARD_OF["rabbit"],)))
    assert state.pieces[CREEK][A]["wood"] == 1
    assert state.discard == [CARD_OF["rabbit"]] and state.actions == 2


def test_marquise_overwork_needs_wood_in_supply() -> None:
    state = position(pieces={CREEK: {A: {"sawmill": 1}}}, hands={A: [CARD_OF["rabbit"]]})
    put(state, MEADOW, A, "wood", 8)
    assert not legal_of(state, CommandKind.OVERWORK)


def test_marquise_extra_action_for_bird_cards() -> None:
    state = position(
        actions=0,
        pieces={CREEK: {A: {"warrior": 2}}},
        hands={A: [CARD_OF["bird"], CARD_OF["fox"], "ambush_bird.1"]},
    )
    extra = {c.cards for c in legal_of(state, CommandKind.EXTRA_ACTION)}
    assert extra == {(CARD_OF["bird"],), ("ambush_bird.1",)}
    assert not legal_of(state, CommandKind.MARCH)
    assert_refused(
        state, Command(CommandKind.EXTRA_ACTION, A, cards=(CARD_OF["fox"],)), IllegalCommand
    )
    play(state, Command(CommandKind.EXTRA_ACTION, A, cards=(CARD_OF["bird"],)))
    assert state.actions == 1 and CARD_OF["bird"] in state.discard
    assert legal_of(state, CommandKind.MARCH)


def test_marquise_three_actions_per_daylight() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 6}}}, hands={A: [CARD_OF["bird"]]})
    for _ in range(3):
        play(state, Command(CommandKind.MARCH, A, clearing=CREEK, to=HILL, count=1))
        play(state, Command(CommandKind.MARCH, A, clearing=HILL, to=CREEK, count=1))
    assert state.actions == 0 and not legal_of(state, CommandKind.MARCH)
    assert legal_of(state, CommandKind.EXTRA_ACTION)  # only a bird card buys a fourth


# ----- Evening ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("recruiters", "draws"), [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3)])
def test_marquise_evening_draw_with_recruiter_bonus(recruiters: int, draws: int) -> None:
    state = position(actions=0, pieces={MEADOW: {A: {"recruiter": recruiters}}})
    assert evening_draw_count(state, A) == draws
    events = play(state, Command(CommandKind.END_PHASE, A))
    drawn = [e for e in events if e.kind is EventKind.CARDS_DRAWN and e.seat == "A1"]
    assert sum(len(e.cards) for e in drawn) == draws


# ----- Field Hospitals -------------------------------------------------------------------------


def _b_loses_warriors_in_battle(hand_b: list[str], keep_b: bool = True) -> State:
    pieces: dict[str, dict[Seat, dict[str, int]]] = {
        CREEK: {A: {"warrior": 3}, B: {"warrior": 3}},
    }
    if keep_b:
        pieces["winter.hedge"] = {B: {"keep": 1}}
    state = position(pieces=pieces, hands={B: hand_b})
    state.rng = dice_seed(2, 0)
    play(state, Command(CommandKind.BATTLE, A, clearing=CREEK, target="B1"))
    assert state.decisions[0].kind == "ambush"  # R4: B holds a card, usable or not
    play(state, Command(CommandKind.DECLINE, B))
    return state


def test_marquise_field_hospitals_after_battle() -> None:
    state = _b_loses_warriors_in_battle([CARD_OF["rabbit"], CARD_OF["fox"]])
    d = state.decisions[0]
    assert (d.seat, d.kind, d.count, d.target) == (B, "field_hospitals", 2, "B1")
    options = legal_of(state, CommandKind.FIELD_HOSPITALS, B)
    assert {c.cards for c in options} == {(CARD_OF["rabbit"],)}  # creek is rabbit
    events = play(state, options[0])
    assert "cards_discarded" in kinds_of(events)
    assert state.pieces["winter.hedge"][B]["warrior"] == 2
    assert state.pieces[CREEK][B]["warrior"] == 1
    assert state.turn_seat is A and not state.decisions
    assert_conserved(state)


def test_marquise_field_hospitals_may_be_declined() -> None:
    state = _b_loses_warriors_in_battle([CARD_OF["bird"]])
    play(state, Command(CommandKind.DECLINE, B))
    assert state.pieces["winter.hedge"][B].get("warrior", 0) == 0
    assert state.seats[B].hand == [CARD_OF["bird"]]


def test_marquise_field_hospitals_need_the_keep_and_a_matching_card() -> None:
    assert not _b_loses_warriors_in_battle([CARD_OF["rabbit"]], keep_b=False).decisions


def test_R4_field_hospitals_open_with_any_card_and_offer_only_decline_without_a_match() -> None:
    """Whether the Marquise holds a matching card is secret: the decision opens whenever it
    holds a card, so a spectator learns nothing from it (R4)."""
    state = _b_loses_warriors_in_battle([CARD_OF["fox"]])  # creek is rabbit
    assert (state.decisions[0].seat, state.decisions[0].kind) == (B, "field_hospitals")
    assert legal_commands(state, B) == [Command(CommandKind.DECLINE, B)]
    play(state, Command(CommandKind.DECLINE, B))
    assert state.seats[B].hand == [CARD_OF["fox"]] and not state.decisions


def test_marquise_field_hospitals_for_any_reason_incl_tax_collector() -> None:
    state = position(
        pieces={CREEK: {A: {"warrior": 2}}, HILL: {A: {"keep": 1}}},
        hands={A: [CARD_OF["rabbit"]]},
        in_play={A: ["tax_collector.1"]},
    )
    play(state, Command(CommandKind.TAX_COLLECTOR, A, clearing=CREEK))
    d = state.decisions[0]
    assert (d.seat, d.kind, d.count) == (A, "field_hospitals", 1)
    play(state, Command(CommandKind.FIELD_HOSPITALS, A, clearing=CREEK, cards=(CARD_OF["rabbit"],)))
    assert state.pieces[HILL][A]["warrior"] == 1 and state.pieces[CREEK][A]["warrior"] == 1


def test_R22_shared_field_hospitals_seat_is_the_team_marquise_for_battle_on_home_map() -> None:
    state = position()
    state.lineup[Seat.A2] = SeatSpec(Faction.EYRIE)
    # an ally's warriors removed in battle on the team's home map: A's Marquise may answer
    assert hospital_seat(state, Seat.A2, CREEK, in_battle=True) is A
    # not on the rival map, and not outside battle
    assert hospital_seat(state, Seat.A2, "winter.pit", in_battle=True) is None
    assert hospital_seat(state, Seat.A2, CREEK, in_battle=False) is None
    # the Marquise's own warriors: any map, any reason (base rule)
    assert hospital_seat(state, A, "winter.pit", in_battle=False) is A
    assert hospital_seat(state, B, CREEK, in_battle=True) is B
