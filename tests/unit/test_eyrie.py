"""Eyrie Dynasties (base Root §10) with the variant's setup (R12), Lords of the Forest in team
ruling (R13) and Imperial Isolation (R24)."""

from __future__ import annotations

import pytest

from frontier.engine import Command, CommandKind, EventKind, IllegalCommand, State, Team
from frontier.engine.board import board
from frontier.engine.factions.eyrie import (
    LEADERS,
    ROOST_VP,
    VIZIER_COLUMNS,
    VIZIERS,
    eyrie,
    resolved_key,
)
from frontier.engine.pieces import ruler
from frontier.engine.view import event_for, view
from tests.engine_helpers import (
    assert_refused,
    dice_seed,
    first_legal,
    kinds_of,
    play,
    setup_seat,
)
from tests.eyrie_helpers import (
    A1,
    A2,
    B1,
    B2,
    KEEP_A,
    KEEP_B,
    ROOST_A,
    ROOST_B,
    all_cards_with_decree,
    commands_of,
    eyrie_position,
    find,
    fresh,
    setup_eyrie,
)

MOUNTAIN, WEALD, QUARRY, BEACH = "autumn.mountain", "autumn.weald", "autumn.quarry", "autumn.beach"
CREEK, HAVEN, POND, MEADOW = "autumn.creek", "autumn.haven", "autumn.pond", "autumn.meadow"
MOUND, WATERFALL = "winter.mound", "autumn.waterfall"
FOX, RABBIT, MOUSE, BIRD = "anvil", "bake_sale", "investments", "crossbow_bird"
BIRD2 = "ambush_bird.1"


def _winter(state: State, suit: str) -> str:
    return next(c for c in board().on_map("winter") if state.suits[c] == suit)


def _done(state: State, column: str, suit: str = "bird", n: int = 1) -> None:
    """Mark Decree cards as already resolved this Daylight (earlier columns of a position)."""
    from frontier.engine.model import Suit

    state.used[resolved_key(column, Suit(suit))] = n


# ----- pieces and setup (R12) -----------------------------------------------------------------


def test_eyrie_pieces_are_20_warriors_and_7_roosts() -> None:
    state = fresh()
    assert state.seats[A2].supply == {"warrior": 20, "roost": 7}
    ey = eyrie(state, A2)
    assert ey.leader == "" and ey.candidates == list(LEADERS)
    assert all(not entries for entries in ey.decree.values())  # viziers come with a leader


@pytest.mark.parametrize(
    ("keep", "corner"),
    [("autumn.hill", WEALD), (QUARRY, HAVEN), (WEALD, "autumn.hill"), (HAVEN, QUARRY)],
)
def test_R12_eyrie_takes_the_home_corner_diagonally_opposite_the_team_keep(
    keep: str, corner: str
) -> None:
    state = fresh()
    setup_seat(state, keep)
    setup_seat(state, KEEP_B)
    assert state.turn_seat is A2 and state.step == "setup.roost"
    assert [c.clearing for c in commands_of(state, A2, CommandKind.PLACE_ROOST)] == [corner]
    events = play(state, Command(CommandKind.PLACE_ROOST, A2, clearing=corner))
    placed = {(e.piece, e.count) for e in find(events, EventKind.PIECES_PLACED)}
    assert placed == {("roost", 1), ("warrior", 6)}
    assert state.pieces[corner][A2] == {"roost": 1, "warrior": 6}
    assert state.seats[A2].supply == {"roost": 6, "warrior": 14}
    assert_refused(
        state, Command(CommandKind.PLACE_ROOST, A2, clearing=MOUND), IllegalCommand
    )  # setup goes on with the leader; no second roost


def test_R12_team_b_eyrie_sets_up_on_winter_opposite_its_keep() -> None:
    state = fresh()
    setup_seat(state, KEEP_A)
    setup_seat(state, KEEP_B)
    setup_eyrie(state)
    assert state.turn_seat is B2
    assert [c.clearing for c in commands_of(state, B2, CommandKind.PLACE_ROOST)] == [ROOST_B]
    setup_eyrie(state)
    assert state.pieces[ROOST_A][A2]["roost"] == 1 and state.pieces[ROOST_B][B2]["roost"] == 1
    assert state.round == 1 and state.turn_seat is A1


