"""The Eyrie's Daylight Decree (base Root §10): resolving it column by column, Turmoil, and
Imperial Isolation in rounds 1-2 (R24)."""

from __future__ import annotations

import pytest

from frontier.engine import Command, CommandKind, EventKind, IllegalCommand, State, Team
from frontier.engine.factions.eyrie_board import LEADERS, VIZIERS, eyrie
from tests.engine_helpers import (
    assert_refused,
    first_legal,
    lay_out,
    play,
)
from tests.eyrie_helpers import (
    A1,
    A2,
    B1,
    BEACH,
    BIRD,
    BIRD2,
    CREEK,
    FOX,
    HAVEN,
    MOUND,
    MOUNTAIN,
    MOUSE,
    QUARRY,
    RABBIT,
    WATERFALL,
    WEALD,
    all_cards_with_decree,
    commands_of,
    eyrie_position,
    find,
    fresh,
    mark_resolved,
    winter_clearing,
)

# ----- Daylight: the Decree --------------------------------------------------------------------


def test_eyrie_decree_is_resolved_column_by_column_left_to_right() -> None:
    state = eyrie_position(
        decree={"battle": [FOX]},
        pieces={MOUNTAIN: {A2: {"warrior": 2}, B1: {"warrior": 1}}, WEALD: {A2: {"roost": 1}}},
    )
    # Commander: viziers in Move and Battle; the Move vizier comes first
    legal = {c.kind for c in commands_of(state, A2, CommandKind.DECREE_MOVE)}
    assert legal == {CommandKind.DECREE_MOVE}
    assert not commands_of(state, A2, CommandKind.DECREE_BATTLE)
    assert_refused(
        state,
        Command(CommandKind.DECREE_BATTLE, A2, clearing=MOUNTAIN, target="B1", piece="fox"),
        IllegalCommand,
    )
    play(state, first_legal(state, CommandKind.DECREE_MOVE, clearing=MOUNTAIN, to=WEALD, count=1))
    battles = commands_of(state, A2, CommandKind.DECREE_BATTLE)
    assert {(c.clearing, c.target, c.piece) for c in battles} == {
        (MOUNTAIN, "B1", "fox"),
        (MOUNTAIN, "B1", "bird"),
    }


def test_eyrie_recruit_places_a_warrior_at_a_roost_of_the_card_suit() -> None:
    state = eyrie_position(
        leader="despot",  # viziers in Move and Build
        decree={"recruit": [FOX, BIRD]},
        pieces={MOUNTAIN: {A2: {"roost": 1}}, WEALD: {A2: {"roost": 1}}},
    )
    recruits = {(c.clearing, c.piece) for c in commands_of(state, A2, CommandKind.DECREE_RECRUIT)}
    assert recruits == {(MOUNTAIN, "fox"), (MOUNTAIN, "bird"), (WEALD, "bird")}
    events = play(state, Command(CommandKind.DECREE_RECRUIT, A2, clearing=MOUNTAIN, piece="fox"))
    assert [(e.clearing, e.count) for e in find(events, EventKind.PIECES_PLACED)] == [(MOUNTAIN, 1)]
    assert {c.piece for c in commands_of(state, A2, CommandKind.DECREE_RECRUIT)} == {"bird"}


def test_eyrie_leader_charismatic_recruits_two_warriors() -> None:
    state = eyrie_position(leader="charismatic", pieces={WEALD: {A2: {"roost": 1}}})
    events = play(state, Command(CommandKind.DECREE_RECRUIT, A2, clearing=WEALD, piece="bird"))
    assert [e.count for e in find(events, EventKind.PIECES_PLACED)] == [2]
    assert state.pieces[WEALD][A2]["warrior"] == 2


def _charismatic_with_one_warrior_left(round_no: int = 3) -> State:
    state = eyrie_position(
        step="daylight.craft",
        round_no=round_no,
        leader="charismatic",  # viziers in Recruit and Battle
        pieces={WEALD: {A2: {"roost": 1, "warrior": 19}}, MOUNTAIN: {B1: {"warrior": 1}}},
    )
    assert state.seats[A2].supply["warrior"] == 1
    return state


