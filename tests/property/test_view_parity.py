"""Every key of the JSON view has a typed ``frontier.v1.View`` field with the same value.

Why: a bot author must be able to plan from the typed contract alone, so the typed view may
not lack a fact the JSON debugging field (``View.json``) carries.  The test rebuilds the JSON
view from the typed message alone, through one table per JSON object (a JSON key -> how its
value is read from the typed fields), and compares the rebuilt dict with the engine's JSON
view of the same reader.  A JSON key that no table names is a failure, at any depth, so a
new key in ``frontier.engine.view`` fails here until it has a typed field and a table row.

The states come from random playouts of lineups with every faction (Vagabonds of each
character, Eyrie, Alliance), with and without R4's team hands, sampled every other command
and at every command that leaves a battle or a queue of decisions open, and are read by
every seat and by the spectator.  The few JSON facts the typed view gives in another shape
are normalised on the JSON side, each with its reason (``_json_as_typed``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

import pytest

from frontier.engine import Seat, State, execute, legal_commands, to_act
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Character, Faction, Item, Suit, Team
from frontier.engine.view import SPECTATOR, view
from frontier.v1 import types_pb2
from frontier.wire import enum_from_proto
from frontier.wire.view import view_to_proto
from tests.engine_helpers import KindFirstBot, new_state

Msg = Any  # a generated message: the tables read fields by name
Table = Mapping[str, Callable[[Msg], Any]]


_NAMES: dict[type[StrEnum], dict[int, str]] = {}


def _name(engine_enum: type[StrEnum], number: int) -> str:
    """A typed enum value as the JSON view writes it: the engine member's value, or ""."""
    names = _NAMES.get(engine_enum)
    if names is None:
        names = _NAMES[engine_enum] = {0: ""}
    if number not in names:
        names[number] = str(enum_from_proto(engine_enum, number).value)
    return names[number]


def _seat(number: int) -> str:
    return _name(Seat, number)


def _items(numbers: Any) -> list[str]:
    return [_name(Item, n) for n in numbers]


def _rebuild(table: Table, msg: Msg) -> dict[str, Any]:
    return {key: read(msg) for key, read in table.items()}


CONTRABAND: Table = {
    "item": lambda c: _name(Item, c.item),
    "team": lambda c: _name(Team, c.team),
    "crafter": lambda c: _seat(c.crafter),
}

DECISION: Table = {
    "seat": lambda d: _seat(d.seat),
    "kind": lambda d: d.kind,
    "clearing": lambda d: d.clearing,
    "target": lambda d: d.target,
    "count": lambda d: d.count,
    "piece": lambda d: d.piece,
    "cards": lambda d: list(d.cards),
}
# the JSON's "decision" is the first of "decisions" without its piece and cards
FIRST_DECISION: Table = {k: v for k, v in DECISION.items() if k not in ("piece", "cards")}

BATTLE: Table = {
    "attacker": lambda b: _seat(b.attacker),
    "defender": lambda b: _seat(b.defender),
    "clearing": lambda b: b.clearing,
    "stage": lambda b: b.stage,
    "dice": lambda b: list(b.dice),
    "ambush": lambda b: b.ambush,
    "looting": lambda b: b.looting,
    "hits_to_defender": lambda b: b.hits_to_defender,
    "hits_to_attacker": lambda b: b.hits_to_attacker,
    "extra_to_defender": lambda b: b.extra_to_defender,
    "extra_to_attacker": lambda b: b.extra_to_attacker,
    "ignore_rolled_by_attacker": lambda b: b.ignore_rolled_by_attacker,
    "ignore_rolled_by_defender": lambda b: b.ignore_rolled_by_defender,
    "effects_used": lambda b: list(b.effects_used),
    "removed_warriors": lambda b: [[_seat(r.seat), r.count] for r in b.removed_warriors],
}

OPTIONS: Table = {
    "team_hands_visible": lambda o: o.team_hands_visible,
    "max_rounds": lambda o: o.max_rounds,
    "winning_score": lambda o: o.winning_score,
}

VAGABOND_ITEM: Table = {
    "item": lambda i: _name(Item, i.item),
    "exhausted": lambda i: i.exhausted,
    "damaged": lambda i: i.damaged,
    "contraband": lambda i: i.contraband,
    "crafter": lambda i: _seat(i.crafter),
    "on_track": lambda i: i.on_track,
}

VAGABOND: Table = {
    "character": lambda v: _name(Character, v.character),
    "location": lambda v: v.location,
    "items": lambda v: [_rebuild(VAGABOND_ITEM, i) for i in v.items],
    "item_load": lambda v: v.item_load,
    "item_limit": lambda v: v.item_limit,
    "relationships": lambda v: {_seat(r.seat): r.level for r in v.relationships},
    "ruins_explored": lambda v: v.ruins_explored,
    "quests_completed": lambda v: list(v.quests_completed),
    "quests_by_suit": lambda v: {_name(Suit, q.suit): q.count for q in v.quests_by_suit},
    "legendary": lambda v: v.legendary,
}

