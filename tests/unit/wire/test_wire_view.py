"""The typed ``frontier.v1.View``: every field agrees with the game, and no secret leaks.

The typed view is converted from the engine's per-reader view, so these tests check both
halves of its promise on real playouts: each typed field says what the state says (pieces,
rule, ruins, hands, supporters, Vagabond items...), and what a reader may not see (another
seat's hand or supporters, the deck, ruin items, the generator) is in no field.
"""

from __future__ import annotations

import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.engine import Seat, State, evolve, initial_state, make_config
from frontier.engine.board import board
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Faction, Item, Suit
from frontier.engine.pieces import BUILDINGS, WARRIOR, open_slots, ruler
from frontier.engine.view import can_see_hand, view
from frontier.v1 import types_pb2
from frontier.wire import WireError, enum_from_proto
from frontier.wire.view import view_to_proto
from tests.engine_helpers import after_setup, playout

LINEUPS = ["A=marquise;B=marquise", "A=marquise,eyrie;B=marquise,alliance", R2_DEFAULT_LINEUP]


def strings(obj: object) -> set[str]:
    """Every string value in a MessageToDict result."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return {s for v in obj.values() for s in strings(v)}
    if isinstance(obj, list):
        return {s for v in obj for s in strings(v)}
    return set()


def typed_strings(msg: types_pb2.View) -> set[str]:
    data = MessageToDict(msg)
    data.pop("json", None)  # the JSON twin is checked by the engine's own view tests
    return strings(data)


def hidden_from(state: State, viewer: Seat | None) -> set[str]:
    """Card ids ``viewer`` may not see: the deck, unseen hands and unseen supporters."""
    known = (
        {c for cards in state.known_hands.get(viewer, {}).values() for c in cards}
        if viewer
        else set()
    )
    hidden = set(state.deck)
    for seat in state.order:
        if not can_see_hand(state, viewer, seat):
            hidden |= set(state.seats[seat].hand)
            extra = state.seats[seat].extra
            hidden |= set(getattr(extra, "supporters", ()))
    return hidden - known


def check_view(state: State, viewer: Seat | None) -> None:
    msg = view_to_proto(view(state, viewer))
    leaked = typed_strings(msg) & hidden_from(state, viewer)
    assert not leaked, f"{viewer} sees hidden cards {leaked}"
    assert str(state.rng) not in msg.SerializeToString().decode("utf-8", "replace")
    assert [c.id for c in msg.clearings] == list(state.pieces)
    for c in msg.clearings:
        per_seat = {Seat(enum_from_proto(Seat, p.seat)): p for p in c.pieces}
        for seat, kinds in state.pieces[c.id].items():
            if not any(kinds.values()):
                assert seat not in per_seat
                continue
            p = per_seat[seat]
            assert p.warriors == kinds.get(WARRIOR, 0)
            assert {b.kind: b.count for b in p.buildings} == {
                k: n for k, n in kinds.items() if k in BUILDINGS and n
            }
            assert {t.kind: t.count for t in p.tokens} == {
                k: n for k, n in kinds.items() if k != WARRIOR and k not in BUILDINGS and n
            }
        assert c.suit == types_pb2.Suit.Value("SUIT_" + state.suits[c.id].upper())
        ruled = ruler(state, c.id)
        assert c.ruler == (types_pb2.Team.Value("TEAM_" + ruled.value) if ruled else 0)
        assert c.open_slots == open_slots(state, c.id)
        standing = bool(state.ruins.get(c.id))
        assert (c.ruin, c.ruin_items) == (standing, len(state.ruins.get(c.id, ())))
        assert c.ruin_explored == (board().clearings[c.id].ruin and not standing)
        assert len(c.dropped) == len(state.dropped.get(c.id, ()))
        carried = {s: items for s, items in state.carried.get(c.id, {}).items() if items}
        assert sum(len(cc.items) for cc in c.carried) == sum(len(i) for i in carried.values())
    assert [enum_from_proto(Seat, s.seat) for s in msg.seats] == list(state.order)
    for s in msg.seats:
        seat = enum_from_proto(Seat, s.seat)
        st_ = state.seats[seat]
        visible = can_see_hand(state, viewer, seat)
        assert s.hand_count == len(st_.hand) and s.hand_visible == visible
        assert list(s.hand) == (sorted(st_.hand) if visible else [])
        assert s.vp == st_.vp and list(s.play_area) == st_.play_area
        assert [enum_from_proto(Item, i) for i in s.crafted_items] == st_.crafted_items
        assert {p.kind: p.count for p in s.supply} == {k: n for k, n in st_.supply.items() if n}
        board_kind = s.WhichOneof("board")
        if st_.faction is Faction.ALLIANCE:
            supporters = st_.extra.supporters  # type: ignore[union-attr]
            assert board_kind == "alliance"
            assert s.alliance.supporters_count == len(supporters)
            # R4: team_hands_visible shows hands and nothing more; supporters stay the owner's
            assert list(s.alliance.supporters) == (sorted(supporters) if viewer is seat else [])
        elif st_.faction is Faction.VAGABOND:
            vb = st_.extra
            assert board_kind == "vagabond"
            assert s.vagabond.location == vb.location  # type: ignore[union-attr]
            assert [
                (enum_from_proto(Item, i.item), i.exhausted, i.damaged) for i in s.vagabond.items
            ] == [
                (i.item, i.exhausted, i.damaged)
                for i in vb.items  # type: ignore[union-attr]
            ]
        elif st_.faction is Faction.EYRIE:
            decree = st_.extra.decree  # type: ignore[union-attr]
            assert board_kind == "eyrie"
            assert {d.column: list(d.cards) for d in s.eyrie.decree} == decree
        else:
            assert board_kind is None
    assert (msg.score_a, msg.score_b) == (state.scores[Seat.A1.team], state.scores[Seat.B1.team])
    assert msg.deck_count == len(state.deck) and list(msg.discard) == state.discard
    assert list(msg.quests) == state.quests and msg.quest_deck_count == len(state.quest_deck)
    stock = {m.map: {enum_from_proto(Item, i.item): i.count for i in m.items} for m in msg.stock}
    assert stock == {m: {i: n for i, n in items.items() if n} for m, items in state.stock.items()}
    assert msg.version == state.version and msg.round == state.round and msg.step == state.step
    if state.decisions:
        d = state.decisions[0]
        assert msg.HasField("decision") and msg.decision.kind == d.kind
        assert enum_from_proto(Seat, msg.decision.seat) is d.seat
    else:
        assert not msg.HasField("decision")
    assert msg.HasField("battle") == (state.battle is not None)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40), lineup=st.sampled_from(LINEUPS), shown=st.booleans())
def test_typed_view_matches_the_state_and_hides_secrets_through_a_whole_match(
    seed: int, lineup: str, shown: bool
) -> None:
    final, log = playout(seed, seed + 1, lineup=lineup, team_hands_visible=shown, max_rounds=2)
    # replay the log, checking the views every few commands (every command is too slow)
    replayed = initial_state(
        make_config(seed=seed, lineup=lineup, team_hands_visible=shown, max_rounds=2)
    )
    for n, (_, events) in enumerate(log):
        for event in events:
            evolve(replayed, event)
        if n % 7 == 0 or n == len(log) - 1:
            for viewer in (None, *replayed.order):
                check_view(replayed, viewer)
    assert replayed.over and replayed.version == final.version


def test_the_json_twin_and_headline_fields_agree_with_the_typed_fields() -> None:
    state = after_setup(seed=3)
    msg = view_to_proto(view(state, Seat.A1))
    assert msg.viewer == types_pb2.SEAT_A1 and msg.to_act == types_pb2.SEAT_A1
    assert msg.turn_seat == types_pb2.SEAT_A1 and msg.phase == state.phase
    spectator = view_to_proto(view(state, None))
    assert spectator.viewer == types_pb2.SEAT_UNSPECIFIED
    assert all(not s.hand and not s.hand_visible for s in spectator.seats)
    assert '"viewer": "spectator"' in spectator.json


def test_winter_suits_in_the_view_are_the_seeded_ones() -> None:
    state = after_setup(seed=11)
    msg = view_to_proto(view(state, None))
    winter = [c for c in msg.clearings if c.id.startswith("winter.")]
    assert len(winter) == 12
    counts = {
        s: sum(1 for c in winter if c.suit == types_pb2.Suit.Value("SUIT_" + s.name))
        for s in Suit
        if s is not Suit.BIRD
    }
    assert counts == {Suit.FOX: 4, Suit.RABBIT: 4, Suit.MOUSE: 4}


@pytest.mark.parametrize(
    "broken",
    [
        lambda v: v.pop("clearings"),
        lambda v: v["seats"][0].update(faction="badger"),
        lambda v: v["clearings"][0].update(suit="bat"),
        lambda v: v.update(to_act="C9"),
    ],
)
def test_a_view_of_an_unknown_shape_is_a_wire_error(broken: object) -> None:
    data = view(after_setup(seed=3), Seat.A1)
    broken(data)  # type: ignore[operator]
    with pytest.raises(WireError):
        view_to_proto(data)