def test_eyrie_charismatic_with_one_warrior_left_places_it_then_falls_into_turmoil() -> None:
    # Law 1.5.4: do as much as possible; the card is still not resolved in full
    state = _charismatic_with_one_warrior_left()
    events = play(state, Command(CommandKind.END_PHASE, A2))
    assert not find(events, EventKind.TURMOIL)  # the recruit is offered first
    recruit = Command(CommandKind.DECREE_RECRUIT, A2, clearing=WEALD, piece="bird")
    assert commands_of(state, A2, CommandKind.DECREE_RECRUIT) == [recruit]
    events = play(state, recruit)
    assert [(e.clearing, e.count) for e in find(events, EventKind.PIECES_PLACED)] == [(WEALD, 1)]
    kinds = [e.kind for e in events]
    assert kinds.index(EventKind.PIECES_PLACED) < kinds.index(EventKind.TURMOIL)
    assert state.pieces[WEALD][A2]["warrior"] == 20 and state.seats[A2].supply["warrior"] == 0
    assert state.step.startswith("evening") and eyrie(state, A2).leader == ""


def test_eyrie_charismatic_with_no_warrior_left_falls_into_turmoil_at_once() -> None:
    state = eyrie_position(
        step="daylight.craft",
        leader="charismatic",
        pieces={WEALD: {A2: {"roost": 1, "warrior": 20}}},
    )
    events = play(state, Command(CommandKind.END_PHASE, A2))
    assert find(events, EventKind.TURMOIL) and not find(events, EventKind.PIECES_PLACED)


def test_R24_a_recruit_short_of_warriors_may_be_skipped_in_rounds_1_2() -> None:
    state = _charismatic_with_one_warrior_left(round_no=1)
    play(state, Command(CommandKind.END_PHASE, A2))
    skip = Command(CommandKind.SKIP_DECREE_CARD, A2, piece="bird")
    assert skip in commands_of(state, A2, CommandKind.SKIP_DECREE_CARD)
    events = play(state, skip)
    assert not find(events, EventKind.TURMOIL) and not find(events, EventKind.PIECES_PLACED)


def test_eyrie_move_starts_in_a_clearing_of_the_card_suit() -> None:
    state = eyrie_position(
        leader="despot",
        pieces={MOUNTAIN: {A2: {"warrior": 2}}, WEALD: {A2: {"warrior": 1, "roost": 1}}},
        decree={"move": [FOX]},
    )
    moves = commands_of(state, A2, CommandKind.DECREE_MOVE)
    assert {c.clearing for c in moves if c.piece == "fox"} == {MOUNTAIN}
    assert {c.clearing for c in moves if c.piece == "bird"} == {MOUNTAIN, WEALD}
    assert {c.count for c in moves if c.clearing == MOUNTAIN and c.to == QUARRY} == {1, 2}
    play(
        state,
        Command(CommandKind.DECREE_MOVE, A2, clearing=MOUNTAIN, to=QUARRY, count=2, piece="fox"),
    )
    assert state.pieces[QUARRY][A2]["warrior"] == 2


def test_eyrie_battle_in_a_clearing_of_the_card_suit_against_an_enemy_only() -> None:
    state = eyrie_position(
        decree={"battle": [FOX]},
        pieces={
            MOUNTAIN: {A2: {"warrior": 2}, B1: {"warrior": 1}, A1: {"warrior": 1}},
            WEALD: {A2: {"warrior": 2}, B1: {"warrior": 1}},
        },
    )
    mark_resolved(state, "move")  # the Commander's Move vizier
    battles = {
        (c.clearing, c.target, c.piece) for c in commands_of(state, A2, CommandKind.DECREE_BATTLE)
    }
    assert battles == {(MOUNTAIN, "B1", "fox"), (MOUNTAIN, "B1", "bird"), (WEALD, "B1", "bird")}
    events = play(
        state, Command(CommandKind.DECREE_BATTLE, A2, clearing=MOUNTAIN, target="B1", piece="fox")
    )
    started = find(events, EventKind.BATTLE_STARTED)
    assert [(e.seat, e.target, e.clearing) for e in started] == [("A2", "B1", MOUNTAIN)]