def test_R12_eyrie_without_a_team_keep_chooses_any_free_home_corner() -> None:
    state = fresh(lineup="A=-,eyrie;B=marquise")
    setup_seat(state, KEEP_B)  # the rival keep is on the other map
    corners = {c.clearing for c in commands_of(state, A2, CommandKind.PLACE_ROOST)}
    assert corners == set(board().corners("autumn"))


@pytest.mark.parametrize("leader", LEADERS)
def test_eyrie_setup_leader_choice_tucks_the_two_viziers(leader: str) -> None:
    state = fresh()
    setup_seat(state, KEEP_A)
    setup_seat(state, KEEP_B)
    play(state, first_legal(state, CommandKind.PLACE_ROOST))
    offered = {c.piece for c in commands_of(state, A2, CommandKind.CHOOSE_LEADER)}
    assert offered == set(LEADERS)
    events = play(state, Command(CommandKind.CHOOSE_LEADER, A2, piece=leader))
    assert find(events, EventKind.LEADER_CHOSEN)[0].piece == leader
    ey = eyrie(state, A2)
    assert ey.leader == leader
    assert sorted(ey.candidates) == sorted(x for x in LEADERS if x != leader)
    tucked = {col: entries for col, entries in ey.decree.items() if entries}
    first, second = VIZIER_COLUMNS[leader]
    assert tucked == {first: [VIZIERS[0]], second: [VIZIERS[1]]}


# ----- Birdsong ----------------------------------------------------------------------------------


def _to_eyrie_birdsong(hand: list[str], **kw: object) -> State:
    """B1 ends its Daylight; its Evening runs and A2's turn starts (Birdsong)."""
    state = eyrie_position(turn=B1, step="daylight.actions", hands={A2: hand}, **kw)  # type: ignore[arg-type]
    play(state, Command(CommandKind.END_PHASE, B1))
    assert state.turn_seat is A2
    return state


def test_eyrie_emergency_orders_draw_a_card_with_an_empty_hand() -> None:
    state = eyrie_position(turn=B1, step="daylight.actions", hands={A2: []})
    events = play(state, Command(CommandKind.END_PHASE, B1))
    drawn = [e for e in find(events, EventKind.CARDS_DRAWN) if e.seat == A2.value]
    assert [len(e.cards) for e in drawn] == [1]
    assert state.step == "birdsong.decree" and len(state.seats[A2].hand) == 1


def test_eyrie_emergency_orders_do_nothing_with_cards_in_hand() -> None:
    state = eyrie_position(turn=B1, step="daylight.actions", hands={A2: [FOX]})
    events = play(state, Command(CommandKind.END_PHASE, B1))
    assert not [e for e in find(events, EventKind.CARDS_DRAWN) if e.seat == A2.value]
    assert state.seats[A2].hand == [FOX]


def test_eyrie_must_add_one_or_two_cards_to_the_decree_at_most_one_bird() -> None:
    state = _to_eyrie_birdsong([FOX, BIRD, BIRD2, RABBIT])
    adds = commands_of(state, A2, CommandKind.ADD_TO_DECREE)
    assert {(c.cards[0], c.piece) for c in adds} == {
        (cid, col) for cid in (FOX, BIRD, BIRD2, RABBIT) for col in VIZIER_COLUMNS["builder"]
    } | {(cid, col) for cid in (FOX, BIRD, BIRD2, RABBIT) for col in ("battle", "build")}
    assert not commands_of(state, A2, CommandKind.END_PHASE)  # at least one card
    play(state, Command(CommandKind.ADD_TO_DECREE, A2, cards=(BIRD,), piece="battle"))
    adds = commands_of(state, A2, CommandKind.ADD_TO_DECREE)
    assert {c.cards[0] for c in adds} == {FOX, RABBIT}  # the second bird is refused
    assert commands_of(state, A2, CommandKind.END_PHASE)  # one card is enough
    assert_refused(
        state,
        Command(CommandKind.ADD_TO_DECREE, A2, cards=(BIRD2,), piece="move"),
        IllegalCommand,
    )
    events = play(state, Command(CommandKind.ADD_TO_DECREE, A2, cards=(FOX,), piece="move"))
    assert state.step != "birdsong.decree"  # two cards: the step ends by itself
    added = find(events, EventKind.DECREE_ADDED)
    assert [(e.cards, e.piece) for e in added] == [((FOX,), "move")]
    decree = eyrie(state, A2).decree
    assert BIRD in decree["battle"] and FOX in decree["move"]
    assert sorted(state.seats[A2].hand) == sorted([BIRD2, RABBIT])


