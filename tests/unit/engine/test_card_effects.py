"""Persistent cards of the standard deck (base Root §8, §14) in a team game (R32, R33)."""

from __future__ import annotations

from frontier.engine import (
    Command,
    CommandKind,
    EventKind,
    IllegalCommand,
    State,
    Team,
    legal_commands,
)
from frontier.engine.board import board
from frontier.engine.model import Item
from frontier.engine.pieces import clearings_ruled, warriors
from frontier.engine.state import DroppedItem
from frontier.engine.vagabond_state import vstate
from frontier.engine.view import event_for, view
from tests.contraband_helpers import A1, A2, A3, B1, B2, drop, full_position
from tests.engine_helpers import (
    CARD_OF,
    OTHER_CARD_OF,
    A,
    B,
    assert_conserved,
    assert_refused,
    dice_seed,
    legal_of,
    play,
    position,
    stack_deck,
)
from tests.vagabond_helpers import item_keys

CREEK, HILL, DUNE = "autumn.creek", "autumn.hill", "autumn.dune"


def test_royal_claim_scores_one_per_ruled_clearing_and_is_discarded() -> None:
    state = position(
        step="birdsong.cards",
        pieces={
            CREEK: {A: {"warrior": 1}},
            HILL: {A: {"sawmill": 1}},
            DUNE: {A: {"warrior": 1}, B: {"warrior": 1}},  # tied: nobody rules
            "winter.pit": {B: {"warrior": 1}},
        },
        in_play={A: ["royal_claim"]},
    )
    assert Command(CommandKind.ROYAL_CLAIM, A) in legal_of(state, CommandKind.ROYAL_CLAIM)
    events = play(state, Command(CommandKind.ROYAL_CLAIM, A))
    scored = next(e for e in events if e.kind is EventKind.SCORED)
    assert (scored.amount, scored.target) == (2, "A")
    assert state.seats[A].play_area == [] and "royal_claim" in state.discard
    assert_conserved(state)


def test_royal_claim_only_in_birdsong() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 1}}}, in_play={A: ["royal_claim"]})
    assert not legal_of(state, CommandKind.ROYAL_CLAIM)
    assert_refused(state, Command(CommandKind.ROYAL_CLAIM, A), IllegalCommand)


def test_R32_stand_and_deliver_vp_goes_to_the_victims_team() -> None:
    state = position(
        step="birdsong.cards",
        hands={B: [CARD_OF["fox"]]},
        in_play={A: ["stand_and_deliver.1", "royal_claim"]},  # Royal Claim keeps Birdsong open
    )
    events = play(state, Command(CommandKind.STAND_AND_DELIVER, A, target="B1"))
    given = next(e for e in events if e.kind is EventKind.CARD_GIVEN)
    assert (given.seat, given.target, given.cards) == ("B1", "A1", (CARD_OF["fox"],))
    assert state.seats[A].hand == [CARD_OF["fox"]] and state.seats[B].hand == []
    assert state.scores == {Team.A: 0, Team.B: 1}
    assert state.seats[B].vp == 1
    # once per Birdsong
    state.seats[B].hand.append(state.deck.pop())
    assert not legal_of(state, CommandKind.STAND_AND_DELIVER)


def test_stand_and_deliver_needs_a_victim_with_cards() -> None:
    state = position(step="birdsong.cards", in_play={A: ["stand_and_deliver.1"]})
    assert not legal_of(state, CommandKind.STAND_AND_DELIVER)


def test_stand_and_deliver_steals_at_random_from_the_generator() -> None:
    hand = [CARD_OF["fox"], CARD_OF["rabbit"], CARD_OF["mouse"], CARD_OF["bird"]]
    stolen = set()
    for r in range(12):
        state = position(
            step="birdsong.cards", hands={B: hand}, in_play={A: ["stand_and_deliver.1"]}
        )
        state.rng = r
        play(state, Command(CommandKind.STAND_AND_DELIVER, A, target="B1"))
        stolen.add(state.seats[A].hand[0])
    assert len(stolen) > 1


