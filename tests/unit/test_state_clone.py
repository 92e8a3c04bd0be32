"""``State.clone`` is a complete, deep copy: every field, in its place, sharing nothing a
rule may change.

Why these tests: ``clone`` builds the new state positionally (it runs per decide call in
every domain service), so two fields of one type swapped in the call would go unnoticed by
an equality check where both hold the same value; the state here holds a distinct value in
every field.
"""

from __future__ import annotations

import dataclasses

from frontier.bots import make_bot
from frontier.engine import initial_state, legal_commands, make_config, to_act
from frontier.engine.decide import execute
from frontier.engine.hashing import state_hash
from frontier.engine.lineup import default_lineup
from frontier.engine.model import Item, Seat, Team
from frontier.engine.state import Battle, Decision, DroppedItem, State
from frontier.play.match_runner import seat_bots


def played(seed: int, commands: int) -> State:
    """The default lineup's state after ``commands`` random-bot commands."""
    config = make_config(seed=seed, lineup=default_lineup())
    state = initial_state(config)
    bots = seat_bots(config, lambda s: make_bot("random", s))
    for _ in range(commands):
        seat = to_act(state)
        if seat is None:
            break
        execute(state, bots[seat].choose(state, seat, legal_commands(state, seat)))
    return state


def distinct(state: State) -> State:
    """``state`` with a value in every field that no other field of its type holds."""
    item = DroppedItem(Item.SWORD, Team.A, Seat.A1)
    state.rng, state.round, state.actions, state.march_left = 101, 3, 5, 7
    state.version = 1009
    state.turn_seat, state.step = Seat.B2, "daylight.actions"
    state.winner, state.end_reason = "draw", "round limit"
    state.deck, state.discard = ["deck-card"], ["discarded-card"]
    state.used = {"recruit": 1}
    state.decisions = [Decision(Seat.A1, "ambush", clearing="c1", cards=("x",))]
    state.battle = Battle(Seat.A1, Seat.B1, "c2", effects_used=("armorers",))
    state.known_hands = {Seat.A1: {Seat.B1: ("known-card",)}}
    state.dropped = {"c3": [item]}
    state.carried = {"c4": {Seat.A2: [item]}}
    state.crate, state.quests, state.quest_deck = [Item.TEA], ["quest"], ["quest-deck"]
    state.scores = {Team.A: 11, Team.B: 13}
    return state


def test_clone_copies_every_field_in_its_place() -> None:
    state = distinct(played(1000, 60))
    clone = state.clone()
    for f in dataclasses.fields(State):
        assert getattr(clone, f.name) == getattr(state, f.name), f.name
    assert clone == state
    assert state_hash(clone) == state_hash(state)


def test_clone_shares_nothing_a_rule_may_change() -> None:
    state = distinct(played(1001, 80))
    before = state_hash(state)
    clone = state.clone()
    per_seat = next(p for p in clone.pieces.values() if p)
    seat, kinds = next(iter(per_seat.items()))
    kinds["warrior"] = kinds.get("warrior", 0) + 5
    per_seat[Seat.B3 if seat is not Seat.B3 else Seat.A1] = {"warrior": 1}
    for seat_state in clone.seats.values():
        seat_state.hand.append("stolen")
        seat_state.supply["warrior"] = -1
        seat_state.play_area.append("x")
        seat_state.crafted_items.append(Item.BOOTS)
        seat_state.vp += 1
    clone.deck.pop()
    clone.discard.append("y")
    clone.scores[Team.A] += 1
    clone.used["recruit"] += 1
    next(iter(clone.stock.values()))[Item.BAG] = 99
    clone.ruins.setdefault("c1", []).append(Item.HAMMER)
    clone.decisions[0].count = 4
    assert clone.battle is not None
    clone.battle.stage = "rolled"
    clone.known_hands[Seat.A1][Seat.B2] = ()
    clone.dropped["c3"].clear()
    clone.carried["c4"][Seat.A2].clear()
    clone.crate.clear()
    clone.quests.clear()
    clone.quest_deck.clear()
    assert state_hash(state) == before
    assert state_hash(clone) != before


def test_clones_along_a_match_equal_their_originals() -> None:
    config = make_config(seed=1002, lineup=default_lineup())
    state = initial_state(config)
    bots = seat_bots(config, lambda s: make_bot("random", s))
    commands = 0
    while (seat := to_act(state)) is not None:
        clone = state.clone()
        assert clone == state
        hashed = state_hash(clone) if commands % 10 == 0 else ""
        execute(state, bots[seat].choose(state, seat, legal_commands(state, seat)))
        if hashed:  # evolving the original left the clone as it was
            assert state_hash(clone) == hashed
        commands += 1
    assert commands > 100