def test_eyrie_adds_one_card_and_ends_the_step() -> None:
    state = _to_eyrie_birdsong([FOX, RABBIT], pieces={WEALD: {A2: {"roost": 1, "warrior": 1}}})
    play(state, Command(CommandKind.ADD_TO_DECREE, A2, cards=(RABBIT,), piece="recruit"))
    events = play(state, Command(CommandKind.END_PHASE, A2))
    assert "daylight.decree" in [e.text for e in find(events, EventKind.STEP_SET)]
    assert state.seats[A2].hand == [FOX]
    assert RABBIT in eyrie(state, A2).decree["recruit"]


def test_eyrie_adding_the_last_card_of_the_hand_ends_the_step() -> None:
    state = _to_eyrie_birdsong([FOX], pieces={WEALD: {A2: {"roost": 1, "warrior": 1}}})
    events = play(state, Command(CommandKind.ADD_TO_DECREE, A2, cards=(FOX,), piece="build"))
    assert "daylight.decree" in [e.text for e in find(events, EventKind.STEP_SET)]


def _fill_board_but(state: State, empty: set[str]) -> None:
    """One B1 or A1 warrior in every clearing not in ``empty`` (except the keep clearing)."""
    for i, c in enumerate(board().order):
        if c in empty or c == KEEP_A:
            continue
        seat = B1 if i % 2 else A1
        state.seats[seat].supply["warrior"] -= 1
        state.pieces[c].setdefault(seat, {})["warrior"] = 1


def test_eyrie_new_roost_in_the_placeable_clearing_with_fewest_warriors() -> None:
    state = eyrie_position(
        turn=B1,
        step="daylight.actions",
        hands={A2: [FOX]},
        pieces={KEEP_A: {A1: {"keep": 1}}, HAVEN: {A1: {"sawmill": 1}}},
    )
    _fill_board_but(state, {POND, HAVEN, MEADOW})  # haven's only slot is full
    play(state, Command(CommandKind.END_PHASE, B1))
    play(state, Command(CommandKind.ADD_TO_DECREE, A2, cards=(FOX,), piece="move"))
    assert state.step == "birdsong.roost"
    options = {c.clearing for c in commands_of(state, A2, CommandKind.PLACE_ROOST)}
    assert options == {POND, MEADOW}  # keep clearing and a full clearing are excluded
    events = play(state, Command(CommandKind.PLACE_ROOST, A2, clearing=POND))
    assert {(e.piece, e.count) for e in find(events, EventKind.PIECES_PLACED)} >= {
        ("roost", 1),
        ("warrior", 3),
    }
    assert state.pieces[POND][A2] == {"roost": 1, "warrior": 3}


def test_eyrie_no_new_roost_while_one_is_on_the_map() -> None:
    state = eyrie_position(
        turn=B1, step="daylight.actions", hands={A2: [FOX]}, pieces={WEALD: {A2: {"roost": 1}}}
    )
    play(state, Command(CommandKind.END_PHASE, B1))
    events = play(state, Command(CommandKind.ADD_TO_DECREE, A2, cards=(FOX,), piece="move"))
    assert "birdsong.roost" in [e.text for e in find(events, EventKind.STEP_SET)]
    assert not [e for e in find(events, EventKind.PIECES_PLACED) if e.piece == "roost"]


