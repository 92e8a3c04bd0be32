"""The Vagabond's own data (base Root §12, R12, R15, R20, R27-R29) and what the core asks of it.

The pawn is not a piece on the board: it is not a warrior, never rules, cannot be removed and
may stand in a forest.  So its location lives in :class:`VagabondState` (``SeatState.extra``),
not in ``State.pieces``, and the core modules that must know about it (battle, pieces, ctx,
views) ask this module.  It imports only plain data modules (no rule, not even ``Ctx``), so
every core module may import it without an import cycle; the Vagabond's turn, actions and
what it does in battle are in the ``factions/vagabond*`` modules.

Items.  Each item is one :class:`VItem` (face up or exhausted, damaged or not).  Where an item
sits is derived, never stored: a face-up, undamaged tea, coins or bag is on its track (at most
3 per track); everything else is in the Satchel or, when damaged, in the Damaged box.  Items
with the same :attr:`VItem.key` are interchangeable, so commands and events name items by key.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .board import board, raw_data
from .model import Character, Item, Seat, Suit, Team
from .state import Battle, State

TRACK_ITEMS: tuple[Item, ...] = (Item.TEA, Item.COINS, Item.BAG)
TRACK_SIZE = 3
BASE_REFRESH = 3  # Birdsong: refresh 3 + 2 per face-up tea on its track
BASE_ITEM_LIMIT = 6  # Evening: 6 + 2 per face-up bag on its track

# Relationships (base Root §12.4, R27): the rival factions' track, and Hostile.
INDIFFERENT = "indifferent"
AMIABLE = "amiable"
FRIENDLY = "friendly"
ALLIED = "allied"
HOSTILE = "hostile"
TRACK_LEVELS: tuple[str, ...] = (INDIFFERENT, AMIABLE, FRIENDLY, ALLIED)

# R29 Legendary Abilities.
VANGUARD_LEADER = "vanguard_leader"
MASTER_CRAFTSMAN = "master_craftsman"
FOREST_GHOST = "forest_ghost"
WAR_VETERAN = "war_veteran"
LEGENDARY_ABILITIES: tuple[str, ...] = (
    VANGUARD_LEADER,
    MASTER_CRAFTSMAN,
    FOREST_GHOST,
    WAR_VETERAN,
)
LEGENDARY_RUINS = 3
LEGENDARY_QUESTS = 3

DAMAGE_DECISION = "damage_items"  # the Vagabond chooses which item each hit damages
INTERVENTION = "intervention"  # R15: a teammate defends where the team's Vagabond stands
LOOT_DECISION = "loot"  # R28: which crafted item a successful Looting takes
REROLL_DECISION = "reroll"  # R29 War Veteran: reroll the Vagabond's die when Looting
# ``ITEM_GAINED.text`` of an item the Vagabond crafted from the rival map's stock: its team's
# contraband, straight into the Satchel (R16, added).
CRAFTED_CONTRABAND = "contraband"


@dataclass(slots=True)
class VItem:
    item: Item
    exhausted: bool = False
    damaged: bool = False
    contraband: bool = False  # its own team's contraband: crafted on the rival map (R16) or
    # picked up with the torch (R20)
    crafter: str = ""  # the contraband's crafter seat (credited when it is validated, R17)

    @property
    def key(self) -> str:
        """``sword``, ``sword/exhausted``, ``tea/damaged``, ``bag/contraband``...  The crafter
        of a contraband item is not part of the key: such items serve alike in play."""
        parts = [self.item.value]
        if self.exhausted:
            parts.append("exhausted")
        if self.damaged:
            parts.append("damaged")
        if self.contraband:
            parts.append("contraband")
        return "/".join(parts)

    @property
    def ready(self) -> bool:
        """Only face-up, undamaged items can be exhausted."""
        return not self.exhausted and not self.damaged

    def clone(self) -> VItem:
        return VItem(self.item, self.exhausted, self.damaged, self.contraband, self.crafter)


@dataclass(slots=True)
class VagabondState:
    character: Character
    items: list[VItem] = field(default_factory=list)
    location: str = ""  # a clearing or forest id; "" until the setup places the pawn
    relations: dict[str, str] = field(default_factory=dict)  # other seat -> level (R27)
    explored: int = 0  # ruins explored, on either map (R29)
    quests_done: list[str] = field(default_factory=list)  # quest ids, in completion order
    legendary: str = ""  # R29 ability, once gained

    def clone(self) -> VagabondState:
        return VagabondState(
            self.character,
            [i.clone() for i in self.items],
            self.location,
            dict(self.relations),
            self.explored,
            list(self.quests_done),
            self.legendary,
        )

    def public_view(self) -> dict[str, Any]:
        """Everything: items, location and relationships are public in Root."""
        track = on_track(self)
        return {
            "character": self.character.value,
            "location": self.location,
            "items": [
                {
                    "item": it.item.value,
                    "exhausted": it.exhausted,
                    "damaged": it.damaged,
                    "contraband": it.contraband,
                    "crafter": it.crafter,
                    "on_track": on,
                }
                for it, on in zip(self.items, track, strict=True)
            ],
            "item_load": item_load(self),
            "item_limit": item_limit(self),
            "relationships": dict(sorted(self.relations.items())),
            "ruins_explored": self.explored,
            "quests_completed": list(self.quests_done),
            "quests_by_suit": dict(
                sorted(Counter(quest(q).suit.value for q in self.quests_done).items())
            ),
            "legendary": self.legendary,
        }

    def private_view(self) -> dict[str, Any]:
        return {}


def starting_items(character: Character) -> list[VItem]:
    for raw in raw_data()["factions"]["vagabond"]["characters"]:
        if raw["name"].lower() == character.value:
            return [VItem(Item(name)) for name in raw["starting_items"]]
    raise KeyError(f"no starting items for {character}")  # pragma: no cover - data is fixed


# ----- quests ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Quest:
    id: str
    name: str
    suit: Suit
    items: tuple[Item, Item]


@cache
def quests() -> dict[str, Quest]:
    """The 15 base quests, in data order (the order before shuffling)."""
    out: dict[str, Quest] = {}
    for raw in raw_data()["quests"]["cards"]:
        a, b = raw["required_items"]
        out[raw["id"]] = Quest(raw["id"], raw["name"], Suit(raw["suit"]), (Item(a), Item(b)))
    return out


def quest(quest_id: str) -> Quest:
    return quests()[quest_id]


# ----- queries ----------------------------------------------------------------------------


def vagabond(state: State, seat: Seat) -> VagabondState | None:
    st = state.seats.get(seat)
    if st is not None and isinstance(st.extra, VagabondState):
        return st.extra
    return None


def vstate(state: State, seat: Seat) -> VagabondState:
    vs = vagabond(state, seat)
    if vs is None:
        raise KeyError(f"{seat.value} is not a Vagabond")
    return vs


def vagabond_seats(state: State) -> list[Seat]:
    return [s for s in state.order if isinstance(state.seats[s].extra, VagabondState)]


def team_vagabond(state: State, team: Team) -> Seat | None:
    return next((s for s in vagabond_seats(state) if s.team is team), None)


def pawn_places(state: State) -> list[tuple[Seat, str]]:
    """(Vagabond seat, where its pawn stands) in turn order: one pass over the seats for
    callers that ask about many places in a row (see :func:`pawns_in`)."""
    out: list[tuple[Seat, str]] = []
    seats = state.seats
    for s in state.order:
        extra = seats[s].extra
        if isinstance(extra, VagabondState):
            out.append((s, extra.location))
    return out


def pawns_in(state: State, place: str) -> list[Seat]:
    """Vagabond seats whose pawn stands in ``place`` (a clearing or a forest)."""
    return [s for s, where in pawn_places(state) if where == place]


def is_clearing(place: str) -> bool:
    return place in board().clearings


def ready(vs: VagabondState, item: Item) -> int:
    return sum(1 for it in vs.items if it.item is item and it.ready)


def undamaged(vs: VagabondState, item: Item) -> int:
    return sum(1 for it in vs.items if it.item is item and not it.damaged)


def on_track(vs: VagabondState) -> list[bool]:
    """Per item: is it on its track?  The first 3 face-up, undamaged of each track kind."""
    seen: dict[Item, int] = {}
    out: list[bool] = []
    for it in vs.items:
        on = False
        if it.item in TRACK_ITEMS and it.ready and seen.get(it.item, 0) < TRACK_SIZE:
            seen[it.item] = seen.get(it.item, 0) + 1
            on = True
        out.append(on)
    return out


def track_count(vs: VagabondState, item: Item) -> int:
    return min(TRACK_SIZE, ready(vs, item)) if item in TRACK_ITEMS else 0


def item_load(vs: VagabondState) -> int:
    """Items counted by the limit: the Satchel plus the Damaged box (tracks excluded)."""
    return sum(1 for on in on_track(vs) if not on)


def item_limit(vs: VagabondState) -> int:
    return BASE_ITEM_LIMIT + 2 * track_count(vs, Item.BAG)


def refresh_allowance(vs: VagabondState) -> int:
    return BASE_REFRESH + 2 * track_count(vs, Item.TEA)


def keys(items: list[VItem]) -> list[str]:
    """Distinct item keys, in a stable order."""
    return sorted({it.key for it in items})


def find(vs: VagabondState, key: str) -> VItem:
    for it in vs.items:
        if it.key == key:
            return it
    raise KeyError(f"no item {key}")


def relationship(state: State, seat: Seat, other: Seat) -> str:
    """R27: Allied with teammates, else the rival track level (Indifferent at setup)."""
    if other.team is seat.team:
        return ALLIED
    return vstate(state, seat).relations.get(other.value, INDIFFERENT)


def effective_hits_to_defender(b: Battle) -> int:
    rolled = 0 if b.ignore_rolled_by_defender else b.hits_to_defender
    return rolled + b.extra_to_defender


def intervention_options(state: State, b: Battle) -> tuple[Seat, list[str]] | None:
    """R15: the defender's team Vagabond in the clearing, and what it may exhaust.

    A sword adds 1 hit dealt to the attacker; boots cancel 1 hit the defender would take
    (offered only while the defender is to take a hit).  At most once per battle.
    """
    seat = team_vagabond(state, b.defender.team)
    if seat is None or seat is b.defender or f"{seat.value}:{INTERVENTION}" in b.effects_used:
        return None
    vs = vstate(state, seat)
    if vs.location != b.clearing:
        return None
    options: list[str] = []
    if ready(vs, Item.SWORD):
        options.append(Item.SWORD.value)
    if ready(vs, Item.BOOTS) and effective_hits_to_defender(b) > 0:
        options.append(Item.BOOTS.value)
    return (seat, options) if options else None


def legendary_taken(state: State) -> bool:
    return any(vstate(state, s).legendary for s in vagabond_seats(state))


def legendary_due(state: State, seat: Seat) -> bool:
    """R29: the first Vagabond with 3 ruins explored and 3 quests done picks an ability."""
    vs = vstate(state, seat)
    return (
        vs.explored >= LEGENDARY_RUINS
        and len(vs.quests_done) >= LEGENDARY_QUESTS
        and not legendary_taken(state)
    )
