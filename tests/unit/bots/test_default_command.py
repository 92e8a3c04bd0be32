"""The default command a timed-out seat gets, and the standing-answer policies built on it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.bots import RandomBot, default_command
from frontier.bots.standing import (
    InvalidStandingAnswers,
    StandingPolicy,
    card_value,
    choose,
    validate,
)
from frontier.engine import (
    Command,
    CommandKind,
    Seat,
    execute,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.engine.cards import CardKind, catalog

A1 = Seat.A1


def _cmd(kind: CommandKind, **fields: object) -> Command:
    return Command(kind, A1, **fields)  # type: ignore[arg-type]


def test_decline_first_then_end_phase_then_smallest_id() -> None:
    battle = _cmd(CommandKind.BATTLE, clearing="autumn.hill", target="B1")
    end = _cmd(CommandKind.END_PHASE)
    decline = _cmd(CommandKind.DECLINE)
    ambush = _cmd(CommandKind.AMBUSH, cards=("ambush_fox",))
    assert default_command([ambush, battle, decline, end]) == decline
    assert default_command([battle, end]) == end
    build_b = _cmd(CommandKind.BUILD, clearing="b", piece="sawmill")
    build_a = _cmd(CommandKind.BUILD, clearing="a", piece="sawmill")
    assert default_command([build_b, build_a]) == build_a  # by Command.key(), not list order
    with pytest.raises(ValueError):
        default_command([])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**40), steps=st.integers(0, 120))
def test_default_command_is_legal_and_accepted_anywhere_in_a_match(seed: int, steps: int) -> None:
    """At any point of a random match the default command is one of the legal commands and
    the engine accepts it (so a timeout can never be refused by the pipeline)."""
    state = initial_state(make_config(seed=seed, lineup="A=marquise;B=marquise"))
    bot = RandomBot(seed)
    for _ in range(steps):
        seat = to_act(state)
        if seat is None:
            return
        execute(state, bot.choose(state, seat, legal_commands(state, seat)))
    seat = to_act(state)
    if seat is None:
        return
    legal = legal_commands(state, seat)
    chosen = default_command(legal)
    assert chosen in legal
    for policy in StandingPolicy:
        assert choose(policy, legal) in legal
    execute(state, chosen)


def test_card_values_rank_birds_and_ambushes_above_plain_cards() -> None:
    cards = catalog()
    ambush = next(c for c in cards.values() if c.kind is CardKind.AMBUSH)
    plain = next(
        c for c in cards.values() if c.kind is CardKind.ITEM and c.suit.value != "bird" and c.vp
    )
    assert card_value(ambush.id) >= 3
    assert card_value(plain.id) == plain.vp
    assert card_value("no-such-card") > max(card_value(c) for c in cards)


def test_policies() -> None:
    cards = catalog()
    cheap, dear = sorted(cards, key=lambda c: (card_value(c), c))[0], max(cards, key=card_value)
    decline = _cmd(CommandKind.DECLINE)
    pay_cheap = _cmd(CommandKind.FIELD_HOSPITALS, cards=(cheap,))
    pay_dear = _cmd(CommandKind.FIELD_HOSPITALS, cards=(dear,))
    legal = [pay_dear, decline, pay_cheap]
    # never ambush / never pay
    assert choose(StandingPolicy.DECLINE, legal) == decline
    # always pay while holding a matching card, with the cheapest one
    assert choose(StandingPolicy.ACCEPT, legal) == pay_cheap
    assert choose(StandingPolicy.ACCEPT, [decline]) == decline  # nothing to pay with
    # feed the Eyrie the lowest-value card
    feeds = [_cmd(CommandKind.FEED_EYRIE, cards=(c,)) for c in (dear, cheap)]
    assert choose(StandingPolicy.CHEAPEST_CARD, feeds) == feeds[1]
    assert choose(StandingPolicy.CHEAPEST_CARD, [decline]) == decline
    assert choose(StandingPolicy.FIRST, legal) == min(legal, key=Command.key)
    assert choose(StandingPolicy.DEFAULT, legal) == decline
    # DECLINE when declining is impossible falls back to the default command
    remove = [_cmd(CommandKind.REMOVE_PIECE, piece=p) for p in ("workshop", "sawmill")]
    assert choose(StandingPolicy.DECLINE, remove) == default_command(remove)


def test_validate_standing_answers() -> None:
    ok = validate([("ambush", StandingPolicy.DECLINE), ("feed_eyrie", StandingPolicy.FIRST)])
    assert ok == {"ambush": StandingPolicy.DECLINE, "feed_eyrie": StandingPolicy.FIRST}
    for bad in ("", "Ambush", "ambush!", "x" * 65, "1st"):
        with pytest.raises(InvalidStandingAnswers):
            validate([(bad, StandingPolicy.DECLINE)])
    with pytest.raises(InvalidStandingAnswers, match="twice"):
        validate([("ambush", StandingPolicy.DECLINE), ("ambush", StandingPolicy.FIRST)])
    with pytest.raises(InvalidStandingAnswers, match="at most"):
        validate([(f"k{i}", StandingPolicy.FIRST) for i in range(65)])