# ----- Daylight: crafting ----------------------------------------------------------------------


@pytest.mark.parametrize(("leader", "vp"), [("commander", 1), ("despot", 1), ("builder", 2)])
def test_eyrie_crafts_with_roosts_and_disdain_for_trade_unless_builder(
    leader: str, vp: int
) -> None:
    state = eyrie_position(
        step="daylight.craft",
        leader=leader,
        hands={A2: [FOX]},  # Anvil: hammer, cost fox, 2 VP printed
        pieces={MOUNTAIN: {A2: {"roost": 1, "warrior": 1}}},
    )
    craft = commands_of(state, A2, CommandKind.CRAFT)
    assert [(c.cards, c.clearings) for c in craft] == [((FOX,), (MOUNTAIN,))]
    events = play(state, craft[0])
    crafted = [e for e in find(events, EventKind.SCORED) if e.text.startswith("crafted")]
    assert [e.amount for e in crafted] == [vp]


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


def test_eyrie_turmoil_when_charismatic_cannot_place_both_warriors() -> None:
    state = eyrie_position(
        step="daylight.craft",
        leader="charismatic",  # viziers in Recruit and Battle
        pieces={WEALD: {A2: {"roost": 1, "warrior": 19}}, MOUNTAIN: {B1: {"warrior": 1}}},
    )
    assert state.seats[A2].supply["warrior"] == 1
    events = play(state, Command(CommandKind.END_PHASE, A2))
    assert find(events, EventKind.TURMOIL)
    assert not find(events, EventKind.PIECES_PLACED)


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
    _done(state, "move")  # the Commander's Move vizier
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
    _done(state, "move")
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
    rival_fox = _winter(probe, "fox")
    pieces = {
        rival_fox: {A2: {"warrior": 2}, B1: {"warrior": 1}},
        WEALD: {A2: {"roost": 1, "warrior": 1}},
    }
    if home_enemy:
        pieces[WEALD][B1] = {"warrior": 1}
    state = eyrie_position(round_no=round_no, decree={"battle": [FOX]}, pieces=pieces)
    _done(state, "move")
    return state


@pytest.mark.parametrize("round_no", [1, 2])
def test_R24_imperial_isolation_skip_allowed_only_when_all_resolutions_are_on_rival_map(
    round_no: int,
) -> None:
    state = _isolation_position(round_no, home_enemy=True)
    rival_fox = _winter(state, "fox")
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


def test_R24_no_skip_when_a_card_has_no_legal_resolution_at_all() -> None:
    state = eyrie_position(
        step="daylight.craft",
        round_no=1,
        decree={"battle": [FOX]},
        pieces={WEALD: {A2: {"roost": 1, "warrior": 1}}, MOUNTAIN: {A2: {"warrior": 1}}},
    )
    _done(state, "move")
    _done(state, "battle")  # the vizier; only the fox battle card is left, and no fox enemy
    events = play(state, Command(CommandKind.END_PHASE, A2))
    assert find(events, EventKind.TURMOIL)
    assert not find(events, EventKind.DECREE_CARD_SKIPPED)


# ----- Evening ---------------------------------------------------------------------------------

ROOST_SPOTS = (POND, MEADOW, "autumn.dune", CREEK, "autumn.glade", "autumn.waterfall", QUARRY)


@pytest.mark.parametrize("roosts", range(8))
def test_eyrie_evening_scores_the_roost_track_and_draws_with_bonuses(roosts: int) -> None:
    pieces = {c: {A2: {"roost": 1}} for c in ROOST_SPOTS[:roosts]}
    state = eyrie_position(step="daylight.actions", pieces=pieces)
    state.scores[Team.A] = 0
    events = play(state, Command(CommandKind.END_PHASE, A2))
    scored = [e.amount for e in find(events, EventKind.SCORED) if e.text == "roosts"]
    assert sum(scored) == ROOST_VP[roosts] == (0, 0, 1, 2, 3, 4, 4, 5)[roosts]
    drawn = [e for e in find(events, EventKind.CARDS_DRAWN) if e.seat == A2.value]
    expected = 1 + (roosts >= 3) + (roosts >= 6)
    assert sum(len(e.cards) for e in drawn[:1]) == expected