EYRIE: Table = {
    "leader": lambda e: e.leader,
    "candidates": lambda e: list(e.candidates),
    "deposed": lambda e: list(e.deposed),
    "decree": lambda e: {c.column: list(c.cards) for c in e.decree},
}

ALLIANCE: Table = {
    "supporters": lambda a: a.supporters_count,
    "officers": lambda a: a.officers,
    "bases_left": lambda a: [_name(Suit, s) for s in a.bases_left],
    "sympathy_placed": lambda a: a.sympathy_placed,
}

# the faction board's oneof field -> its table; a seat without a board has no faction state
BOARDS: Mapping[str, Table] = {"vagabond": VAGABOND, "eyrie": EYRIE, "alliance": ALLIANCE}


def _board(s: types_pb2.SeatView) -> dict[str, Any]:
    which = s.WhichOneof("board")
    return _rebuild(BOARDS[which], getattr(s, which)) if which else {}


SEAT: Table = {
    "seat": lambda s: _seat(s.seat),
    "faction": lambda s: _name(Faction, s.faction),
    "character": lambda s: _name(Character, s.character),
    "hand_count": lambda s: s.hand_count,
    "play_area": lambda s: list(s.play_area),
    "crafted_items": lambda s: _items(s.crafted_items),
    "vp": lambda s: s.vp,
    "supply": lambda s: {p.kind: p.count for p in s.supply},
    "faction_state": _board,
}


def _pieces(c: types_pb2.ClearingView) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for p in c.pieces:
        kinds = {k.kind: k.count for k in (*p.buildings, *p.tokens)}
        if p.warriors:
            kinds["warrior"] = p.warriors
        out[_seat(p.seat)] = kinds
    return out


CLEARING: Table = {
    "id": lambda c: c.id,
    "suit": lambda c: _name(Suit, c.suit),
    "ruin_items": lambda c: c.ruin_items,
    "ruin_explored": lambda c: c.ruin_explored,
    "ruler": lambda c: _name(Team, c.ruler),
    "open_slots": lambda c: c.open_slots,
    "pawns": lambda c: [_seat(s) for s in c.pawns],
    "pieces": _pieces,
}


def _private(v: types_pb2.View) -> dict[str, Any]:
    """A faction's secret data, shown to its own seat only: the Alliance's supporters; a seat
    with a faction board and no secret on it has an empty entry, as in the JSON view."""
    out: dict[str, Any] = {}
    for s in v.seats:
        if s.seat != v.viewer or not s.WhichOneof("board"):
            continue
        secret = {"supporters": list(s.alliance.supporters)} if s.HasField("alliance") else {}
        out[_seat(s.seat)] = secret
    for s in v.seats:  # nobody else's secret is marked as shown
        assert not s.alliance.supporters_visible or _seat(s.seat) in out
    return out


VIEW: Table = {
    "viewer": lambda v: _seat(v.viewer) or SPECTATOR,
    "round": lambda v: v.round,
    "step": lambda v: v.step,
    "phase": lambda v: v.phase,
    "turn_seat": lambda v: _seat(v.turn_seat),
    "to_act": lambda v: _seat(v.to_act),
    "decision": lambda v: _rebuild(FIRST_DECISION, v.decision) if v.HasField("decision") else None,
    "actions": lambda v: v.actions,
    "decisions": lambda v: [_rebuild(DECISION, d) for d in v.decisions],
    "march_left": lambda v: v.march_left,
    "used": lambda v: {u.key: u.count for u in v.used},
    "options": lambda v: _rebuild(OPTIONS, v.options),
    "battle": lambda v: _rebuild(BATTLE, v.battle) if v.HasField("battle") else None,
    "scores": lambda v: {"A": v.score_a, "B": v.score_b},
    "winner": lambda v: v.winner,
    "end_reason": lambda v: v.end_reason,
    "version": lambda v: v.version,
    "seats": lambda v: [_rebuild(SEAT, s) for s in v.seats],
    "hands": lambda v: {_seat(s.seat): list(s.hand) for s in v.seats if s.hand_visible},
    "private": _private,
    "known_hands": lambda v: {_seat(k.seat): list(k.cards) for k in v.known_hands},
    "clearings": lambda v: [_rebuild(CLEARING, c) for c in v.clearings],
    "deck_count": lambda v: v.deck_count,
    "quests": lambda v: list(v.quests),
    "quest_deck_count": lambda v: v.quest_deck_count,
    "discard": lambda v: list(v.discard),
    "stock": lambda v: {m.map: {_name(Item, i.item): i.count for i in m.items} for m in v.stock},
    "dropped": lambda v: {
        c.id: [_rebuild(CONTRABAND, d) for d in c.dropped] for c in v.clearings if c.dropped
    },
    "carried": lambda v: {
        c.id: {_seat(k.carrier): [_rebuild(CONTRABAND, d) for d in k.items] for k in c.carried}
        for c in v.clearings
        if c.carried
    },
    "crate": lambda v: _items(v.crate),
    "ruin_pool": lambda v: _items(v.ruin_pool),
}


