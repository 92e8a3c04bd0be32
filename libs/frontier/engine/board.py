"""The mega-map: Autumn (left, Team A's home) joined to Winter (right, Team B's home).

Topology is static, so it is built once from the packaged data file and shared read-only by
every match; what varies per match (Winter's suits, R5) lives in the game state.
Clearing ids are map-qualified and lower-case, e.g. ``autumn.quarry`` (R5).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .model import Suit, Team

AUTUMN = "autumn"
WINTER = "winter"
MAPS: tuple[str, str] = (AUTUMN, WINTER)
HOME_MAP: dict[Team, str] = {Team.A: AUTUMN, Team.B: WINTER}

# R6: the two Border Bridges (top and bottom).  A bridge is a path that creates no forest.
BRIDGES: tuple[tuple[str, str], ...] = (
    ("autumn.quarry", "winter.mound"),
    ("autumn.weald", "winter.spire"),
)


@dataclass(frozen=True, slots=True)
class ClearingInfo:
    id: str
    map: str
    name: str
    printed_suit: Suit | None
    slots: int
    ruin: bool
    corner: bool
    opposite_corner: str | None
    priority: int


@dataclass(frozen=True, slots=True)
class Board:
    clearings: dict[str, ClearingInfo]
    adjacent: dict[str, tuple[str, ...]]
    forests: dict[str, tuple[str, ...]]
    forest_adjacent: dict[str, tuple[str, ...]]
    clearing_forests: dict[str, tuple[str, ...]]
    order: tuple[str, ...]
    # Derived from the fields above, for the hot loops of legal-command enumeration:
    # every bridge as an ordered pair both ways (a tuple test needs no frozenset built), and
    # each clearing's paths in ``adjacent`` order with "is it a bridge" already answered.
    bridge_ends: frozenset[tuple[str, str]]
    paths: dict[str, tuple[tuple[str, bool], ...]]
    by_map: dict[str, tuple[str, ...]]  # each map's clearings, in ``order``
    position: dict[str, int]  # clearing -> its index in ``order`` (a sort key)

    def map_of(self, place: str) -> str:
        return place.split(".", 1)[0]

    def is_bridge(self, a: str, b: str) -> bool:
        return (a, b) in self.bridge_ends

    def on_map(self, map_name: str) -> tuple[str, ...]:
        return self.by_map.get(map_name, ())

    def corners(self, map_name: str) -> tuple[str, ...]:
        return tuple(c for c in self.on_map(map_name) if self.clearings[c].corner)


def _qualify(map_name: str, name: str) -> str:
    return f"{map_name}.{name.lower()}"


def _forest_id(map_name: str, raw: str) -> str:
    name = raw[len(map_name) :] if raw.lower().startswith(map_name) else raw
    return f"{map_name}.forest.{name.lower()}"


@cache
def raw_data() -> dict[str, Any]:
    """The base game's rules data, packaged with the engine (``engine/data/``)."""
    text = resources.files("frontier.engine").joinpath("data/root_data.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def board() -> Board:
    data = raw_data()["maps"]
    clearings: dict[str, ClearingInfo] = {}
    adjacent: dict[str, list[str]] = {}
    forests: dict[str, tuple[str, ...]] = {}
    forest_adj: dict[str, list[str]] = {}
    for map_name in MAPS:
        m = data[map_name]
        for c in m["clearings"]:
            cid = _qualify(map_name, c["id"])
            suit = Suit(c["suit"]) if c.get("suit") else None
            opposite = c.get("opposite_corner")
            clearings[cid] = ClearingInfo(
                id=cid,
                map=map_name,
                name=c["id"],
                printed_suit=suit,
                slots=int(c["building_slots"]),
                ruin=bool(c["ruin"]),
                corner=bool(c.get("corner")),
                opposite_corner=_qualify(map_name, opposite) if opposite else None,
                priority=int(c.get("printed_priority") or 0),
            )
            adjacent[cid] = [_qualify(map_name, p) for p in c["paths_to"]]
        for f in m["forests"]:
            fid = _forest_id(map_name, f["id"])
            forests[fid] = tuple(sorted(_qualify(map_name, c) for c in f["adjacent_clearings"]))
            forest_adj.setdefault(fid, [])
        for pair in m["forest_adjacency"]:
            a, b = _forest_id(map_name, pair["a"]), _forest_id(map_name, pair["b"])
            forest_adj.setdefault(a, []).append(b)
            forest_adj.setdefault(b, []).append(a)
    for a, b in BRIDGES:
        adjacent[a].append(b)
        adjacent[b].append(a)
    order = tuple(
        sorted(clearings, key=lambda c: (MAPS.index(clearings[c].map), clearings[c].priority))
    )
    clearing_forests: dict[str, list[str]] = {c: [] for c in clearings}
    for fid, members in forests.items():
        for c in members:
            clearing_forests[c].append(fid)
    adjacency = {c: tuple(sorted(set(v))) for c, v in adjacent.items()}
    bridge_ends = frozenset((*BRIDGES, *((b, a) for a, b in BRIDGES)))
    return Board(
        clearings=clearings,
        adjacent=adjacency,
        forests=forests,
        forest_adjacent={f: tuple(sorted(set(v))) for f, v in forest_adj.items()},
        clearing_forests={c: tuple(sorted(v)) for c, v in clearing_forests.items()},
        order=order,
        bridge_ends=bridge_ends,
        paths={c: tuple((d, (c, d) in bridge_ends) for d in ds) for c, ds in adjacency.items()},
        by_map={m: tuple(c for c in order if c.startswith(m + ".")) for m in MAPS},
        position={c: i for i, c in enumerate(order)},
    )