def test_eyrie_evening_discards_down_to_five() -> None:
    hand = [FOX, RABBIT, MOUSE, BIRD, BIRD2, "root_tea_fox"]
    state = eyrie_position(step="daylight.actions", hands={A2: hand})
    play(state, Command(CommandKind.END_PHASE, A2))
    assert state.step == "evening.discard" and len(state.seats[A2].hand) == 7
    while state.step == "evening.discard" and state.turn_seat is A2:
        play(state, commands_of(state, A2, CommandKind.DISCARD)[0])
    assert len(state.seats[A2].hand) == 5


# ----- leaders in battle -----------------------------------------------------------------------


def _battle_position(leader: str, b1_pieces: dict[str, int], dice: tuple[int, int]) -> State:
    state = eyrie_position(
        leader=leader,
        decree={"battle": [FOX]},
        pieces={MOUNTAIN: {A2: {"warrior": 3}, B1: b1_pieces}, WEALD: {A2: {"roost": 1}}},
    )
    for column in VIZIER_COLUMNS[leader]:  # the viziers are done; the fox card remains
        _done(state, column)
    state.rng = dice_seed(*dice)
    return state


def _fight(state: State) -> list:  # type: ignore[type-arg]
    return play(
        state, Command(CommandKind.DECREE_BATTLE, A2, clearing=MOUNTAIN, target="B1", piece="fox")
    )


@pytest.mark.parametrize(("leader", "extra"), [("commander", 1), ("despot", 0), ("builder", 0)])
def test_eyrie_leader_commander_deals_one_extra_hit_when_attacking(leader: str, extra: int) -> None:
    state = _battle_position(leader, {"warrior": 5}, dice=(2, 1))
    events = _fight(state)
    hits = find(events, EventKind.HITS_SET)
    assert [tuple(e.values) for e in hits] == [(2, 1, extra, 0)]
    assert state.pieces[MOUNTAIN][B1]["warrior"] == 5 - 2 - extra


def test_eyrie_leader_commander_bonus_only_as_attacker() -> None:
    state = eyrie_position(
        turn=B1,
        step="daylight.actions",
        pieces={MOUNTAIN: {A2: {"warrior": 3}, B1: {"warrior": 3}}},
    )
    state.actions = 1
    state.rng = dice_seed(2, 1)
    events = play(state, Command(CommandKind.BATTLE, B1, clearing=MOUNTAIN, target="A2"))
    assert [tuple(e.values) for e in find(events, EventKind.HITS_SET)] == [(2, 1, 0, 0)]


def test_eyrie_leader_despot_scores_once_per_battle_removing_buildings() -> None:
    state = _battle_position("despot", {"sawmill": 1, "workshop": 1}, dice=(3, 3))
    state.scores[Team.A] = 0
    events = _fight(state)
    removed = [e.piece for e in find(events, EventKind.PIECES_REMOVED)]
    assert sorted(removed) == ["sawmill", "workshop"]
    scored = [(e.text, e.amount) for e in find(events, EventKind.SCORED) if e.seat == "A2"]
    assert sorted(scored) == sorted(
        [("removed sawmill", 1), ("removed workshop", 1), ("despot", 1)]
    )


def test_eyrie_leader_despot_scores_nothing_when_only_warriors_fall() -> None:
    state = _battle_position("despot", {"warrior": 2}, dice=(2, 0))
    events = _fight(state)
    assert not [e for e in find(events, EventKind.SCORED) if e.text == "despot"]


# ----- R13 Lords of the Forest in team ruling ---------------------------------------------------


def _ruling(pieces: dict[str, dict[str, int]]) -> Team | None:
    from frontier.engine.model import Seat

    state = eyrie_position(
        pieces={CREEK: {Seat(s): kinds for s, kinds in pieces.items()}}, step="daylight.actions"
    )
    return ruler(state, CREEK)


