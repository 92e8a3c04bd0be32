"""The engine's speed-ups give exactly what the plain code they replace gives.

Hot paths are written for throughput: hand-written ``__init__`` for the flat
records, board tables derived once, the rule of every clearing counted in one inlined pass,
shared move loads, the Decree's suit set while enumerating.  Each test here compares a fast
path with the straightforward definition it must match, so a later edit of either side that
makes them drift fails here rather than as a mysterious golden-playthrough diff.
"""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from frontier.bots import make_bot
from frontier.engine import Command, CommandKind, Event, EventKind, Seat, State, execute, to_act
from frontier.engine.board import BRIDGES, MAPS, board
from frontier.engine.contraband import carry_loads, carry_options, plain_loads
from frontier.engine.decide import legal_commands
from frontier.engine.factions.marquise import _may_build_in
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import COMMAND_FIELDS, EVENT_FIELDS, Suit, seat_named, suit_named
from frontier.engine.movement import move_commands
from frontier.engine.pieces import blocked_by_keep, open_slots, ruler, rulers
from tests.engine_helpers import A, B, new_state, position
from tests.eyrie_helpers import eyrie_position

# ----- Command and Event ---------------------------------------------------------------------


@pytest.mark.parametrize("cls", [Command, Event])
def test_hand_written_init_takes_the_fields_in_order_with_their_defaults(cls: type) -> None:
    fields = dataclasses.fields(cls)
    first = CommandKind.MARCH if cls is Command else EventKind.PIECES_MOVED
    required = [first, Seat.A1] if cls is Command else [first]
    obj = cls(*required)
    for f in fields[len(required) :]:
        assert getattr(obj, f.name) == f.default
    # ``f.type`` is the annotation's text interpreted and its erased class compiled (mypyc).
    values = [
        f"v{i}" if f.type in ("str", str) else (i if f.type in ("int", int) else (f"v{i}",))
        for i, f in enumerate(fields[len(required) :])
    ]
    by_position = cls(*required, *values)
    by_keyword = cls(
        *required, **{f.name: v for f, v in zip(fields[len(required) :], values, strict=True)}
    )
    assert by_position == by_keyword
    assert hash(by_position) == hash(by_keyword)
    assert [getattr(by_position, f.name) for f in fields] == [*required, *values]


def test_commands_and_events_stay_frozen_picklable_and_replaceable() -> None:
    cmd = Command(CommandKind.MARCH, Seat.A1, clearing="autumn.hill", to="autumn.quarry", count=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cmd.count = 3  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(cmd)) == cmd
    moved = dataclasses.replace(cmd, count=3)
    assert (moved.count, moved.clearing, moved.to) == (3, "autumn.hill", "autumn.quarry")
    assert cmd.key() == "march clearing=autumn.hill to=autumn.quarry count=2"
    event = Event(EventKind.SCORED, seat="A1", amount=2, text="built sawmill")
    assert pickle.loads(pickle.dumps(event)) == event
    assert event.redacted() == event  # no cards to hide


def _generic_key(cmd: Command) -> str:
    """``Command.key`` as first defined: a loop over the dataclass fields after the seat."""
    parts = [cmd.kind.value]
    for f in dataclasses.fields(cmd)[2:]:
        value = getattr(cmd, f.name)
        if value in ("", 0, ()):
            continue
        if isinstance(value, tuple):
            value = ",".join(value)
        parts.append(f"{f.name}={value}")
    return " ".join(parts)


@pytest.mark.parametrize("lineup", [R2_DEFAULT_LINEUP, "A=marquise,alliance,ranger;B=marquise"])
def test_spelled_out_key_and_pickle_equal_the_generic_ones(lineup: str) -> None:
    seen = 0
    for state in _playout_states(lineup, seed=3, every=3):
        seat = to_act(state)
        assert seat is not None
        for cmd in legal_commands(state, seat):
            assert cmd.key() == _generic_key(cmd)
            assert pickle.loads(pickle.dumps(cmd)) == cmd
            seen += 1
    assert seen > 500
    odd = Command(CommandKind.CRAFT, Seat.B2, count=-1, cards=("a", "b"), clearings=("x",))
    assert odd.key() == _generic_key(odd) == "craft count=-1 cards=a,b clearings=x"


def test_records_pickle_as_a_constructor_call_in_both_builds() -> None:
    # The bytes do not depend on the build (compiled, the records are native objects).
    cmd = Command(CommandKind.MOVE, Seat.A2, "autumn.hill", "autumn.quarry", 2, cards=("c",))
    assert cmd.__reduce__() == (Command, tuple(getattr(cmd, f) for f in COMMAND_FIELDS))
    event = Event(EventKind.SCORED, seat="A1", amount=2, values=(1, 2), text="x")
    assert event.__reduce__() == (Event, tuple(getattr(event, f) for f in EVENT_FIELDS))
    assert pickle.loads(pickle.dumps(event)).values == (1, 2)