def test_tax_collector_removes_own_warrior_to_draw_once_per_daylight() -> None:
    state = position(
        pieces={CREEK: {A: {"warrior": 2}}, DUNE: {A: {"warrior": 1}}},
        in_play={A: ["tax_collector.1"]},
    )
    stack_deck(state, CARD_OF["mouse"])
    options = {c.clearing for c in legal_of(state, CommandKind.TAX_COLLECTOR)}
    assert options == {CREEK, DUNE}
    events = play(state, Command(CommandKind.TAX_COLLECTOR, A, clearing=CREEK))
    removed = next(e for e in events if e.kind is EventKind.PIECES_REMOVED)
    assert (removed.seat, removed.piece, removed.count) == ("A1", "warrior", 1)
    assert state.seats[A].hand == [CARD_OF["mouse"]]
    assert state.actions == 3  # not an action
    assert state.scores[Team.A] == 0  # removing your own warrior scores nothing
    assert not legal_of(state, CommandKind.TAX_COLLECTOR)
    assert_refused(state, Command(CommandKind.TAX_COLLECTOR, A, clearing=DUNE), IllegalCommand)


def test_R33_codebreakers_revealed_cards_enter_only_that_seats_view() -> None:
    hand_b = [CARD_OF["fox"], OTHER_CARD_OF["rabbit"]]
    state = position(
        pieces={CREEK: {A: {"warrior": 1}}}, hands={B: hand_b}, in_play={A: ["codebreakers.1"]}
    )
    assert {c.target for c in legal_of(state, CommandKind.CODEBREAKERS)} == {"B1"}
    events = play(state, Command(CommandKind.CODEBREAKERS, A, target="B1"))
    revealed = next(e for e in events if e.kind is EventKind.HAND_REVEALED)
    assert sorted(revealed.cards) == sorted(hand_b)
    assert view(state, A)["known_hands"] == {"B1": sorted(hand_b)}
    assert view(state, B)["known_hands"] == {}
    assert view(state, None)["known_hands"] == {}
    assert "hands" in view(state, A) and "B1" not in view(state, A)["hands"]
    # the event itself: the looker and the owner see the cards; nobody else does
    assert event_for(state, revealed, A).cards == revealed.cards
    assert event_for(state, revealed, B).cards == revealed.cards
    assert event_for(state, revealed, None).cards == ("hidden", "hidden")
    # once per Daylight; not an action
    assert state.actions == 3
    assert not legal_of(state, CommandKind.CODEBREAKERS)


def test_R33_another_player_means_any_other_seat() -> None:
    state = position(in_play={A: ["codebreakers.1"]})
    targets = {c.target for c in legal_of(state, CommandKind.CODEBREAKERS)}
    assert targets == {s.value for s in state.order if s is not A}


def _a_turn_starts(state: State) -> None:
    """From B's Daylight with no actions left: end it so A's next turn starts."""
    play(state, Command(CommandKind.END_PHASE, B))
    assert state.turn_seat is A


def test_better_burrow_bank_at_start_of_birdsong_draws_for_both() -> None:
    state = position(turn=B, actions=0, in_play={A: ["better_burrow_bank.1"]})
    _a_turn_starts(state)
    d = state.decisions[0]
    assert (d.seat, d.kind) == (A, "better_burrow_bank")
    assert state.step == "birdsong.start"
    hand_b = len(state.seats[B].hand)
    events = play(state, Command(CommandKind.BETTER_BURROW_BANK, A, target="B1"))
    drawn = [(e.seat, len(e.cards)) for e in events if e.kind is EventKind.CARDS_DRAWN]
    assert drawn[:2] == [("A1", 1), ("B1", 1)]
    assert len(state.seats[B].hand) == hand_b + 1


def test_better_burrow_bank_may_be_declined() -> None:
    state = position(
        turn=B,
        actions=0,
        pieces={CREEK: {A: {"warrior": 1}}},
        in_play={A: ["better_burrow_bank.1"]},
    )
    _a_turn_starts(state)
    before = len(state.seats[A].hand)
    play(state, Command(CommandKind.DECLINE, A))
    assert len(state.seats[A].hand) == before
    assert not state.decisions and state.step == "daylight.actions"