def test_R13_lords_of_the_forest_tie_goes_to_the_team_with_an_eyrie_piece() -> None:
    assert _ruling({"A2": {"warrior": 1}, "B1": {"warrior": 1}}) is Team.A
    assert _ruling({"B2": {"warrior": 2}, "A1": {"warrior": 2}}) is Team.B


def test_R13_lords_of_the_forest_tie_counts_teammates_and_a_lone_roost() -> None:
    # Team A: 1 Marquise warrior + 1 roost = 2; team B: 2 warriors -> tied, A has an Eyrie piece
    assert _ruling({"A1": {"warrior": 1}, "A2": {"roost": 1}, "B1": {"warrior": 2}}) is Team.A


def test_R13_lords_of_the_forest_tie_without_or_with_two_eyries_rules_nobody() -> None:
    assert _ruling({"A1": {"warrior": 1}, "B1": {"warrior": 1}}) is None
    assert _ruling({"A2": {"warrior": 1}, "B2": {"warrior": 1}}) is None


def test_R13_lords_of_the_forest_does_not_beat_a_higher_sum() -> None:
    assert _ruling({"A2": {"warrior": 2}, "B1": {"warrior": 2}, "B2": {"warrior": 1}}) is Team.B


def test_R13_lords_of_the_forest_lets_the_marquise_march_out_of_a_tied_clearing() -> None:
    from tests.engine_helpers import legal_of

    state = eyrie_position(
        turn=A1,
        step="daylight.actions",
        pieces={CREEK: {A1: {"warrior": 1}, A2: {"warrior": 1}, B1: {"warrior": 2}}},
    )
    state.actions = 1
    marches = {(c.clearing, c.to) for c in legal_of(state, CommandKind.MARCH)}
    assert (CREEK, "autumn.hill") in marches  # tied 2-2, the team holds an Eyrie warrior
    state.pieces[CREEK][A2]["warrior"] = 0
    state.seats[A2].supply["warrior"] += 1
    state.pieces[CREEK][A1]["warrior"] = 2
    state.seats[A1].supply["warrior"] -= 1
    marches = {(c.clearing, c.to) for c in legal_of(state, CommandKind.MARCH)}
    assert (CREEK, "autumn.hill") not in marches  # same sum, no Eyrie piece: nobody rules


# ----- views -----------------------------------------------------------------------------------


def test_eyrie_view_shows_decree_and_leader_to_all_but_not_the_hand() -> None:
    state = eyrie_position(decree={"battle": [FOX]}, hands={A2: [RABBIT, MOUSE]})
    for viewer in (None, B1, A1, A2):
        v = view(state, viewer)
        mine = next(s for s in v["seats"] if s["seat"] == "A2")
        assert mine["faction_state"]["leader"] == "commander"
        assert mine["faction_state"]["decree"]["battle"] == [VIZIERS[1], FOX]
        assert mine["hand_count"] == 2
        if viewer is not A2:
            assert "A2" not in v["hands"] and "A2" not in v["private"]
            assert RABBIT not in str(v) and MOUSE not in str(v)
    assert view(state, A2)["hands"]["A2"] == sorted([RABBIT, MOUSE])


def test_eyrie_emergency_draw_is_hidden_from_other_seats() -> None:
    state = eyrie_position(turn=B1, step="daylight.actions", hands={A2: []})
    events = play(state, Command(CommandKind.END_PHASE, B1))
    draw = next(e for e in find(events, EventKind.CARDS_DRAWN) if e.seat == "A2")
    assert event_for(state, draw, B2).cards == ("hidden",)
    assert event_for(state, draw, A2).cards == draw.cards


def test_eyrie_setup_events_rebuild_the_state() -> None:
    from frontier.engine import fold
    from frontier.engine.hashing import state_hash

    state = fresh(3)
    events = setup_seat(state, KEEP_A) + setup_seat(state, KEEP_B)
    events += setup_eyrie(state, "despot") + setup_eyrie(state, "charismatic")
    assert kinds_of(events).count("leader_chosen") == 2
    assert state_hash(fold(fresh(3), events)) == state_hash(state)
