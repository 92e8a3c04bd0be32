"""How the Vagabond's own event kinds change the state (its pawn, items, relationships,
quests, R15 intervention, the War Veteran's reroll, Day Labor)."""

from __future__ import annotations

from .. import rng
from ..errors import CorruptEvent
from ..model import Event, EventKind, Item, Seat
from ..state import State
from ..vagabond_state import (
    ALLIED,
    CRAFTED_CONTRABAND,
    INDIFFERENT,
    INTERVENTION,
    VagabondState,
    VItem,
    find,
    vstate,
)
from .vagabond_battle import MADE_HOSTILE
from .vagabond_decisions import DIE_FACES


def _event_vagabond(state: State, e: Event) -> VagabondState:
    return vstate(state, Seat(e.seat))


def _pawn_placed(state: State, e: Event) -> None:
    seat = Seat(e.seat)
    vs = vstate(state, seat)
    vs.location = e.to
    vs.relations = {
        other.value: ALLIED if other.team is seat.team else INDIFFERENT
        for other in state.order
        if other is not seat
    }


def _pawn_moved(state: State, e: Event) -> None:
    vs = _event_vagabond(state, e)
    if vs.location != e.clearing:
        raise CorruptEvent(f"{e.seat}'s pawn is in {vs.location}, not {e.clearing}")
    vs.location = e.to


def _items_exhausted(state: State, e: Event) -> None:
    vs = _event_vagabond(state, e)
    item = Item(e.piece)
    for _ in range(e.count):
        it = next((i for i in vs.items if i.item is item and i.ready), None)
        if it is None:
            raise CorruptEvent(f"{e.seat} has no face-up, undamaged {item}")
        it.exhausted = True


def _item(state: State, e: Event) -> VItem:
    try:
        return find(_event_vagabond(state, e), e.piece)
    except KeyError:
        raise CorruptEvent(f"{e.seat} has no item {e.piece}") from None


def _item_refreshed(state: State, e: Event) -> None:
    _item(state, e).exhausted = False


def _item_damaged(state: State, e: Event) -> None:
    _item(state, e).damaged = True


def _item_repaired(state: State, e: Event) -> None:
    _item(state, e).damaged = False


def _item_gained(state: State, e: Event) -> None:
    seat = Seat(e.seat)
    item = Item(e.piece)
    vs = vstate(state, seat)
    contraband = False
    crafter = ""
    if e.text == "ruin":
        items = state.ruins.get(e.clearing, [])
        if item not in items:
            raise CorruptEvent(f"no {item} in the ruin of {e.clearing}")
        items.remove(item)
        if not items:  # the last item taken removes the ruin
            del state.ruins[e.clearing]
        vs.explored += 1
    elif e.text in ("dropped", CRAFTED_CONTRABAND):  # the torch (R20); its own craft (R16)
        crafter = Seat(e.target)
        lying = state.dropped.get(e.clearing, [])
        found = next((d for d in lying if d.item is item and d.crafter is crafter), None)
        if found is None:
            raise CorruptEvent(f"no {item} of {e.target} dropped in {e.clearing}")
        lying.remove(found)
        if not lying:
            del state.dropped[e.clearing]
        contraband = found.team is seat.team  # R20: its own team's contraband
        crafter = found.crafter.value if contraband else ""
    else:  # craft, aid, loot: out of a Crafted Items box
        box = state.seats[Seat(e.target)].crafted_items
        if item not in box:
            raise CorruptEvent(f"{e.target} has no crafted {item}")
        box.remove(item)
    vs.items.append(VItem(item, contraband=contraband, crafter=crafter))


def _item_removed(state: State, e: Event) -> None:
    _event_vagabond(state, e).items.remove(_item(state, e))


def _relationship_changed(state: State, e: Event) -> None:
    _event_vagabond(state, e).relations[e.target] = e.text
    if e.piece == "battle" and state.battle is not None:  # R27: made Hostile by this attack
        state.battle.effects_used = (*state.battle.effects_used, f"{e.seat}:{MADE_HOSTILE}")


def _quest_completed(state: State, e: Event) -> None:
    if e.piece not in state.quests:
        raise CorruptEvent(f"quest {e.piece} is not face up")
    state.quests.remove(e.piece)
    _event_vagabond(state, e).quests_done.append(e.piece)
    if e.to:
        top = state.quest_deck.pop()
        if top != e.to:
            raise CorruptEvent(f"expected quest {e.to} on top of the quest deck, found {top}")
        state.quests.append(top)


def _legendary_gained(state: State, e: Event) -> None:
    _event_vagabond(state, e).legendary = e.piece


def _intervened(state: State, e: Event) -> None:
    """R15: the sword adds a hit to the attacker; the boots cancel one hit to the defender."""
    b = state.battle
    if b is None:
        raise CorruptEvent("no battle is open")
    _items_exhausted(state, Event(EventKind.ITEMS_EXHAUSTED, seat=e.seat, piece=e.piece, count=1))
    b.effects_used = (*b.effects_used, f"{e.seat}:{INTERVENTION}")
    if e.piece == Item.SWORD.value:
        b.extra_to_attacker += 1
    elif b.extra_to_defender > 0:
        b.extra_to_defender -= 1
    else:
        b.hits_to_defender = max(0, b.hits_to_defender - 1)


def _die_rerolled(state: State, e: Event) -> None:
    b = state.battle
    if b is None:
        raise CorruptEvent("no battle is open")
    die, state.rng = rng.below(state.rng, DIE_FACES)
    if (die,) != tuple(e.values):
        raise CorruptEvent(f"die {e.values} does not match the generator ({die})")
    b.dice = (b.dice[0], die)


def _discard_card_taken(state: State, e: Event) -> None:
    hand = state.seats[Seat(e.seat)].hand
    for cid in e.cards:
        if cid not in state.discard:
            raise CorruptEvent(f"{cid} is not in the discard pile")
        state.discard.remove(cid)
        hand.append(cid)


EVOLVE = {
    EventKind.PAWN_PLACED: _pawn_placed,
    EventKind.PAWN_MOVED: _pawn_moved,
    EventKind.ITEMS_EXHAUSTED: _items_exhausted,
    EventKind.ITEM_REFRESHED: _item_refreshed,
    EventKind.ITEM_DAMAGED: _item_damaged,
    EventKind.ITEM_REPAIRED: _item_repaired,
    EventKind.ITEM_GAINED: _item_gained,
    EventKind.ITEM_REMOVED: _item_removed,
    EventKind.RELATIONSHIP_CHANGED: _relationship_changed,
    EventKind.QUEST_COMPLETED: _quest_completed,
    EventKind.LEGENDARY_GAINED: _legendary_gained,
    EventKind.INTERVENED: _intervened,
    EventKind.DIE_REROLLED: _die_rerolled,
    EventKind.DISCARD_CARD_TAKEN: _discard_card_taken,
}