def test_command_warren_battle_at_start_of_daylight() -> None:
    state = position(
        step="birdsong.cards",
        pieces={CREEK: {A: {"warrior": 3}, B: {"warrior": 1}}},
        in_play={A: ["command_warren.1"]},
    )
    state.rng = dice_seed(2, 0)
    play(state, Command(CommandKind.END_PHASE, A))
    d = state.decisions[0]
    assert (d.seat, d.kind) == (A, "command_warren")
    assert [c.target for c in legal_of(state, CommandKind.COMMAND_WARREN)] == ["B1"]
    events = play(state, Command(CommandKind.COMMAND_WARREN, A, clearing=CREEK, target="B1"))
    assert EventKind.BATTLE_STARTED in {e.kind for e in events}
    assert state.pieces[CREEK][B]["warrior"] == 0
    assert state.actions == 3  # the free battle spent no action


def test_command_warren_not_offered_without_a_possible_battle() -> None:
    state = position(
        step="birdsong.cards",
        pieces={CREEK: {A: {"warrior": 3}}},
        in_play={A: ["command_warren.1"]},
    )
    play(state, Command(CommandKind.END_PHASE, A))
    assert not state.decisions


def test_cobbler_one_move_at_start_of_evening() -> None:
    state = position(
        actions=0,
        pieces={CREEK: {A: {"warrior": 2}}},
        hands={A: [CARD_OF["bird"]]},
        in_play={A: ["cobbler.1"]},
    )
    play(state, Command(CommandKind.END_PHASE, A))
    d = state.decisions[0]
    assert (d.seat, d.kind) == (A, "cobbler")
    assert state.step == "evening.start"
    moves = legal_of(state, CommandKind.COBBLER)
    assert {(c.clearing, c.to) for c in moves} == {(CREEK, HILL), (CREEK, "autumn.quarry")}
    play(state, Command(CommandKind.COBBLER, A, clearing=CREEK, to=HILL, count=2))
    assert state.pieces[HILL][A]["warrior"] == 2
    assert not state.decisions or state.decisions[0].kind != "cobbler"


def test_persistent_cards_of_another_seat_give_nothing() -> None:
    state = position(step="birdsong.cards", in_play={B: ["royal_claim", "stand_and_deliver.1"]})
    assert not legal_of(state, CommandKind.ROYAL_CLAIM)
    assert not legal_of(state, CommandKind.STAND_AND_DELIVER)


def test_R33_stand_and_deliver_takes_only_from_a_rival_seat() -> None:
    state = full_position(
        step="birdsong.cards",
        hands={A2: ["anvil"], B1: ["bake_sale"], B2: ["investments"]},
        in_play={A1: ["stand_and_deliver.1", "royal_claim"]},
    )
    targets = {c.target for c in legal_of(state, CommandKind.STAND_AND_DELIVER)}
    assert targets == {"B1", "B2"}  # never the teammate A2, who holds a card too
    assert_refused(state, Command(CommandKind.STAND_AND_DELIVER, A1, target="A2"), IllegalCommand)


def test_R33_royal_claim_counts_the_clearings_the_team_rules() -> None:
    state = full_position(
        step="birdsong.cards",
        pieces={"autumn.creek": {A2: {"warrior": 1}}},
        in_play={A1: ["royal_claim"]},
    )
    ruled = clearings_ruled(state, Team.A)
    mine = sum(1 for c in board().order if warriors(state, c, A1) > 0)
    assert ruled > mine  # the teammate's clearing counts too
    before = state.scores[Team.A]
    play(state, Command(CommandKind.ROYAL_CLAIM, A1))
    assert state.scores[Team.A] - before == ruled


# ----- R33: Cobbler's move and Command Warren's battle for every faction -------------------------

MOUND, QUARRY = "winter.mound", "autumn.quarry"


