"""Frontier's rulings on teams and lineups, turn order, the map, setup and team ruling.

The deck, ruins and item stocks are in ``test_variant_deck.py``; victory in ``test_victory.py``.

Each test is named after the ruling (docs/rules.md) or base-rules section it checks.
"""

from __future__ import annotations

from collections import Counter

import pytest

from frontier.engine import (
    Command,
    CommandKind,
    EventKind,
    IllegalCommand,
    InvalidConfig,
    Seat,
    Team,
    WrongSeat,
    legal_commands,
    make_config,
)
from frontier.engine.board import AUTUMN, WINTER, board
from frontier.engine.lineup import parse_lineup
from frontier.engine.model import Character, Faction
from frontier.engine.pieces import ruler, rules
from frontier.engine.state import SeatSpec
from tests.engine_helpers import (
    A,
    B,
    after_setup,
    assert_conserved,
    assert_refused,
    clearings_of,
    first_legal,
    new_state,
    play,
    playout,
    setup_seat,
)

# ----- R1 / R2: teams, roles and lineups -------------------------------------------------------


def test_R1_seats_are_team_plus_role_and_team_a_is_home_on_autumn() -> None:
    assert [s.team for s in Seat] == [Team.A, Team.B] * 3
    from frontier.engine.board import HOME_MAP

    assert HOME_MAP == {Team.A: AUTUMN, Team.B: WINTER}


@pytest.mark.parametrize(
    ("lineup", "message"),
    [
        ("A=eyrie;B=marquise", r"Military 1"),  # wrong role order
        ("A=marquise,thief;B=marquise", r"seat A2 .*second"),  # a Vagabond in the second seat
        ("A=marquise,thief,tinker;B=marquise", r"seat A2"),  # two Vagabonds on one team
        ("A=marquise,eyrie,thief,tinker;B=marquise", r"a team has 3"),
        ("A=dragon;B=marquise", r"unknown faction 'dragon'"),
        ("A=marquise", r"team B has no faction"),
        ("C=marquise;B=marquise", r"unknown team"),
        ("A=marquise;A=marquise", r"listed twice"),
        ("marquise", r"must look like"),
    ],
)
def test_R2_invalid_lineups_rejected(lineup: str, message: str) -> None:
    with pytest.raises(InvalidConfig, match=message):
        make_config(lineup=lineup)


_SEAT_OF: dict[Faction, str] = {
    Faction.EYRIE: "A=marquise,eyrie;B=marquise",
    Faction.ALLIANCE: "A=marquise;B=marquise,alliance",
    Faction.VAGABOND: "A=marquise,,thief;B=marquise",
}


@pytest.mark.parametrize("faction", sorted(_SEAT_OF))
def test_R2_unimplemented_faction_rejected_with_a_clear_message(faction: Faction) -> None:
    # Every faction exists now, so check the rule against an engine build with only the
    # Marquise: that is what a lineup naming a faction under construction meets.
    only_marquise = frozenset({Faction.MARQUISE})
    with pytest.raises(
        InvalidConfig, match=rf"'{faction.value}' \(seat [AB][23]\) is not implemented"
    ):
        parse_lineup(_SEAT_OF[faction], implemented=only_marquise)


def test_R2_two_vagabonds_on_one_team_rejected_even_when_all_factions_exist() -> None:
    every = frozenset(Faction)
    with pytest.raises(InvalidConfig, match="Vagabond"):
        parse_lineup("A=marquise,ranger,thief;B=marquise", implemented=every)
    lineup = parse_lineup("A=marquise,eyrie,thief;B=marquise,alliance,tinker", implemented=every)
    assert lineup[Seat.A3] == SeatSpec(Faction.VAGABOND, Character.THIEF)
    assert lineup[Seat.B2].faction is Faction.ALLIANCE


def test_R2_both_teams_may_field_the_same_faction() -> None:
    state = new_state()
    assert state.lineup == {A: SeatSpec(Faction.MARQUISE), B: SeatSpec(Faction.MARQUISE)}
    assert state.seats[A].supply == state.seats[B].supply
    assert state.seats[A].supply is not state.seats[B].supply


@pytest.mark.parametrize(
    "values",
    [
        {"seed": -1},
        {"seed": 2**63},
        {"max_rounds": 0},
        {"max_rounds": 7},
        {"lineup": 3},
        {"colour": "red"},
    ],
)
def test_invalid_config_raises_invalid_config(values: dict[str, object]) -> None:
    with pytest.raises(InvalidConfig) as info:
        make_config(**values)
    assert str(info.value)


