"""Eyrie Dynasties (base Root §10) with the variant's setup (R12) and Lords of the Forest in
team ruling (R13): pieces, Birdsong, crafting, Evening, leaders in battle, views.  The Decree
and Imperial Isolation (R24) are in ``test_eyrie_decree.py``."""

from __future__ import annotations

import pytest

from frontier.engine import Command, CommandKind, EventKind, IllegalCommand, State, Team
from frontier.engine.board import board
from frontier.engine.factions.eyrie_board import LEADERS, ROOST_VP, VIZIER_COLUMNS, VIZIERS, eyrie
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
    BIRD,
    BIRD2,
    CREEK,
    FOX,
    HAVEN,
    KEEP_A,
    KEEP_B,
    MEADOW,
    MOUND,
    MOUNTAIN,
    MOUSE,
    POND,
    QUARRY,
    RABBIT,
    ROOST_A,
    ROOST_B,
    WEALD,
    commands_of,
    eyrie_position,
    find,
    fresh,
    mark_resolved,
    setup_eyrie,
)

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
        mark_resolved(state, column)
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
