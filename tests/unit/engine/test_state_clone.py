"""``State.clone`` is a complete copy: every field, in its place, sharing nothing a rule
may change in place (``pieces``' per-clearing dicts are shared, and copied on write).

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
from frontier.engine.evolve import evolve
from frontier.engine.hashing import state_hash
from frontier.engine.lineup import default_lineup
from frontier.engine.model import Event, EventKind, Item, Seat, Team
from frontier.engine.pieces import WARRIOR
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


def test_pieces_are_copied_on_write() -> None:
    # a clone shares the clearings' dicts; evolve's piece handlers replace the ones they
    # change, in the state they change, so neither the original nor the clone sees the other
    state = played(1003, 40)
    clone = state.clone()
    assert all(clone.pieces[c] is state.pieces[c] for c in state.pieces)
    clearing, seat, warriors = next(
        (c, s, k[WARRIOR])
        for c, p in state.pieces.items()
        for s, k in p.items()
        if k.get(WARRIOR, 0) >= 2
    )
    to = next(c for c in state.pieces if c != clearing)
    there = state.pieces[to].get(seat, {}).get(WARRIOR, 0)
    state.seats[seat].supply[WARRIOR] = 3  # enough in supply for the placement below
    original = {c: {s: dict(k) for s, k in p.items()} for c, p in state.pieces.items()}
    before = state_hash(state)
    mine = state.clone()
    placed = Event(EventKind.PIECES_PLACED, seat.value, to, piece=WARRIOR, count=3)
    moved = Event(EventKind.PIECES_MOVED, seat.value, clearing, to, 2, piece=WARRIOR)
    removed = Event(EventKind.PIECES_REMOVED, seat.value, to, count=1, piece=WARRIOR)
    for event in (placed, moved, removed):
        evolve(mine, event)
    assert state_hash(state) == before
    assert state.pieces == original
    assert mine.pieces[to][seat][WARRIOR] == there + 3 + 2 - 1
    assert mine.pieces[clearing][seat][WARRIOR] == warriors - 2
    # and the other way round: evolving the original leaves the clone as it was
    mine_hash = state_hash(mine)
    evolve(state, placed)
    assert state_hash(mine) == mine_hash
    assert state.pieces[to][seat][WARRIOR] == there + 3


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