def test_eyrie_build_a_roost_in_a_ruled_clearing_of_the_suit_without_roost_with_open_slot() -> None:
    state = eyrie_position(
        leader="despot",  # viziers in Move and Build
        decree={"build": [RABBIT]},
        pieces={
            WEALD: {A2: {"roost": 1, "warrior": 2}},  # already has a roost
            BEACH: {A1: {"warrior": 1}},  # ruled by the team (R13); one free slot besides the ruin
            CREEK: {B1: {"warrior": 1}, A2: {"warrior": 0}},  # ruled by the rival team
            HAVEN: {A1: {"warrior": 1, "sawmill": 1}},  # ruled, but its only slot is full
            MOUNTAIN: {A2: {"warrior": 1}},  # fox
            WATERFALL: {A2: {"warrior": 1, "roost": 1}},  # a roost already, a free slot left
        },
    )
    mark_resolved(state, "move")
    builds = {(c.clearing, c.piece) for c in commands_of(state, A2, CommandKind.DECREE_BUILD)}
    assert WATERFALL not in {c for c, _ in builds}
    assert (BEACH, "rabbit") in builds
    assert {c for c, p in builds if p == "rabbit"} == {BEACH}
    assert {c for c, p in builds if p == "bird"} >= {BEACH, MOUNTAIN}
    assert WEALD not in {c for c, _ in builds} and CREEK not in {c for c, _ in builds}
    events = play(state, Command(CommandKind.DECREE_BUILD, A2, clearing=BEACH, piece="rabbit"))
    assert [(e.piece, e.clearing) for e in find(events, EventKind.PIECES_PLACED)] == [
        ("roost", BEACH)
    ]
    assert not find(events, EventKind.SCORED)  # roosts score in Evening (roost track)


def test_eyrie_turmoil_is_never_voluntary_while_a_card_can_be_resolved() -> None:
    state = eyrie_position(pieces={MOUNTAIN: {A2: {"warrior": 2}}})
    legal = commands_of(state, A2, CommandKind.END_PHASE)
    assert legal == []
    assert_refused(state, Command(CommandKind.END_PHASE, A2), IllegalCommand)


def test_eyrie_stuck_decree_still_offers_daylight_card_actions_then_turmoil() -> None:
    state = eyrie_position(
        step="daylight.craft",
        decree={"recruit": [FOX]},  # no fox roost: the recruit fails
        pieces={WEALD: {A2: {"roost": 1, "warrior": 2}}},
        in_play={A2: ["tax_collector.1"]},
    )
    events = play(state, Command(CommandKind.END_PHASE, A2))
    assert not find(events, EventKind.TURMOIL) and state.step == "daylight.decree"
    legal = {c.kind for c in commands_of(state, A2, CommandKind.TAX_COLLECTOR)}
    assert legal == {CommandKind.TAX_COLLECTOR}
    assert commands_of(state, A2, CommandKind.END_PHASE)
    events = play(state, Command(CommandKind.TAX_COLLECTOR, A2, clearing=WEALD))
    assert find(events, EventKind.TURMOIL)  # nothing else to do: Turmoil at once


def _turmoil_position(score: int = 10, **kw: object) -> State:
    state = eyrie_position(
        step="daylight.craft",
        decree={"recruit": [FOX], "build": [BIRD2]},  # no fox roost: the recruit fails
        pieces={WEALD: {A2: {"roost": 1, "warrior": 2}}},
        **kw,  # type: ignore[arg-type]
    )
    state.scores[Team.A] = score
    return state


