"""The game state: plain mutable data, changed only by :func:`frontier.engine.evolve.evolve`.

Why mutable dataclasses rather than frozen ones: a match applies thousands of events and
copying the whole board on each would dominate the run time.  Purity is kept at the API
edge instead: ``decide`` works on a private :meth:`State.clone`, and the only writer of a
live state is ``evolve``.  ``clone`` is hand-written (not ``copy.deepcopy``) for speed, and
shares what is copied on write instead (``State.pieces``' per-clearing dicts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .model import Character, Faction, Item, Seat, Team


class FactionState(Protocol):
    """A faction's own data (the Eyrie's decree, the Vagabond's items...), kept per seat.

    It must be a dataclass (so the state hash covers it) with a deep ``clone``, and says
    what of it everyone may see and what only its owner (and, with R4, teammates) may see.
    """

    def clone(self) -> FactionState: ...

    def public_view(self) -> dict[str, Any]: ...

    def private_view(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class SeatSpec:
    faction: Faction
    character: Character | None = None


@dataclass(frozen=True, slots=True)
class Options:
    """Match settings that change rules (R4)."""

    team_hands_visible: bool = False
    max_rounds: int = 6
    winning_score: int = 90


@dataclass(slots=True)
class Decision:
    """A question one seat must answer before play goes on (it may not be the active seat)."""

    seat: Seat
    kind: str
    clearing: str = ""
    target: str = ""
    count: int = 0
    piece: str = ""
    cards: tuple[str, ...] = ()

    def clone(self) -> Decision:
        return Decision(
            self.seat, self.kind, self.clearing, self.target, self.count, self.piece, self.cards
        )


@dataclass(slots=True)
class Battle:
    attacker: Seat
    defender: Seat
    clearing: str
    stage: str = "start"
    ambush: str = ""
    dice: tuple[int, int] = (0, 0)
    hits_to_defender: int = 0  # rolled hits dealt by the attacker
    hits_to_attacker: int = 0  # rolled hits dealt by the defender
    extra_to_defender: int = 0
    extra_to_attacker: int = 0
    ignore_rolled_by_attacker: bool = False  # Armorers used by the attacker
    ignore_rolled_by_defender: bool = False
    effects_used: tuple[str, ...] = ()
    removed_warriors: tuple[tuple[str, int], ...] = ()  # (owner seat, count) this battle
    looting: bool = False  # R28: a Vagabond attacker declared Looting

    def clone(self) -> Battle:
        b = Battle(self.attacker, self.defender, self.clearing)
        for name in Battle.__slots__:
            setattr(b, name, getattr(self, name))
        return b


@dataclass(slots=True)
class SeatState:
    seat: Seat
    faction: Faction
    character: Character | None
    hand: list[str] = field(default_factory=list)
    play_area: list[str] = field(default_factory=list)  # persistent cards crafted
    crafted_items: list[Item] = field(default_factory=list)  # the Crafted Items box
    vp: int = 0  # this seat's own contribution to its team's score (R32)
    supply: dict[str, int] = field(default_factory=dict)  # pieces off the map, by kind
    extra: FactionState | None = None  # the faction's own data (see FactionRules.new_state)

    @property
    def team(self) -> Team:
        return self.seat.team

    def clone(self) -> SeatState:
        return SeatState(
            self.seat,
            self.faction,
            self.character,
            self.hand.copy(),
            self.play_area.copy(),
            self.crafted_items.copy(),
            self.vp,
            self.supply.copy(),
            self.extra.clone() if self.extra is not None else None,
        )


Pieces = dict[str, dict[Seat, dict[str, int]]]


@dataclass(frozen=True, slots=True)
class DroppedItem:
    """A contraband item (R16-R21): crafted with pieces on the rival map, from that map's
    stock.  It lies in a clearing (``State.dropped``: crafted with no carrier, the Alliance's
    Revolutionary Agent R21, or dropped by a removed carrier R18) or is carried by a seat's
    warriors in a clearing (``State.carried``, R16-R17).  ``team`` and ``crafter`` say who
    crafted it: it scores for that team once carried home by its team (R17), and only the
    other team may seize it (R19).  Items with equal fields are interchangeable."""

    item: Item
    team: Team
    crafter: Seat


# clearing -> carrier seat -> contraband its warriors there carry (R16-R18).  Warriors are
# counted, not individual: the seat's warriors in the clearing carry the list together.
Carried = dict[str, dict[Seat, list[DroppedItem]]]


@dataclass(slots=True)
class State:
    lineup: dict[Seat, SeatSpec]
    options: Options
    order: tuple[Seat, ...]  # filled seats in turn order
    rng: int
    suits: dict[str, str]  # clearing -> suit (Autumn printed, Winter seeded: R5)
    seats: dict[Seat, SeatState]
    # clearing -> seat -> piece kind -> count.  Copy-on-write: a clone shares the clearings'
    # dicts (copying them was three quarters of a clone), so they are never changed in place;
    # evolve's piece handlers, the only writers, replace a clearing's dict and its seat's.
    pieces: Pieces
    deck: list[str]  # top of the deck is the END of the list
    discard: list[str]
    stock: dict[str, dict[Item, int]]  # map -> crafting item stock (R10)
    ruins: dict[str, list[Item]]  # clearing -> hidden ruin items (R9)
    scores: dict[Team, int]
    round: int = 0
    turn_seat: Seat | None = None
    step: str = "setup"
    actions: int = 0
    march_left: int = 0
    used: dict[str, int] = field(default_factory=dict)  # per-turn counters
    decisions: list[Decision] = field(default_factory=list)
    battle: Battle | None = None
    known_hands: dict[Seat, dict[Seat, tuple[str, ...]]] = field(default_factory=dict)
    dropped: dict[str, list[DroppedItem]] = field(default_factory=dict)  # clearing -> items
    carried: Carried = field(default_factory=dict)  # clearing -> carrier -> items (R16-R18)
    crate: list[Item] = field(default_factory=list)  # seized items, out of the game (R19)
    quests: list[str] = field(default_factory=list)  # face-up quests, shared by the Vagabonds
    quest_deck: list[str] = field(default_factory=list)  # hidden order; top = END of the list
    winner: str = ""  # "A", "B", "draw" once over
    end_reason: str = ""
    version: int = 0  # number of events applied

    @property
    def over(self) -> bool:
        return bool(self.winner)

    @property
    def phase(self) -> str:
        return self.step.split(".", 1)[0]

    def clone(self) -> State:
        # Positional, in field order (tests/unit/engine/test_state_clone.py checks the order), and
        # ``.copy()`` rather than ``dict()``/``list()``: a clone is taken per decide call in
        # every domain service and per command in the orchestrator.
        return State(
            self.lineup,
            self.options,
            self.order,
            self.rng,
            self.suits,
            {s: st.clone() for s, st in self.seats.items()},
            self.pieces.copy(),  # the clearings' dicts are shared: see ``pieces``
            self.deck.copy(),
            self.discard.copy(),
            {m: items.copy() for m, items in self.stock.items()},
            {c: items.copy() for c, items in self.ruins.items()},
            self.scores.copy(),
            self.round,
            self.turn_seat,
            self.step,
            self.actions,
            self.march_left,
            self.used.copy(),
            [d.clone() for d in self.decisions],
            self.battle.clone() if self.battle else None,
            {v: k.copy() for v, k in self.known_hands.items()},
            {c: items.copy() for c, items in self.dropped.items()},
            {
                c: {s: items.copy() for s, items in per_seat.items()}
                for c, per_seat in self.carried.items()
            },
            self.crate.copy(),
            self.quests.copy(),
            self.quest_deck.copy(),
            self.winner,
            self.end_reason,
            self.version,
        )