# ----- R3: turn order and the round limit ------------------------------------------------------


def test_R3_turn_order_and_six_rounds() -> None:
    state, log = playout(seed=3, bot_seed=4)
    starts = [
        (e.seat, e.count) for _, events in log for e in events if e.kind is EventKind.TURN_STARTED
    ]
    rounds = [e.count for _, events in log for e in events if e.kind is EventKind.ROUND_STARTED]
    # setup: A's Marquise, then B's (count 0 = setup turn); then A1, B1 in every round
    assert starts[0] == ("B1", 0)
    assert starts[1:] == [(s, r) for r in range(1, 7) for s in ("A1", "B1")]
    assert rounds == [1, 2, 3, 4, 5, 6]
    assert state.round == 6
    assert state.winner in {"A", "B", "draw"}


def test_R3_turn_order_constant_is_a1_b1_a2_b2_a3_b3() -> None:
    from frontier.engine.model import TURN_ORDER

    assert [s.value for s in TURN_ORDER] == ["A1", "B1", "A2", "B2", "A3", "B3"]


def test_R3_max_rounds_option_shortens_the_match() -> None:
    state, log = playout(seed=5, bot_seed=5, max_rounds=2)
    assert state.round == 2 and state.over
    assert max(e.count for _, ev in log for e in ev if e.kind is EventKind.ROUND_STARTED) == 2


# ----- R5 / R6: the mega-map --------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 99, 123456789])
def test_R5_winter_suits_are_seeded_4_4_4(seed: int) -> None:
    state = new_state(seed)
    winter = Counter(state.suits[c] for c in clearings_of(WINTER))
    assert winter == {"fox": 4, "rabbit": 4, "mouse": 4}
    for c in clearings_of(AUTUMN):
        printed = board().clearings[c].printed_suit
        assert printed is not None and state.suits[c] == printed.value
    assert new_state(seed).suits == state.suits  # same seed, same markers


def test_R5_winter_suits_differ_between_seeds() -> None:
    layouts = {tuple(new_state(seed).suits[c] for c in clearings_of(WINTER)) for seed in range(8)}
    assert len(layouts) > 1


def test_R5_clearing_ids_are_map_qualified() -> None:
    b = board()
    assert len(b.order) == 24
    assert len(clearings_of(AUTUMN)) == 12 and len(clearings_of(WINTER)) == 12
    assert "autumn.quarry" in b.clearings and "winter.mound" in b.clearings
    assert all(c.split(".")[0] in (AUTUMN, WINTER) and c == c.lower() for c in b.order)


def test_R6_bridges_join_quarry_mound_and_weald_spire() -> None:
    b = board()
    cross = {
        frozenset((a, c)) for a in b.order for c in b.adjacent[a] if b.map_of(a) != b.map_of(c)
    }
    assert cross == {
        frozenset(("autumn.quarry", "winter.mound")),
        frozenset(("autumn.weald", "winter.spire")),
    }
    assert b.is_bridge("winter.mound", "autumn.quarry")
    assert not b.is_bridge("autumn.quarry", "autumn.creek")


def test_R6_a_bridge_creates_no_forest() -> None:
    b = board()
    assert len([f for f in b.forests if f.startswith("autumn.")]) == 7
    assert len([f for f in b.forests if f.startswith("winter.")]) == 8
    for forest, members in b.forests.items():
        assert len({b.map_of(c) for c in members}) == 1, forest


# ----- R12: setup on the home map ---------------------------------------------------------------


def test_R12_marquise_setup_on_home_map_only() -> None:
    state = new_state()
    keeps = {c.clearing for c in legal_commands(state, A)}
    assert keeps == set(board().corners(AUTUMN))
    events = setup_seat(state, "autumn.quarry")
    placed = {e.clearing for e in events if e.kind is EventKind.PIECES_PLACED}
    assert all(c.startswith("autumn.") for c in placed)
    for c in clearings_of(AUTUMN):
        expected = 0 if c == "autumn.quarry" else 1
        assert state.pieces[c].get(A, {}).get("warrior", 0) == expected
    assert state.seats[A].supply["warrior"] == 25 - 11
    # B's keep: a Winter corner, and nothing of A's Marquise is on Winter
    assert {c.clearing for c in legal_commands(state, B)} == set(board().corners(WINTER))
    assert not any(state.pieces[c] for c in clearings_of(WINTER))