def test_eyrie_turmoil_humiliate_purge_depose_and_rest() -> None:
    state = _turmoil_position()
    events = play(state, Command(CommandKind.END_PHASE, A2))  # leave crafting for the Decree
    turmoil = find(events, EventKind.TURMOIL)
    assert [e.count for e in turmoil] == [3]  # 2 viziers + 1 bird card
    assert [e.amount for e in find(events, EventKind.SCORED)] == [-3]
    assert state.scores[Team.A] == 7
    purged = find(events, EventKind.DECREE_PURGED)
    assert sorted(purged[0].cards) == sorted([FOX, BIRD2])
    assert FOX in state.discard and BIRD2 in state.discard
    deposed = find(events, EventKind.LEADER_DEPOSED)
    assert [e.piece for e in deposed] == ["commander"]
    ey = eyrie(state, A2)
    assert ey.leader == "" and ey.deposed == ["commander"]
    assert sorted(e for col in ey.decree.values() for e in col) == sorted(VIZIERS)
    # rest: Daylight ends at once, Evening begins after the new leader is chosen
    steps = [e.text for e in find(events, EventKind.STEP_SET)]
    assert steps[-1] == "evening.start"
    assert state.decisions[0].kind == "eyrie_leader" and state.decisions[0].seat is A2
    offered = {c.piece for c in commands_of(state, A2, CommandKind.CHOOSE_LEADER)}
    assert offered == {"builder", "charismatic", "despot"}  # the deposed leader is face down
    events = play(state, Command(CommandKind.CHOOSE_LEADER, A2, piece="despot"))
    assert ey.leader == "despot"
    assert ey.decree["move"] == [VIZIERS[0]] and ey.decree["build"] == [VIZIERS[1]]
    assert "evening.score" in [e.text for e in find(events, EventKind.STEP_SET)]
    assert sorted(all_cards_with_decree(state)) == sorted(
        set(all_cards_with_decree(state))
    )  # no card doubled


def test_eyrie_turmoil_score_never_goes_below_zero_R31() -> None:
    state = _turmoil_position(score=1)
    events = play(state, Command(CommandKind.END_PHASE, A2))
    assert [e.amount for e in find(events, EventKind.SCORED)] == [-1]
    assert state.scores[Team.A] == 0


def test_eyrie_turmoil_new_clutch_when_no_leader_is_face_up() -> None:
    state = _turmoil_position()
    ey = eyrie(state, A2)
    ey.deposed = [x for x in LEADERS if x != "commander"]
    ey.candidates = []
    play(state, Command(CommandKind.END_PHASE, A2))
    offered = {c.piece for c in commands_of(state, A2, CommandKind.CHOOSE_LEADER)}
    assert offered == set(LEADERS)  # the just-deposed leader is eligible again
    assert ey.deposed == []


def test_eyrie_no_turmoil_when_the_whole_decree_is_resolved() -> None:
    state = eyrie_position(
        leader="builder",  # viziers in Recruit and Move
        pieces={WEALD: {A2: {"roost": 1, "warrior": 1}}},
    )
    events = play(state, Command(CommandKind.DECREE_RECRUIT, A2, clearing=WEALD, piece="bird"))
    events += play(state, first_legal(state, CommandKind.DECREE_MOVE))
    assert not find(events, EventKind.TURMOIL)
    assert "evening.score" in [e.text for e in find(events, EventKind.STEP_SET)]
    assert state.turn_seat is not A2


# ----- R24 Imperial Isolation ------------------------------------------------------------------


def _isolation_position(round_no: int, home_enemy: bool = False) -> State:
    """A fox battle card whose only fox battle is on the rival map (plus the Commander's
    battle vizier); optionally an enemy at home that a bird card may battle."""
    probe = fresh()
    rival_fox = winter_clearing(probe, "fox")
    pieces = {
        rival_fox: {A2: {"warrior": 2}, B1: {"warrior": 1}},
        WEALD: {A2: {"roost": 1, "warrior": 1}},
    }
    if home_enemy:
        pieces[WEALD][B1] = {"warrior": 1}
    state = eyrie_position(round_no=round_no, decree={"battle": [FOX]}, pieces=pieces)
    mark_resolved(state, "move")
    return state


@pytest.mark.parametrize("round_no", [1, 2])
def test_R24_imperial_isolation_skip_allowed_only_when_all_resolutions_are_on_rival_map(
    round_no: int,
) -> None:
    state = _isolation_position(round_no, home_enemy=True)
    rival_fox = winter_clearing(state, "fox")
    battles = {(c.clearing, c.piece) for c in commands_of(state, A2, CommandKind.DECREE_BATTLE)}
    assert battles == {(rival_fox, "fox"), (rival_fox, "bird"), (WEALD, "bird")}
    skips = commands_of(state, A2, CommandKind.SKIP_DECREE_CARD)
    # the fox card can only battle on the rival map; the bird card could battle at home
    assert [c.piece for c in skips] == ["fox"]
    assert_refused(state, Command(CommandKind.SKIP_DECREE_CARD, A2, piece="bird"), IllegalCommand)
    events = play(state, Command(CommandKind.SKIP_DECREE_CARD, A2, piece="fox"))
    skipped = find(events, EventKind.DECREE_CARD_SKIPPED)
    assert [(e.piece, e.text) for e in skipped] == [("fox", "battle")]
    assert not find(events, EventKind.TURMOIL)
    assert not commands_of(state, A2, CommandKind.SKIP_DECREE_CARD)
    assert {c.piece for c in commands_of(state, A2, CommandKind.DECREE_BATTLE)} == {"bird"}