def _nonzero(counts: Mapping[str, int]) -> dict[str, int]:
    return {k: n for k, n in counts.items() if n}


def _json_as_typed(data: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON view with the facts the typed view states in another way written that way.

    * a count of 0 (stock items, supply pieces) is the typed view's absent entry;
    * the cards a seat was shown are sorted in the typed view (a set of cards, not an order);
    * once the match is over ``turn_seat`` is SEAT_UNSPECIFIED (documented on the field).
    """
    out = dict(data)
    out["stock"] = {m: _nonzero(items) for m, items in out["stock"].items()}
    out["seats"] = [{**seat, "supply": _nonzero(seat["supply"])} for seat in out["seats"]]
    out["known_hands"] = {s: sorted(cards) for s, cards in out["known_hands"].items()}
    if out["winner"]:
        out["turn_seat"] = ""
    return out


def differences(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` (rebuilt from the typed view) differs from the JSON view, by path."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = [f"{path}.{k}: JSON key with no typed field" for k in expected if k not in actual]
        out += [f"{path}.{k}: typed only" for k in actual if k not in expected]
        for k in expected.keys() & actual.keys():
            out += differences(expected[k], actual[k], f"{path}.{k}")
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [
            d
            for i, pair in enumerate(zip(expected, actual, strict=True))
            for d in differences(*pair, f"{path}[{i}]")
        ]
    return (
        []
        if expected == actual and type(expected) is type(actual)
        else [f"{path}: {expected!r} != {actual!r}"]
    )


def parity_problems(data: Mapping[str, Any], msg: types_pb2.View) -> list[str]:
    """What of the engine view ``data`` its typed view ``msg`` does not say alike."""
    shown = json.loads(msg.json)
    problems = [] if shown == data else ["View.json is not the engine's view"]
    expected, rebuilt = _json_as_typed(shown), _rebuild(VIEW, msg)
    # the JSON text tells true from 1 and 1 from 1.0, so equal texts are equal in type too
    if json.dumps(expected, sort_keys=True) != json.dumps(rebuilt, sort_keys=True):
        problems += differences(expected, rebuilt) or ["the JSON texts differ"]
    if msg.HasField("decision") and msg.decision != msg.decisions[0]:
        problems.append("decision is not the first of decisions")
    return problems


def check_parity(state: State, viewer: Seat | None) -> types_pb2.View:
    data = view(state, viewer)
    msg = view_to_proto(data)
    problems = parity_problems(data, msg)
    assert not problems, f"reader {viewer}, version {state.version}: {problems[:10]}"
    return msg


# ----- the random playouts ------------------------------------------------------------------


def _set_fields(msg: Msg, seen: set[str]) -> None:
    """Record every field of ``msg`` (recursively) that holds a non-default value."""
    for field, value in msg.ListFields():
        seen.add(f"{msg.DESCRIPTOR.name}.{field.name}")
        if field.message_type is None:
            continue
        for sub in value if field.is_repeated else (value,):
            _set_fields(sub, seen)


def play_checked(lineup: str, hands_visible: bool, seed: int, every: int, seen: set[str]) -> int:
    """Play one random match, checking parity for every reader at every ``every``-th
    command and whenever a battle or a queued decision is open; the states checked.  The
    typed fields set in the spectator's view and in one seat's (in turn) go into ``seen``."""
    state = new_state(seed, lineup=lineup, team_hands_visible=hands_visible)
    bot = KindFirstBot(seed, patience=3)
    checked = 0
    step = 0
    while (seat := to_act(state)) is not None:
        execute(state, bot.choose(legal_commands(state, seat)))
        step += 1
        if step % every and state.battle is None and len(state.decisions) < 2:
            continue
        checked += 1
        sampled = state.order[checked % len(state.order)]
        for reader in (*state.order, None):
            msg = check_parity(state, reader)
            if reader is None or reader is sampled:
                _set_fields(msg, seen)
    return checked


# Typed fields every lineup's playouts must set somewhere, so that the parity is checked on
# real values: the per-turn facts, the decision queue, the battle's record, the rules options.
# (DecisionView.piece and .cards are not here: no decision of the current rules sets them.)
COMMON = frozenset(
    {
        "View.options",
        "RuleOptions.max_rounds",
        "RuleOptions.winning_score",
        "View.decision",
        "View.decisions",
        "DecisionView.seat",
        "DecisionView.kind",
        "DecisionView.clearing",
        "DecisionView.count",
        "DecisionView.target",
        "View.used",
        "TurnCounter.key",
        "TurnCounter.count",
        "View.march_left",
        "View.ruin_pool",
        "View.battle",
        "BattleView.stage",
        "BattleView.dice",
        "BattleView.hits_to_defender",
        "BattleView.hits_to_attacker",
        "BattleView.removed_warriors",
        "SeatCount.seat",
        "SeatCount.count",
        "ClearingView.ruin_explored",
        "SeatView.supply",
        "MapStock.items",
    }
)
# ... and per faction at the table, its board's facts
BY_FACTION = {
    "alliance": {f"AllianceBoard.{f.name}" for f in types_pb2.AllianceBoard.DESCRIPTOR.fields},
    "eyrie": {f"EyrieBoard.{f.name}" for f in types_pb2.EyrieBoard.DESCRIPTOR.fields},
    "vagabond": {
        "VagabondBoard.location",
        "VagabondBoard.items",
        "VagabondBoard.relationships",
        "VagabondBoard.quests_completed",
        "VagabondBoard.quests_by_suit",
        "SuitCount.suit",
        "SuitCount.count",
        "VagabondItem.exhausted",
        "VagabondItem.on_track",
        "ClearingView.pawns",
    },
}

# (lineup, R4's team hands visible, seeds): every faction, each Vagabond character, the
# second seats mirrored and doubled; sized to check about 2,500 states (each by all seven readers)
# in well under a minute
LINEUPS = [
    pytest.param(R2_DEFAULT_LINEUP, False, range(7), id="r2-default"),
    pytest.param("A=marquise,alliance,ranger;B=marquise,eyrie,thief", True, range(6), id="ranger"),
    pytest.param("A=marquise,eyrie,tinker;B=marquise,eyrie,ranger", False, range(5), id="eyries"),
    pytest.param("A=marquise,alliance;B=marquise,alliance,thief", True, range(7), id="alliances"),
]


@pytest.mark.parametrize(("lineup", "hands_visible", "seeds"), LINEUPS)
def test_every_json_fact_has_the_same_typed_value(
    lineup: str, hands_visible: bool, seeds: range
) -> None:
    seen: set[str] = set()
    checked = sum(play_checked(lineup, hands_visible, seed, 2, seen) for seed in seeds)
    assert checked >= 60 * len(seeds)
    required = set(COMMON)
    for faction, fields in BY_FACTION.items():
        if faction in lineup or (
            faction == "vagabond" and any(c.value in lineup for c in Character)
        ):
            required |= fields
    if hands_visible:
        required.add("RuleOptions.team_hands_visible")
    assert not required - seen, f"never set in these playouts: {sorted(required - seen)}"


def test_the_two_marquise_lineup_keeps_parity() -> None:
    seen: set[str] = set()
    assert sum(play_checked("A=marquise;B=marquise", False, s, 1, seen) for s in range(3)) > 30
    assert {"View.used", "View.march_left", "View.options"} <= seen


# ----- the check itself fails on what it must catch -----------------------------------------


def _mid_match_view(viewer: Seat | None) -> dict[str, Any]:
    """A view of a default-lineup match a few dozen commands in, with every seat's board."""
    state = new_state(3, lineup=R2_DEFAULT_LINEUP)
    bot = KindFirstBot(3, patience=3)
    for _ in range(60):
        seat = to_act(state)
        assert seat is not None
        execute(state, bot.choose(legal_commands(state, seat)))
    return view(state, viewer)


@pytest.mark.parametrize(
    "path",
    [
        ("new_fact",),
        ("options", "new_fact"),
        ("seats", 0, "new_fact"),
        ("seats", 2, "faction_state", "new_fact"),  # A2, the Eyrie
        ("seats", 4, "faction_state", "items", 0, "new_fact"),  # A3, the Thief
        ("clearings", 5, "new_fact"),
    ],
)
def test_a_json_key_without_a_typed_field_fails(path: tuple[str | int, ...]) -> None:
    data = _mid_match_view(Seat.A1)
    assert parity_problems(data, view_to_proto(data)) == []
    node: Any = data
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = 1
    problems = parity_problems(data, view_to_proto(data))
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    assert f"{where}: JSON key with no typed field" in problems, problems


def test_a_typed_value_that_differs_from_the_json_fails() -> None:
    data = _mid_match_view(None)
    msg = view_to_proto(data)
    msg.march_left += 1
    msg.seats[0].vp += 1
    problems = parity_problems(data, msg)
    assert any(p.startswith(".march_left:") for p in problems), problems
    assert any(p.startswith(".seats[0].vp:") for p in problems), problems
