"""The choices this rules pass added keep every invariant and reveal nothing (R4, R33).

* The Marquise's ``recruit`` decision (a short supply: which recruiters get the warriors
  left, Law 1.5.4): from random boards of recruiters and a random supply, random answers
  place exactly the warriors left, never more at a clearing than its recruiters, and every
  command passes :func:`tests.property.test_playouts.step_checked` (decide = execute, the
  events rebuild the state, conservation, and no view or event shows a hidden card).
* Cobbler's move and Command Warren's battle for a Vagabond (R33), and moving an Allied
  rival's warriors (R34): whole matches of the default lineup from positions where both
  Vagabonds hold both cards and are Allied with a rival.  After every command: the checks
  of :func:`tests.property.test_default_lineup_playouts.play_out` (decide = execute, every
  item in one place, contraband consistent), no event shows a hidden card to a seat that may
  not see it, every view is checked whenever a Vagabond answers one of those decisions, and
  the whole match folds from its start.
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from frontier.engine import (
    Command,
    CommandKind,
    Event,
    State,
    evolve,
    legal_commands,
    rng,
)
from frontier.engine.board import board
from frontier.engine.hashing import state_hash
from frontier.engine.sympathy import alliance_state
from frontier.engine.vagabond_state import ALLIED, vagabond_seats, vstate
from tests.contraband_helpers import A1, A3, B1, B2, B3, MOUND, QUARRY, full_match
from tests.engine_helpers import (
    A,
    KindFirstBot,
    position,
    put,
    put_in_play,
)
from tests.property.test_default_lineup_playouts import play_out
from tests.property.test_playouts import (
    SEEDS,
    check_event_secrecy,
    check_view_secrecy,
    step_checked,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, recruiters=st.integers(2, 6), left=st.integers(1, 5))
def test_the_recruit_choice_places_the_warriors_left_and_reveals_nothing(
    seed: int, recruiters: int, left: int
) -> None:
    state = position(seed=seed)
    clearings = [c for c in board().order if c.startswith("autumn.")]
    r = rng.seed_state(seed)
    for _ in range(recruiters):
        i, r = rng.below(r, len(clearings))
        put(state, clearings[i], A, "recruiter")
    put(state, clearings[0], A, "warrior", state.seats[A].supply["warrior"] - left)
    before = {c: state.pieces[c].get(A, {}).get("warrior", 0) for c in clearings}
    step_checked(state, Command(CommandKind.RECRUIT, A))
    while state.decisions:
        assert state.decisions[0].kind == "recruit"
        legal = legal_commands(state, A)
        assert legal and all(c.kind is CommandKind.RECRUIT and c.clearing for c in legal)
        i, r = rng.below(r, len(legal))
        step_checked(state, legal[i])
    gained = {c: state.pieces[c].get(A, {}).get("warrior", 0) - before[c] for c in clearings}
    assert sum(gained.values()) == min(left, recruiters)
    assert all(n <= state.pieces[c].get(A, {}).get("recruiter", 0) for c, n in gained.items())


CARD_DECISIONS = frozenset({"cobbler", "command_warren"})


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bot_seed=SEEDS)
def test_R33_R34_vagabond_card_moves_battles_and_allied_rivals_keep_every_invariant(
    seed: int, bot_seed: int
) -> None:
    state = full_match(seed)
    supporters = set(alliance_state(state, B2).supporters)
    assume(not supporters & {f"{c}.{n}" for c in ("cobbler", "command_warren") for n in (1, 2)})
    pawns = ((A3, B1, MOUND), (B3, A1, QUARRY))  # among the rival Marquise's warriors
    for copy, (vagabond, rival, where) in enumerate(pawns, start=1):
        put_in_play(state, vagabond, f"cobbler.{copy}", f"command_warren.{copy}")
        vs = vstate(state, vagabond)
        vs.relations[rival.value] = ALLIED  # as if aided three times
        vs.location = where
    start = state.clone()
    vagabonds = set(vagabond_seats(state))
    bot = KindFirstBot(bot_seed)
    r = rng.seed_state(bot_seed)

    def choose(legal: list[Command]) -> Command:
        """Half the time, an Allied rival's warriors go along when they may (R34)."""
        nonlocal r
        along = [c for c in legal if c.kind is CommandKind.VAGABOND_MOVE and c.count]
        roll, r = rng.below(r, 2)
        if along and roll:
            i, r = rng.below(r, len(along))
            return along[i]
        return bot.choose(legal)

    def check(before: State, got: list[Event], after: State) -> None:
        d = before.decisions[0] if before.decisions else None
        for event in got:  # ``before`` becomes ``after``, one event at a time
            evolve(before, event)
            check_event_secrecy(before, event)
        if d is not None and d.kind in CARD_DECISIONS and d.seat in vagabonds:
            check_view_secrecy(after)

    events = play_out(state, choose, check)
    for event in events:
        evolve(start, event)
    assert state_hash(start) == state_hash(state)
