"""The shared deck (R11): the 54-card standard deck less the 4 Dominance and 3 Favor cards.

Each physical card has its own id (``armorers.1``, ``armorers.2``, ``anvil``) so that hands,
the discard pile and replays can name exactly one card.  ``Card.type`` is the printed card.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING

from .board import raw_data
from .model import Item, Suit

if TYPE_CHECKING:  # the state module needs no card data; only the types are used here
    from .model import Seat
    from .state import State


class CardKind(StrEnum):
    ITEM = "item_craft"
    PERSISTENT = "persistent"
    AMBUSH = "ambush"


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    type: str
    name: str
    suit: Suit
    kind: CardKind
    cost: tuple[str, ...]  # one entry per crafting piece: a suit name or "any"
    item: Item | None
    vp: int


EXCLUDED_KINDS = ("dominance", "one_shot")  # R11: Dominance and Favor cards are removed

# Persistent effects, by card type.  Kept as names so rules code reads like the card text.
ARMORERS = "armorers"
SAPPERS = "sappers"
BRUTAL_TACTICS = "brutal_tactics"
ROYAL_CLAIM = "royal_claim"
STAND_AND_DELIVER = "stand_and_deliver"
TAX_COLLECTOR = "tax_collector"
COMMAND_WARREN = "command_warren"
BETTER_BURROW_BANK = "better_burrow_bank"
COBBLER = "cobbler"
CODEBREAKERS = "codebreakers"
SCOUTING_PARTY = "scouting_party"


@cache
def catalog() -> dict[str, Card]:
    """Every card of the match deck by id, in a fixed order (the order before shuffling)."""
    cards: dict[str, Card] = {}
    for raw in raw_data()["deck"]["cards"]:
        if raw["kind"] in EXCLUDED_KINDS:
            continue
        count = int(raw["count"])
        for n in range(1, count + 1):
            cid = raw["id"] if count == 1 else f"{raw['id']}.{n}"
            cards[cid] = Card(
                id=cid,
                type=raw["id"],
                name=raw["name"],
                suit=Suit(raw["suit"]),
                kind=CardKind(raw["kind"]),
                cost=tuple(raw.get("craft_cost", ())),
                item=Item(raw["yields_item"]) if raw.get("yields_item") else None,
                vp=int(raw.get("craft_vp", 0)),
            )
    return cards


def card(card_id: str) -> Card:
    return catalog()[card_id]


def deck_ids() -> tuple[str, ...]:
    return tuple(catalog())


def matches(card_id: str, suit: Suit) -> bool:
    """Birds are wild when a card is spent, discarded or given for a suit."""
    s = catalog()[card_id].suit
    return s is Suit.BIRD or s is suit


def in_play(state: State, seat: Seat, card_type: str) -> str | None:
    """The id of ``seat``'s persistent card of ``card_type`` in play, if it has one."""
    for cid in state.seats[seat].play_area:
        if catalog()[cid].type == card_type:
            return cid
    return None


def one_per_type(card_ids: Iterable[str]) -> list[str]:
    """One representative per printed card (lowest id), in a stable order.

    Two copies of the same printed card are interchangeable, so offering both as separate
    legal commands would only multiply the choices bots and players must look at.
    """
    cat = catalog()
    seen: set[str] = set()
    out: list[str] = []
    for cid in sorted(card_ids):
        t = cat[cid].type
        if t not in seen:
            seen.add(t)
            out.append(cid)
    return out


def payable(hand: Iterable[str], suit: Suit) -> list[str]:
    """Cards of ``hand`` that can be spent for ``suit`` (birds wild), one per printed card."""
    cat = catalog()
    bird = Suit.BIRD
    return one_per_type(c for c in hand if (s := cat[c].suit) is bird or s is suit)
