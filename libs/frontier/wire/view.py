"""The engine's per-reader view as a typed ``frontier.v1.View``.

Why from the view dict and never from the state: ``frontier.engine.view.view(state, reader)``
is the one place that decides what a reader may see (R4, R33).  Converting *its* output
keeps secrecy in one place: whatever this module does, it can only show what the engine
already chose to show that reader.  The JSON form of the same dict stays in ``View.json``
as a debugging aid.

A piece kind is a warrior, a building (``frontier.engine.pieces.BUILDINGS``) or else a token,
so a new faction's tokens need no change here.  A view whose shape this module does not know
(a missing key, a seat or suit name the wire has no value for) raises :class:`WireError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from frontier.engine.model import Character, Faction, Item, Seat, Suit, Team
from frontier.engine.pieces import BUILDINGS, WARRIOR
from frontier.engine.view import SPECTATOR
from frontier.v1 import types_pb2
from frontier.wire.convert import WireError
from frontier.wire.enums import (
    character_number,
    faction_number,
    item_number,
    seat_number,
    suit_number,
    team_number,
)
from frontier.wire.kinds import COLUMNS, DECISIONS, LEADERS, PIECES, RELATIONSHIPS

__all__ = ["view_to_proto"]


# name -> wire number, built once: a view has hundreds of names and this is on the path of
# every decision request ("" is *_UNSPECIFIED; an unknown name is a KeyError, a WireError)
_SEATS: dict[str, types_pb2.Seat.ValueType] = {
    "": seat_number(None),
    **{s.value: seat_number(s) for s in Seat},
}
_TEAMS: dict[str, types_pb2.Team.ValueType] = {
    "": team_number(None),
    **{t.value: team_number(t) for t in Team},
}
_SUITS: dict[str, types_pb2.Suit.ValueType] = {s.value: suit_number(s) for s in Suit}
_ITEMS: dict[str, types_pb2.Item.ValueType] = {i.value: item_number(i) for i in Item}
_SEAT_ORDER: dict[str, int] = {s.value: n for n, s in enumerate(Seat)}
_ITEM_ORDER: dict[str, int] = {i.value: n for n, i in enumerate(Item)}


def _seat(name: str) -> types_pb2.Seat.ValueType:
    """A seat name ("A1") as its wire number; "" is SEAT_UNSPECIFIED."""
    return _SEATS[name]


def _team(name: str) -> types_pb2.Team.ValueType:
    return _TEAMS[name]


def _counts(kinds: Mapping[str, int]) -> list[types_pb2.PieceCount]:
    return [
        types_pb2.PieceCount(kind=k, count=n, piece=PIECES[k])
        for k, n in sorted(kinds.items())
        if n
    ]


def _add_seat_pieces(out: types_pb2.SeatPieces, kinds: Mapping[str, int]) -> None:
    # filled in place with add(): building nested messages and copying them into their
    # parent costs twice as much, and a view has a hundred of these
    for kind, n in sorted(kinds.items()):
        if not n:
            continue
        if kind == WARRIOR:
            out.warriors = n
        elif kind in BUILDINGS:
            out.buildings.add(kind=kind, count=n, piece=PIECES[kind])
        else:
            out.tokens.add(kind=kind, count=n, piece=PIECES[kind])


def _contraband(entry: Mapping[str, str]) -> types_pb2.Contraband:
    return types_pb2.Contraband(
        item=_ITEMS[entry["item"]],
        team=_team(entry["team"]),
        crafter=_seat(entry["crafter"]),
    )


def _add_clearing(
    out: types_pb2.ClearingView,
    entry: Mapping[str, Any],
    dropped: Iterable[Mapping[str, str]],
    carried: Mapping[str, Iterable[Mapping[str, str]]],
) -> None:
    pieces: Mapping[str, Mapping[str, int]] = entry["pieces"]
    out.id = entry["id"]
    out.suit = _SUITS[entry["suit"]]
    for seat, kinds in _in_seat_order(pieces):
        _add_seat_pieces(out.pieces.add(seat=_seat(seat)), kinds)
    out.pawns.extend(_seat(s) for s in entry["pawns"])
    out.ruin = entry["ruin_items"] > 0
    out.ruin_items = entry["ruin_items"]
    out.ruin_explored = entry["ruin_explored"]
    out.dropped.extend(_contraband(d) for d in dropped)
    for seat, items in _in_seat_order(carried):
        out.carried.add(carrier=_seat(seat)).items.extend(_contraband(d) for d in items)
    out.ruler = _team(entry["ruler"])
    out.open_slots = entry["open_slots"]


def _in_seat_order(per_seat: Mapping[str, Any]) -> list[tuple[str, Any]]:
    return sorted(per_seat.items(), key=lambda kv: _SEAT_ORDER[kv[0]])


def _vagabond(board: Mapping[str, Any]) -> types_pb2.VagabondBoard:
    return types_pb2.VagabondBoard(
        character=character_number(Character(board["character"])),
        location=board["location"],
        items=[
            types_pb2.VagabondItem(
                item=_ITEMS[it["item"]],
                exhausted=it["exhausted"],
                damaged=it["damaged"],
                contraband=it["contraband"],
                crafter=_seat(it["crafter"]),
                on_track=it["on_track"],
            )
            for it in board["items"]
        ],
        item_load=board["item_load"],
        item_limit=board["item_limit"],
        relationships=[
            types_pb2.Relationship(seat=_seat(s), level=level, relationship=RELATIONSHIPS[level])
            for s, level in _in_seat_order(board["relationships"])
        ],
        ruins_explored=board["ruins_explored"],
        quests_completed=board["quests_completed"],
        legendary=board["legendary"],
        quests_by_suit=[
            types_pb2.SuitCount(suit=_SUITS[s], count=n) for s, n in board["quests_by_suit"].items()
        ],
    )


def _eyrie(board: Mapping[str, Any]) -> types_pb2.EyrieBoard:
    return types_pb2.EyrieBoard(
        leader=board["leader"],
        candidates=board["candidates"],
        deposed=board["deposed"],
        decree=[
            types_pb2.DecreeColumn(column=column, cards=cards, column_kind=COLUMNS[column])
            for column, cards in board["decree"].items()
        ],
        leader_kind=LEADERS[board["leader"]],
        candidate_leaders=[LEADERS[name] for name in board["candidates"]],
        deposed_leaders=[LEADERS[name] for name in board["deposed"]],
    )


def _alliance(
    board: Mapping[str, Any], private: Mapping[str, Any] | None
) -> types_pb2.AllianceBoard:
    return types_pb2.AllianceBoard(
        supporters_count=board["supporters"],
        supporters=private["supporters"] if private is not None else (),
        supporters_visible=private is not None,
        officers=board["officers"],
        bases_left=[_SUITS[s] for s in board["bases_left"]],
        sympathy_placed=board["sympathy_placed"],
    )


def _seat_view(entry: Mapping[str, Any], data: Mapping[str, Any]) -> types_pb2.SeatView:
    name: str = entry["seat"]
    faction = Faction(entry["faction"])
    hands: Mapping[str, list[str]] = data["hands"]
    msg = types_pb2.SeatView(
        seat=_seat(name),
        team=_team(name[:1]),
        faction=faction_number(faction),
        character=character_number(Character(entry["character"]) if entry["character"] else None),
        hand_count=entry["hand_count"],
        hand_visible=name in hands,
        hand=hands.get(name, ()),
        play_area=entry["play_area"],
        crafted_items=[_ITEMS[i] for i in entry["crafted_items"]],
        vp=entry["vp"],
        supply=_counts(entry["supply"]),
    )
    board: Mapping[str, Any] = entry["faction_state"]
    if faction is Faction.VAGABOND:
        msg.vagabond.CopyFrom(_vagabond(board))
    elif faction is Faction.EYRIE:
        msg.eyrie.CopyFrom(_eyrie(board))
    elif faction is Faction.ALLIANCE:
        msg.alliance.CopyFrom(_alliance(board, data["private"].get(name)))
    return msg


def _decision(entry: Mapping[str, Any]) -> types_pb2.DecisionView:
    """One entry of the view's ``decisions`` (``decision`` is the first, without its piece
    and cards, which the typed ``decision`` carries too, being that same first entry)."""
    return types_pb2.DecisionView(
        seat=_seat(entry["seat"]),
        kind=entry["kind"],
        clearing=entry["clearing"],
        target=entry["target"],
        count=entry["count"],
        piece=entry["piece"],
        cards=entry["cards"],
        decision_kind=DECISIONS[entry["kind"]],
        target_seat=_SEATS.get(entry["target"], _SEATS[""]),
    )


def _battle(entry: Mapping[str, Any] | None) -> types_pb2.BattleView | None:
    if entry is None:
        return None
    return types_pb2.BattleView(
        attacker=_seat(entry["attacker"]),
        defender=_seat(entry["defender"]),
        clearing=entry["clearing"],
        stage=entry["stage"],
        dice=entry["dice"],
        ambush=entry["ambush"],
        looting=entry["looting"],
        hits_to_defender=entry["hits_to_defender"],
        hits_to_attacker=entry["hits_to_attacker"],
        extra_to_defender=entry["extra_to_defender"],
        extra_to_attacker=entry["extra_to_attacker"],
        ignore_rolled_by_attacker=entry["ignore_rolled_by_attacker"],
        ignore_rolled_by_defender=entry["ignore_rolled_by_defender"],
        effects_used=entry["effects_used"],
        removed_warriors=[
            types_pb2.SeatCount(seat=_seat(s), count=n) for s, n in entry["removed_warriors"]
        ],
    )


def view_to_proto(data: Mapping[str, Any]) -> types_pb2.View:
    """``frontier.engine.view.view(state, reader)`` as a ``frontier.v1.View``.

    Every typed field comes from ``data``, and ``json`` is ``data`` itself, so the two
    always agree and neither can show more than the engine's view of that reader.
    """
    try:
        return _view(data)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, WireError):
            raise
        raise WireError(f"not an engine view: {exc!r}") from exc


def _view(data: Mapping[str, Any]) -> types_pb2.View:
    viewer: str = data["viewer"]
    dropped: Mapping[str, list[Mapping[str, str]]] = data["dropped"]
    carried: Mapping[str, Mapping[str, list[Mapping[str, str]]]] = data["carried"]
    scores: Mapping[str, int] = data["scores"]
    decisions = [_decision(d) for d in data["decisions"]]
    options: Mapping[str, Any] = data["options"]
    msg = types_pb2.View(
        viewer=_seat(viewer if viewer != SPECTATOR else ""),
        round=data["round"],
        step=data["step"],
        to_act=_seat(data["to_act"]),
        score_a=scores["A"],
        score_b=scores["B"],
        version=data["version"],
        winner=data["winner"],
        json=json.dumps(data, sort_keys=True),
        seats=[_seat_view(s, data) for s in data["seats"]],
        deck_count=data["deck_count"],
        discard=data["discard"],
        stock=[
            types_pb2.MapStock(
                map=name,
                items=[
                    types_pb2.ItemCount(item=_ITEMS[i], count=n) for i, n in _in_item_order(items)
                ],
            )
            for name, items in data["stock"].items()
        ],
        quests=data["quests"],
        quest_deck_count=data["quest_deck_count"],
        decision=decisions[0] if data["decision"] is not None else None,
        battle=_battle(data["battle"]),
        phase=data["phase"],
        turn_seat=_seat(data["turn_seat"] if not data["winner"] else ""),
        actions=data["actions"],
        end_reason=data["end_reason"],
        crate=[_ITEMS[i] for i in data["crate"]],
        known_hands=[
            types_pb2.SeatCards(seat=_seat(s), cards=sorted(cards))
            for s, cards in _in_seat_order(data["known_hands"])
        ],
        options=types_pb2.RuleOptions(
            team_hands_visible=options["team_hands_visible"],
            max_rounds=options["max_rounds"],
            winning_score=options["winning_score"],
        ),
        decisions=decisions,
        march_left=data["march_left"],
        used=[types_pb2.TurnCounter(key=k, count=n) for k, n in data["used"].items()],
        ruin_pool=[_ITEMS[i] for i in data["ruin_pool"]],
    )
    for c in data["clearings"]:
        _add_clearing(msg.clearings.add(), c, dropped.get(c["id"], ()), carried.get(c["id"], {}))
    return msg


def _in_item_order(items: Mapping[str, int]) -> list[tuple[str, int]]:
    return sorted(((i, n) for i, n in items.items() if n), key=lambda kv: _ITEM_ORDER[kv[0]])