def test_R33_cobbler_moves_the_vagabond_with_its_boots() -> None:
    state = full_position(
        turn=A3,
        vagabonds={A3: {"location": MOUND, "items": ["boots", "sword"]}},
        in_play={A3: ["cobbler.1"]},
    )
    play(state, Command(CommandKind.END_PHASE, A3))
    d = state.decisions[0]
    assert (d.seat, d.kind, state.step) == (A3, "cobbler", "evening.start")
    moves = legal_of(state, CommandKind.VAGABOND_MOVE)
    assert moves and {c.kind for c in legal_commands(state, A3)} == {
        CommandKind.VAGABOND_MOVE,
        CommandKind.DECLINE,
    }
    dest = next(c for c in moves if not board().is_bridge(MOUND, c.to))
    events = play(state, dest)
    assert vstate(state, A3).location == dest.to
    assert item_keys(state, A3) == ["boots/exhausted", "sword"]
    assert EventKind.PAWN_MOVED in {e.kind for e in events}
    assert not state.decisions or state.decisions[0].kind != "cobbler"


def _vagabond_daylight_starts_with_command_warren(sword: str) -> State:
    state = full_position(
        turn=A3,
        step="birdsong.cards",
        pieces={MOUND: {B1: {"warrior": 1}}},
        vagabonds={A3: {"location": MOUND, "items": [sword, "boots"]}},
        in_play={A3: ["command_warren.1"]},
    )
    play(state, Command(CommandKind.END_PHASE, A3))
    return state


def test_R33_command_warren_battles_with_the_vagabonds_sword() -> None:
    state = _vagabond_daylight_starts_with_command_warren("sword")
    d = state.decisions[0]
    assert (d.seat, d.kind) == (A3, "command_warren")
    battles = legal_of(state, CommandKind.BATTLE)
    assert {(c.clearing, c.target) for c in battles} == {(MOUND, "B1")}
    events = play(state, next(c for c in battles if not c.piece))
    assert EventKind.BATTLE_STARTED in {e.kind for e in events}
    assert "sword/exhausted" in item_keys(state, A3)


def test_R33_command_warren_is_not_offered_to_a_vagabond_without_a_sword() -> None:
    state = _vagabond_daylight_starts_with_command_warren("sword/exhausted")
    assert not state.decisions and state.step == "daylight.actions"


def test_R33_R18_cobbler_move_collects_a_dropped_item() -> None:
    state = full_position(pieces={MOUND: {A1: {"warrior": 1}}}, in_play={A1: ["cobbler.1"]})
    drop(state, MOUND, Item.HAMMER, A2)
    play(state, Command(CommandKind.END_PHASE, A1))
    assert state.decisions[0].kind == "cobbler"
    collect = Command(CommandKind.COLLECT, A1, clearing=MOUND, piece="hammer", target="A2")
    assert legal_of(state, CommandKind.COLLECT) == [collect]
    play(state, collect)
    assert state.dropped == {} and state.carried == {
        MOUND: {A1: [DroppedItem(Item.HAMMER, Team.A, A2)]}
    }


def test_R33_R21_the_alliances_cobbler_move_never_collects() -> None:
    state = full_position(
        turn=B2,
        step="daylight.actions",
        pieces={QUARRY: {B2: {"warrior": 1}}},
        in_play={B2: ["cobbler.1"]},
    )
    drop(state, QUARRY, Item.HAMMER, B2)
    play(state, Command(CommandKind.END_PHASE, B2))
    assert not legal_of(state, CommandKind.COLLECT)


def test_R33_R19_command_warren_battle_seizes_a_dropped_item() -> None:
    state = full_position(
        turn=B1,
        step="birdsong.cards",
        pieces={MOUND: {B1: {"warrior": 1}}},
        in_play={B1: ["command_warren.1"]},
    )
    drop(state, MOUND, Item.HAMMER, A1)  # Team A's item on Team B's home map
    play(state, Command(CommandKind.END_PHASE, B1))
    assert state.decisions[0].kind == "command_warren"
    seize = Command(CommandKind.SEIZE, B1, clearing=MOUND, piece="hammer", target="A1")
    assert legal_of(state, CommandKind.SEIZE) == [seize]
    before = state.scores[Team.B]
    play(state, seize)
    assert state.dropped == {} and Item.HAMMER in state.crate
    assert state.scores[Team.B] == before + 1