def test_R12_setup_buildings_in_or_next_to_the_keep_on_the_home_map() -> None:
    state = new_state()
    play(state, first_legal(state, CommandKind.PLACE_KEEP, clearing="autumn.quarry"))
    spots = {c.clearing for c in legal_commands(state, A)}
    # Quarry's neighbours on Autumn; never winter.mound across the bridge
    assert spots == {"autumn.quarry", "autumn.creek", "autumn.beach", "autumn.mountain"}
    pieces = {c.piece for c in legal_commands(state, A)}
    assert pieces == {"sawmill", "workshop", "recruiter"}
    play(
        state,
        first_legal(state, CommandKind.PLACE_BUILDING, piece="sawmill", clearing="autumn.creek"),
    )
    assert {c.piece for c in legal_commands(state, A)} == {"workshop", "recruiter"}


def test_R12_keep_corner_with_one_slot_takes_buildings_in_neighbours() -> None:
    state = new_state()
    play(state, first_legal(state, CommandKind.PLACE_KEEP, clearing="autumn.hill"))
    play(state, first_legal(state, CommandKind.PLACE_BUILDING, clearing="autumn.hill"))
    assert "autumn.hill" not in {c.clearing for c in legal_commands(state, A)}


def test_R12_setup_choices_are_commands_of_the_seat_to_act() -> None:
    state = new_state()
    assert_refused(state, Command(CommandKind.PLACE_KEEP, B, clearing="winter.mound"), WrongSeat)
    assert_refused(
        state,
        Command(CommandKind.PLACE_KEEP, A, clearing="autumn.creek"),
        IllegalCommand,
        match="autumn.creek",
    )


def test_setup_plays_quickly_into_round_one() -> None:
    state = after_setup()
    assert state.round == 1 and state.turn_seat is A
    assert state.phase == "daylight"
    assert_conserved(state)


# ----- R13: team ruling -------------------------------------------------------------------------


def test_R13_team_sums_rule_a_clearing() -> None:
    state = new_state()
    state.lineup[Seat.A2] = SeatSpec(Faction.EYRIE)
    c = "autumn.creek"
    state.pieces[c] = {A: {"warrior": 2}, Seat.A2: {"warrior": 1}, B: {"warrior": 2, "sawmill": 0}}
    assert ruler(state, c) is Team.A  # 2 + 1 > 2
    assert rules(state, c, A) and rules(state, c, Seat.A2) and not rules(state, c, B)
    state.pieces[c][B]["sawmill"] = 2  # buildings count: 4 > 3
    assert ruler(state, c) is Team.B
    state.pieces[c][B] = {"warrior": 1, "wood": 5}  # tokens never count
    assert ruler(state, c) is Team.A


def test_R13_tie_rules_nobody_without_eyrie() -> None:
    state = new_state()
    c = "autumn.creek"
    state.pieces[c] = {A: {"warrior": 2}, B: {"warrior": 1, "workshop": 1}}
    assert ruler(state, c) is None
    assert not rules(state, c, A) and not rules(state, c, B)
    state.pieces[c] = {}
    assert ruler(state, c) is None


def test_R13_tie_goes_to_the_team_with_an_eyrie_piece() -> None:
    state = new_state()
    state.lineup[Seat.B2] = SeatSpec(Faction.EYRIE)
    c = "autumn.creek"
    state.pieces[c] = {A: {"warrior": 2}, B: {"warrior": 1}, Seat.B2: {"warrior": 1}}
    assert ruler(state, c) is Team.B
    state.lineup[Seat.A2] = SeatSpec(Faction.EYRIE)
    state.pieces[c] = {
        A: {"warrior": 1},
        Seat.A2: {"roost": 1},
        B: {"warrior": 1},
        Seat.B2: {"warrior": 1},
    }
    assert ruler(state, c) is None  # both teams hold an Eyrie piece: nobody


def test_R13_teammate_may_move_out_of_a_clearing_its_team_rules() -> None:
    from frontier.engine.movement import may_move

    state = new_state()
    state.lineup[Seat.A2] = SeatSpec(Faction.EYRIE)
    state.pieces["autumn.creek"] = {A: {"warrior": 3}, Seat.A2: {"warrior": 1}}
    state.pieces["autumn.hill"] = {B: {"warrior": 2}}
    assert may_move(state, Seat.A2, "autumn.creek", "autumn.hill")
    assert not may_move(state, Seat.A2, "autumn.hill", "autumn.beach")