def test_records_refuse_bad_arguments() -> None:
    with pytest.raises(TypeError):
        Command(CommandKind.MOVE)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Command(CommandKind.MOVE, Seat.A1, colour="red")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Event(EventKind.SCORED, "A1", "", "", 0, "", "", (), (), (), 0, "", "extra")  # type: ignore[call-arg]


def test_seat_and_suit_tables_agree_with_the_enums() -> None:
    for seat in Seat:
        assert seat_named(seat.value) is Seat(seat.value)
    for suit in Suit:
        assert suit_named(suit.value) is Suit(suit.value)
    with pytest.raises(ValueError):
        seat_named("C1")
    with pytest.raises(ValueError):
        suit_named("owl")


# ----- board tables --------------------------------------------------------------------------


def test_derived_board_tables_match_their_definitions() -> None:
    b = board()
    pairs = {frozenset(p) for p in BRIDGES}
    for c, dests in b.adjacent.items():
        assert b.paths[c] == tuple((d, frozenset((c, d)) in pairs) for d in dests)
        for d in dests:
            assert b.is_bridge(c, d) == (frozenset((c, d)) in pairs)
    assert [b.position[c] for c in b.order] == list(range(len(b.order)))
    for m in MAPS:
        assert b.on_map(m) == tuple(c for c in b.order if c.startswith(m + "."))
    assert b.on_map("nowhere") == ()


# ----- rule, loads, moves --------------------------------------------------------------------


def _playout_states(lineup: str, seed: int, every: int = 7) -> list[State]:
    """Every ``every``-th state of a random-bot match (clones), for comparing queries."""
    state = new_state(seed, lineup=lineup)
    bots = {seat: make_bot("random", seed * 10 + i) for i, seat in enumerate(state.order)}
    out: list[State] = []
    n = 0
    while (seat := to_act(state)) is not None:
        if n % every == 0:
            out.append(state.clone())
        execute(state, bots[seat].choose(state, seat, legal_commands(state, seat)))
        n += 1
    return out


@pytest.mark.parametrize("lineup", [R2_DEFAULT_LINEUP, "A=marquise,eyrie;B=marquise,eyrie"])
def test_rulers_in_one_pass_equal_the_ruler_of_each_clearing(lineup: str) -> None:
    for state in _playout_states(lineup, seed=3):
        assert rulers(state) == {c: ruler(state, c) for c in state.pieces}


def test_rulers_break_a_tie_for_the_eyrie_team_only() -> None:
    state = eyrie_position(
        pieces={
            "autumn.hill": {A: {"warrior": 1}, Seat.B2: {"warrior": 1}},  # Eyrie B ties
            "autumn.creek": {Seat.A2: {"roost": 1}, Seat.B2: {"warrior": 1}},  # both Eyries
            "autumn.beach": {A: {"warrior": 2, "wood": 3}, B: {"warrior": 2}},  # no Eyrie
        }
    )
    expected = {"autumn.hill": B.team, "autumn.creek": None, "autumn.beach": None}
    for clearing, team in expected.items():
        assert ruler(state, clearing) is team
        assert rulers(state)[clearing] is team


def test_plain_loads_are_every_count_without_contraband() -> None:
    for n in (0, 1, 5, 40, 41, 60):
        assert list(plain_loads(n)) == [(k, ()) for k in range(1, n + 1)]
    state = position(pieces={"autumn.hill": {A: {"warrior": 3}}})
    expected = [
        (k, carry) for k in range(1, 4) for carry in carry_options(state, A, "autumn.hill", k)
    ]
    assert list(carry_loads(state, A, "autumn.hill", 3)) == expected


def test_decree_suit_on_moves_equals_replacing_the_piece_afterwards() -> None:
    lineup = "A=marquise,eyrie,thief;B=marquise,eyrie,ranger"
    for state in _playout_states(lineup, seed=5, every=11):
        for seat in state.order:
            plain = move_commands(state, seat, CommandKind.DECREE_MOVE)
            suited = move_commands(state, seat, CommandKind.DECREE_MOVE, piece="fox")
            assert suited == [dataclasses.replace(c, piece="fox") for c in plain]


def test_one_pass_build_check_equals_open_slots_and_no_rival_keep() -> None:
    for state in _playout_states(R2_DEFAULT_LINEUP, seed=7, every=5):
        for seat in (Seat.A1, Seat.B1):
            for clearing in board().order:
                plain = open_slots(state, clearing) > 0 and not blocked_by_keep(
                    state, clearing, seat
                )
                assert _may_build_in(state, clearing, seat) == plain
