"""Every bad input is refused with the right error, a readable message and no state change."""

from __future__ import annotations

import dataclasses

import pytest

from frontier.engine import (
    Command,
    CommandKind,
    GameOver,
    IllegalCommand,
    Seat,
    State,
    WrongSeat,
    decide,
    execute,
    legal_commands,
    to_act,
)
from frontier.engine.hashing import state_hash
from tests.engine_helpers import (
    CARD_OF,
    A,
    B,
    KindFirstBot,
    assert_refused,
    dice_seed,
    new_state,
    play,
    playout,
    position,
)

CREEK, HILL = "autumn.creek", "autumn.hill"


def _midgame() -> State:
    return position(
        pieces={
            CREEK: {A: {"warrior": 3, "sawmill": 1, "wood": 2}, B: {"warrior": 1}},
            HILL: {A: {"recruiter": 1}},
        },
        hands={A: [CARD_OF["rabbit"], CARD_OF["bird"]], B: [CARD_OF["fox"]]},
    )


@pytest.mark.parametrize(
    ("cmd", "match"),
    [
        (Command(CommandKind.PLACE_KEEP, A, clearing=HILL), r"place_keep is not possible now"),
        (Command(CommandKind.MARCH, A, clearing="autumn.pond", to=HILL, count=1), r"autumn.pond"),
        (Command(CommandKind.MARCH, A, clearing=CREEK, to="autumn.pond", count=1), r"autumn.pond"),
        (Command(CommandKind.MARCH, A, clearing=CREEK, to=HILL, count=9), r"arguments"),
        (Command(CommandKind.MARCH, A, clearing="nowhere", to=HILL, count=1), r"nowhere"),
        (Command(CommandKind.BATTLE, A, clearing=CREEK, target="A1"), r"battle"),
        (Command(CommandKind.BATTLE, A, clearing=HILL, target="B1"), r"autumn.hill"),
        (Command(CommandKind.BUILD, A, clearing=CREEK, piece="keep"), r"build"),
        (Command(CommandKind.OVERWORK, A, clearing=CREEK, cards=("no_such_card",)), r"no_such"),
        (Command(CommandKind.OVERWORK, A, clearing=CREEK, cards=(CARD_OF["fox"],)), r"anvil"),
        (Command(CommandKind.EXTRA_ACTION, A, cards=(CARD_OF["rabbit"],)), r"bake_sale"),
        (Command(CommandKind.DISCARD, A, cards=(CARD_OF["rabbit"],)), r"not possible now"),
        (Command(CommandKind.AMBUSH, A, cards=("ambush_fox",)), r"possible: "),
        (Command(CommandKind.DECLINE, A), r"decline is not possible"),
        (Command(CommandKind.CRAFT, A, cards=("anvil",), clearings=(CREEK,)), r"craft"),
    ],
)
def test_illegal_command_raises_with_readable_message_and_leaves_state_unchanged(
    cmd: Command, match: str
) -> None:
    state = _midgame()
    message = assert_refused(state, cmd, IllegalCommand, match=match)
    assert cmd.kind.value in message or "possible" in message


def test_wrong_seat_on_another_seats_turn() -> None:
    state = _midgame()
    message = assert_refused(state, Command(CommandKind.END_PHASE, B), WrongSeat, match="B1")
    assert "A1" in message


def test_wrong_seat_for_a_seat_not_in_the_match() -> None:
    state = _midgame()
    assert_refused(state, Command(CommandKind.END_PHASE, Seat.A2), WrongSeat, match="empty")


def test_wrong_seat_while_another_seat_owes_a_decision() -> None:
    state = position(
        pieces={CREEK: {A: {"warrior": 3}, B: {"warrior": 1}}},
        hands={B: ["ambush_bird.1"]},
    )
    play(state, Command(CommandKind.BATTLE, A, clearing=CREEK, target="B1"))
    assert to_act(state) is B and state.turn_seat is A
    assert_refused(state, Command(CommandKind.END_PHASE, A), WrongSeat, match="ambush")
    assert legal_commands(state, A) == []


def test_game_over_refuses_every_command() -> None:
    state, _ = playout(seed=1, bot_seed=1)
    assert state.over
    for seat in (A, B):
        assert legal_commands(state, seat) == []
        assert_refused(state, Command(CommandKind.END_PHASE, seat), GameOver, match="over")
    assert to_act(state) is None


def test_decide_is_pure_and_matches_execute() -> None:
    state = _midgame()
    state.rng = dice_seed(2, 1)
    cmd = Command(CommandKind.BATTLE, A, clearing=CREEK, target="B1")
    before = state_hash(state)
    events = decide(state, cmd)
    assert state_hash(state) == before
    assert events and execute(state, cmd) == events
    assert state_hash(state) != before


def test_refused_commands_never_change_the_state_over_a_whole_match() -> None:
    """At every step of a match, mutated versions of legal commands are refused cleanly."""
    state = new_state(21)
    bot = KindFirstBot(21)
    tried = 0
    while not state.over:
        seat = to_act(state)
        assert seat is not None
        legal = legal_commands(state, seat)
        before = state_hash(state)
        for cmd in legal[:3]:
            for bad in (
                dataclasses.replace(cmd, count=cmd.count + 50),
                dataclasses.replace(cmd, clearing="winter.nowhere"),
                dataclasses.replace(cmd, cards=("ghost_card",)),
                dataclasses.replace(cmd, seat=Seat.B1 if seat is Seat.A1 else Seat.A1),
            ):
                if bad in legal:
                    continue
                with pytest.raises((IllegalCommand, WrongSeat)):
                    execute(state, bad)
                assert state_hash(state) == before
                tried += 1
        execute(state, bot.choose(legal))
    assert tried > 100
