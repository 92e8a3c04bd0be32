"""Positions for the bot tests: decisions with a real choice, and the same position with
what the deciding seat cannot see changed (a fair bot must decide the same)."""

from __future__ import annotations

from frontier.bots import make_bot
from frontier.engine import (
    Command,
    Seat,
    State,
    execute,
    initial_state,
    legal_commands,
    make_config,
    to_act,
)
from frontier.play.match_runner import seat_bots


def positions(lineup: str, seed: int, wanted: int) -> list[tuple[State, Seat, list[Command]]]:
    """Decisions with a real choice (several legal commands), from a greedy match."""
    state = initial_state(make_config(seed=seed, lineup=lineup))
    bots = seat_bots(make_config(seed=seed, lineup=lineup), lambda s: make_bot("greedy", s))
    out: list[tuple[State, Seat, list[Command]]] = []
    n = 0
    while (seat := to_act(state)) is not None and len(out) < wanted:
        legal = legal_commands(state, seat)
        if len(legal) > 3 and n % 5 == 0 and state.round >= 1:
            out.append((state.clone(), seat, legal))
        execute(state, bots[seat].choose(state, seat, legal))
        n += 1
    return out


def hide_differently(state: State, seat: Seat) -> State:
    """The same position with what ``seat`` cannot see changed: two unseen deck cards
    swapped, and another team's seat holding a deck card instead of one of its own."""
    other = state.clone()
    assert len(other.deck) >= 2
    other.deck[0], other.deck[-1] = other.deck[-1], other.deck[0]
    rival = next(s for s in other.order if s.team is not seat.team and other.seats[s].hand)
    hand = other.seats[rival].hand
    hand[0], other.deck[-1] = other.deck[-1], hand[0]
    other.rng ^= 0x5DEECE66D
    return other