def test_R24_skip_offered_for_every_card_whose_only_resolutions_are_on_the_rival_map() -> None:
    state = _isolation_position(2)
    skips = {c.piece for c in commands_of(state, A2, CommandKind.SKIP_DECREE_CARD)}
    assert skips == {"fox", "bird"}
    play(state, Command(CommandKind.SKIP_DECREE_CARD, A2, piece="fox"))
    events = play(state, Command(CommandKind.SKIP_DECREE_CARD, A2, piece="bird"))
    assert not find(events, EventKind.TURMOIL)
    assert state.turn_seat is not A2  # the Decree is done: Evening ran, the turn passed


@pytest.mark.parametrize("round_no", [3, 4, 6])
def test_R24_no_skip_from_round_three(round_no: int) -> None:
    state = _isolation_position(round_no)
    assert not commands_of(state, A2, CommandKind.SKIP_DECREE_CARD)
    assert_refused(state, Command(CommandKind.SKIP_DECREE_CARD, A2, piece="fox"), IllegalCommand)
    assert commands_of(state, A2, CommandKind.DECREE_BATTLE)  # it must battle on the rival map


def test_R24_skip_a_move_whose_only_legal_moves_cross_the_bridge() -> None:
    probe = fresh()
    state = eyrie_position(
        round_no=1,
        leader="despot",
        decree={"move": [MOUSE]},  # Quarry is a mouse clearing
        hands={A2: [BIRD]},
        pieces={
            QUARRY: {A2: {"warrior": 1}, B1: {"warrior": 2}},  # the rival rules Quarry
            MOUND: {A1: {"warrior": 1}},  # the team rules Mound across the bridge
            WEALD: {A2: {"roost": 1}},
        },
    )
    assert probe.suits[QUARRY] == "mouse"
    moves = [c for c in commands_of(state, A2, CommandKind.DECREE_MOVE) if c.piece == "mouse"]
    assert {(c.clearing, c.to) for c in moves} == {(QUARRY, MOUND)}
    assert all(c.cards == (BIRD,) for c in moves)  # R7's fee still applies
    assert {c.piece for c in commands_of(state, A2, CommandKind.SKIP_DECREE_CARD)} == {
        "mouse",
        "bird",
    }


@pytest.mark.parametrize(("round_no", "skipped"), [(1, True), (2, True), (3, False)])
def test_R24_skip_a_card_with_no_legal_resolution_at_all_in_rounds_1_2(
    round_no: int, skipped: bool
) -> None:
    """The manual's example (revised R24): the only Foxes with enemies are on the rival map
    and the Eyrie has no warriors there, so no resolution exists; in rounds 1-2 it skips the
    card without Turmoil, from round 3 it falls into Turmoil."""
    state = eyrie_position(
        step="daylight.craft",
        round_no=round_no,
        decree={"battle": [FOX]},
        pieces={WEALD: {A2: {"roost": 1, "warrior": 1}}, MOUNTAIN: {A2: {"warrior": 1}}},
    )
    mark_resolved(state, "move")
    mark_resolved(state, "battle")  # the vizier; only the fox battle card is left, and no fox enemy
    rival_fox = winter_clearing(state, "fox")
    lay_out(state, {rival_fox: {B1: {"warrior": 2}}})  # enemies on the rival map only
    events = play(state, Command(CommandKind.END_PHASE, A2))
    if skipped:
        assert [c.piece for c in commands_of(state, A2, CommandKind.SKIP_DECREE_CARD)] == ["fox"]
        events = play(state, Command(CommandKind.SKIP_DECREE_CARD, A2, piece="fox"))
        assert find(events, EventKind.DECREE_CARD_SKIPPED) and not find(events, EventKind.TURMOIL)
    else:
        assert find(events, EventKind.TURMOIL)
        assert not find(events, EventKind.DECREE_CARD_SKIPPED)
