"""Battle (base Root §5) with a declared defender (R14)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from frontier.engine import (
    Command,
    CommandKind,
    Event,
    EventKind,
    IllegalCommand,
    Seat,
    State,
    Team,
    legal_commands,
)
from frontier.engine.model import Faction
from frontier.engine.state import SeatSpec
from tests.engine_helpers import (
    A,
    B,
    assert_conserved,
    assert_refused,
    dice_seed,
    kinds_of,
    legal_of,
    play,
    position,
)

CREEK = "autumn.creek"  # a rabbit clearing with 2 slots


def _battle(
    attacker: Mapping[str, int],
    defender: Mapping[str, int],
    *,
    dice: tuple[int, int] = (0, 0),
    hand_a: tuple[str, ...] = (),
    hand_b: tuple[str, ...] = (),
    play_a: tuple[str, ...] = (),
    play_b: tuple[str, ...] = (),
) -> State:
    state = position(
        pieces={CREEK: {A: dict(attacker), B: dict(defender)}},
        hands={A: hand_a, B: hand_b},
        in_play={A: play_a, B: play_b},
    )
    state.rng = dice_seed(*dice)
    return state


def _attack(state: State, target: Seat = B) -> list[Event]:
    return play(state, Command(CommandKind.BATTLE, A, clearing=CREEK, target=target.value))


def _warriors(state: State, seat: Seat) -> int:
    return state.pieces[CREEK].get(seat, {}).get("warrior", 0)


def test_R14_attacker_declares_one_defender_and_allies_never_battle() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 3}, B: {"warrior": 1}}})
    state.lineup[Seat.A2] = SeatSpec(Faction.EYRIE)
    state.lineup[Seat.B2] = SeatSpec(Faction.ALLIANCE)
    state.pieces[CREEK][Seat.A2] = {"warrior": 2}
    state.pieces[CREEK][Seat.B2] = {"warrior": 4}
    battles = {(c.clearing, c.target) for c in legal_of(state, CommandKind.BATTLE)}
    assert battles == {(CREEK, "B1"), (CREEK, "B2")}  # one target each, never the ally A2
    assert_refused(
        state,
        Command(CommandKind.BATTLE, A, clearing=CREEK, target="A2"),
        IllegalCommand,
    )
    state.rng = dice_seed(3, 0)
    events = _attack(state, B)
    started = next(e for e in events if e.kind is EventKind.BATTLE_STARTED)
    assert (started.seat, started.target) == ("A1", "B1")
    # only the declared defender loses pieces; hits beyond its pieces are lost
    removed = [e for e in events if e.kind is EventKind.PIECES_REMOVED]
    assert [(e.seat, e.count) for e in removed] == [("B1", 1)]
    assert state.pieces[CREEK][Seat.B2] == {"warrior": 4}
    assert state.pieces[CREEK][Seat.A2] == {"warrior": 2}


def test_battle_needs_own_warriors_and_an_enemy_piece() -> None:
    state = position(
        pieces={
            CREEK: {A: {"sawmill": 1}, B: {"warrior": 1}},
            "autumn.hill": {A: {"warrior": 1}},
            "autumn.dune": {A: {"warrior": 1}, B: {"wood": 1}},
        }
    )
    battles = {c.clearing for c in legal_of(state, CommandKind.BATTLE)}
    assert battles == {"autumn.dune"}  # a defender with only a token may be attacked


def test_battle_ambush_deals_two_hits_and_foil_cancels() -> None:
    # no foil: 2 hits to the attacker before the roll
    state = _battle({"warrior": 3}, {"warrior": 2}, hand_b=("ambush_rabbit",))
    events = _attack(state)
    assert state.decisions[0].seat is B and state.decisions[0].kind == "ambush"
    options = legal_of(state, CommandKind.AMBUSH, B)
    assert [c.cards for c in options] == [("ambush_rabbit",)]
    events = play(state, Command(CommandKind.AMBUSH, B, cards=("ambush_rabbit",)))
    assert "ambush_played" in kinds_of(events)
    ambush_hits = next(e for e in events if e.kind is EventKind.PIECES_REMOVED)
    assert (ambush_hits.seat, ambush_hits.count) == ("A1", 2)
    assert "ambush_rabbit" in state.discard
    assert state.battle is None and _warriors(state, A) == 1

    # foil: the attacker cancels with its own ambush matching the clearing
    state = _battle(
        {"warrior": 3}, {"warrior": 2}, hand_a=("ambush_bird.1",), hand_b=("ambush_rabbit",)
    )
    _attack(state)
    play(state, Command(CommandKind.AMBUSH, B, cards=("ambush_rabbit",)))
    assert state.decisions[0].seat is A and state.decisions[0].kind == "foil"
    events = play(state, Command(CommandKind.FOIL, A, cards=("ambush_bird.1",)))
    assert "ambush_foiled" in kinds_of(events)
    assert _warriors(state, A) == 3  # dice (0, 0): nobody lost anything
    assert {"ambush_rabbit", "ambush_bird.1"} <= set(state.discard)
    assert_conserved(state)


def test_battle_ambush_kills_every_attacker_warrior_and_the_battle_ends() -> None:
    state = _battle({"warrior": 2}, {"warrior": 2}, dice=(3, 3), hand_b=("ambush_bird.1",))
    _attack(state)
    events = play(state, Command(CommandKind.AMBUSH, B, cards=("ambush_bird.1",)))
    assert EventKind.DICE_ROLLED not in {e.kind for e in events}
    assert _warriors(state, A) == 0 and _warriors(state, B) == 2


def test_battle_ambush_hits_go_on_to_buildings() -> None:
    state = _battle({"warrior": 1, "sawmill": 1}, {"warrior": 1}, hand_b=("ambush_rabbit",))
    _attack(state)
    events = play(state, Command(CommandKind.AMBUSH, B, cards=("ambush_rabbit",)))
    removed = [(e.seat, e.piece) for e in events if e.kind is EventKind.PIECES_REMOVED]
    assert removed == [("A1", "warrior"), ("A1", "sawmill")]
    assert state.scores[Team.B] == 1  # the defender scores the building


def test_battle_foil_must_match_the_clearing_not_the_ambush_card() -> None:
    # bird ambush in a rabbit clearing: a rabbit ambush foils it, a fox ambush cannot
    state = _battle(
        {"warrior": 3},
        {"warrior": 2},
        hand_a=("ambush_rabbit", "ambush_fox"),
        hand_b=("ambush_bird.1",),
    )
    _attack(state)
    play(state, Command(CommandKind.AMBUSH, B, cards=("ambush_bird.1",)))
    foils = [c.cards for c in legal_of(state, CommandKind.FOIL, A)]
    assert foils == [("ambush_rabbit",)]
    assert_refused(state, Command(CommandKind.FOIL, A, cards=("ambush_fox",)), IllegalCommand)
    # the attacker may also decline the foil
    events = play(state, Command(CommandKind.DECLINE, A))
    assert "decision_declined" in kinds_of(events)
    assert _warriors(state, A) == 1


def test_R4_ambush_must_match_the_clearing_and_opens_with_any_card() -> None:
    state = _battle({"warrior": 3}, {"warrior": 2}, hand_b=("ambush_fox", "ambush_mouse"))
    events = _attack(state)
    # no matching ambush: the decision still opens (R4), offering only DECLINE
    assert (state.decisions[0].seat, state.decisions[0].kind) == (B, "ambush")
    assert legal_commands(state, B) == [Command(CommandKind.DECLINE, B)]
    assert "dice_rolled" not in kinds_of(events)
    play(state, Command(CommandKind.DECLINE, B))
    assert state.battle is None and set(state.seats[B].hand) == {"ambush_fox", "ambush_mouse"}


def test_R4_no_ambush_decision_without_a_card_in_hand() -> None:
    state = _battle({"warrior": 3}, {"warrior": 2})
    events = _attack(state)
    assert "decision_requested" not in kinds_of(events) and state.battle is None


def test_R4_the_foil_decision_opens_whenever_the_attacker_holds_a_card() -> None:
    state = _battle({"warrior": 3}, {"warrior": 2}, hand_a=("anvil",), hand_b=("ambush_rabbit",))
    _attack(state)
    play(state, Command(CommandKind.AMBUSH, B, cards=("ambush_rabbit",)))
    assert (state.decisions[0].seat, state.decisions[0].kind) == (A, "foil")
    assert legal_commands(state, A) == [Command(CommandKind.DECLINE, A)]
    events = play(state, Command(CommandKind.DECLINE, A))
    assert next(e for e in events if e.kind is EventKind.PIECES_REMOVED).count == 2


def test_battle_scouting_party_prevents_ambush() -> None:
    state = _battle(
        {"warrior": 3}, {"warrior": 2}, hand_b=("ambush_bird.1",), play_a=("scouting_party.1",)
    )
    events = _attack(state)
    assert "decision_requested" not in kinds_of(events)
    assert "ambush_bird.1" in state.seats[B].hand
    assert state.battle is None


def test_battle_dice_caps_by_warriors() -> None:
    state = _battle({"warrior": 1}, {"warrior": 1}, dice=(3, 2))
    events = _attack(state)
    rolled = next(e for e in events if e.kind is EventKind.DICE_ROLLED)
    assert tuple(rolled.values) == (3, 2)
    hits = next(e for e in events if e.kind is EventKind.HITS_SET)
    assert tuple(hits.values)[:2] == (1, 1)  # each side capped by its own warriors
    assert _warriors(state, A) == 0 and _warriors(state, B) == 0

    state = _battle({"warrior": 5}, {"warrior": 5}, dice=(3, 2))
    _attack(state)
    assert _warriors(state, A) == 3 and _warriors(state, B) == 2  # attacker deals the higher


def test_battle_defenseless_extra_hit() -> None:
    state = _battle({"warrior": 1}, {"sawmill": 1, "workshop": 1}, dice=(1, 0))
    events = _attack(state)
    hits = next(e for e in events if e.kind is EventKind.HITS_SET)
    assert tuple(hits.values)[:3] == (1, 0, 1)  # rolled 1 + defenseless 1
    assert not state.decisions  # 2 hits for 2 buildings: no choice to make
    assert state.pieces[CREEK][B] == {"sawmill": 0, "workshop": 0}
    assert state.scores[Team.A] == 2
    # with warriors there, the defender is not defenseless
    state = _battle({"warrior": 1}, {"warrior": 1, "sawmill": 1}, dice=(1, 0))
    hits = next(e for e in _attack(state) if e.kind is EventKind.HITS_SET)
    assert tuple(hits.values)[:3] == (1, 0, 0)


def test_battle_warriors_before_buildings_and_choice_of_building() -> None:
    state = _battle({"warrior": 3}, {"warrior": 1, "sawmill": 1, "workshop": 1}, dice=(2, 0))
    events = _attack(state)
    removed = [(e.piece, e.count) for e in events if e.kind is EventKind.PIECES_REMOVED]
    assert removed == [("warrior", 1)]  # the warrior first
    d = state.decisions[0]
    assert (d.seat, d.kind, d.count) == (B, "allocate_hits", 1)
    options = {c.piece for c in legal_of(state, CommandKind.REMOVE_PIECE, B)}
    assert options == {"sawmill", "workshop"}
    assert_refused(
        state, Command(CommandKind.REMOVE_PIECE, B, clearing=CREEK, piece="keep"), IllegalCommand
    )
    play(state, Command(CommandKind.REMOVE_PIECE, B, clearing=CREEK, piece="workshop"))
    assert state.pieces[CREEK][B] == {"warrior": 0, "sawmill": 1, "workshop": 0}
    assert state.battle is None
    assert state.scores[Team.A] == 1


def test_battle_no_choice_when_hits_cover_every_building() -> None:
    state = _battle({"warrior": 3}, {"sawmill": 1, "wood": 1}, dice=(1, 0))
    _attack(state)  # 1 rolled + 1 defenseless = 2 hits = both pieces
    assert not state.decisions
    assert state.pieces[CREEK][B] == {"sawmill": 0, "wood": 0}


def test_battle_vp_for_buildings_and_tokens() -> None:
    state = _battle({"warrior": 3}, {"sawmill": 1, "wood": 1, "keep": 1}, dice=(3, 0))
    events = _attack(state)
    scored = [(e.seat, e.amount, e.target) for e in events if e.kind is EventKind.SCORED]
    assert sum(a for _, a, _ in scored) == 3  # 1 VP per enemy building or token
    assert all(s == "A1" and t == "A" for s, _, t in scored)
    assert state.scores == {Team.A: 3, Team.B: 0}
    # the keep is removed permanently; the sawmill and wood return to the supply
    assert state.seats[B].supply["keep"] == 0
    assert state.seats[B].supply["sawmill"] == 6 and state.seats[B].supply["wood"] == 8


def test_battle_removing_warriors_scores_nothing() -> None:
    state = _battle({"warrior": 3}, {"warrior": 3}, dice=(3, 3))
    _attack(state)
    assert state.scores == {Team.A: 0, Team.B: 0}


def test_battle_armorers_sappers_brutal_tactics() -> None:
    # Brutal Tactics: the attacker deals +1 hit, the defender scores 1 VP; the card stays
    state = _battle({"warrior": 3}, {"warrior": 3}, dice=(1, 1), play_a=("brutal_tactics.1",))
    _attack(state)
    assert state.decisions[0].kind == "battle_effects" and state.decisions[0].seat is A
    effects = legal_of(state, CommandKind.USE_EFFECT, A)
    assert [c.piece for c in effects] == ["brutal_tactics"]
    play(state, effects[0])
    assert _warriors(state, B) == 1 and _warriors(state, A) == 2
    assert state.scores[Team.B] == 1
    assert state.seats[A].play_area == ["brutal_tactics.1"]

    # Sappers: the defender deals +1 hit and discards the card
    state = _battle({"warrior": 3}, {"warrior": 3}, dice=(1, 1), play_b=("sappers.1",))
    _attack(state)
    assert state.decisions[0].seat is B
    play(state, Command(CommandKind.USE_EFFECT, B, piece="sappers", cards=("sappers.1",)))
    assert _warriors(state, A) == 1 and _warriors(state, B) == 2
    assert "sappers.1" in state.discard and state.seats[B].play_area == []

    # Armorers: ignore all rolled hits you would take (extra hits still land)
    state = _battle(
        {"warrior": 3},
        {"warrior": 3},
        dice=(2, 2),
        play_a=("armorers.1",),
        play_b=("sappers.1",),
    )
    _attack(state)
    play(state, Command(CommandKind.USE_EFFECT, A, piece="armorers", cards=("armorers.1",)))
    play(state, Command(CommandKind.USE_EFFECT, B, piece="sappers", cards=("sappers.1",)))
    assert _warriors(state, A) == 2  # 2 rolled hits ignored, the Sappers hit lands
    assert _warriors(state, B) == 1
    assert {"armorers.1", "sappers.1"} <= set(state.discard)
    assert_conserved(state)


def test_battle_armorers_not_offered_without_rolled_hits_and_effects_once_per_battle() -> None:
    state = _battle({"warrior": 3}, {"warrior": 3}, dice=(2, 0), play_a=("armorers.1",))
    _attack(state)
    assert not state.decisions  # no rolled hits against the attacker: nothing to ignore
    state = _battle(
        {"warrior": 3},
        {"warrior": 3},
        dice=(1, 1),
        play_a=("brutal_tactics.1", "armorers.1"),
    )
    _attack(state)
    play(
        state,
        Command(CommandKind.USE_EFFECT, A, piece="brutal_tactics", cards=("brutal_tactics.1",)),
    )
    assert [c.piece for c in legal_of(state, CommandKind.USE_EFFECT, A)] == ["armorers"]
    play(state, Command(CommandKind.DECLINE, A))
    assert state.battle is None


@pytest.mark.parametrize("dice", [(0, 0), (1, 0), (2, 1), (3, 3)])
def test_battle_dice_are_replayed_from_the_generator(dice: tuple[int, int]) -> None:
    state = _battle({"warrior": 4}, {"warrior": 4}, dice=dice)
    events = _attack(state)
    rolled = next(e for e in events if e.kind is EventKind.DICE_ROLLED)
    assert tuple(rolled.values) == dice
    assert _warriors(state, B) == 4 - dice[0] and _warriors(state, A) == 4 - dice[1]
