"""``evolve(state, event)``: the only function that changes a game state.

Each event kind has one small handler.  Handlers trust the event (``decide`` validated the
command that produced it) but keep a few cheap consistency checks that catch a corrupted
event stream early.  Randomness is re-drawn here from the generator stored in the state
(shuffles, dice, random steals), so events never carry the deck order or generator state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from . import rng, vagabond_state
from .board import board
from .cards import card
from .errors import CorruptEvent as CorruptEvent  # re-exported: defined there for mypyc
from .evolve_types import EvolveHandler
from .model import Event, EventKind, Item, Seat, Team, seat_named
from .pieces import KEEP
from .state import Battle, Decision, DroppedItem, State

K = TypeVar("K")


def _seat(value: str) -> Seat:
    return seat_named(value)


def _take_from_hand(state: State, seat: Seat, card_id: str) -> None:
    hand = state.seats[seat].hand
    try:
        hand.remove(card_id)
    except ValueError:
        raise CorruptEvent(f"{seat} does not hold {card_id}") from None


def _cards_drawn(state: State, e: Event) -> None:
    hand = state.seats[_seat(e.seat)].hand
    for cid in e.cards:
        top = state.deck.pop()
        if top != cid:
            raise CorruptEvent(f"expected {cid} on top of the deck, found {top}")
        hand.append(cid)


def _deck_shuffled(state: State, e: Event) -> None:
    new_deck, state.rng = rng.shuffled(state.discard, state.rng)
    state.deck = new_deck + state.deck
    state.discard = []


def _cards_discarded(state: State, e: Event) -> None:
    seat = _seat(e.seat)
    for cid in e.cards:
        if e.piece == "play":
            state.seats[seat].play_area.remove(cid)
        else:
            _take_from_hand(state, seat, cid)
        state.discard.append(cid)


def _card_given(state: State, e: Event) -> None:
    giver, receiver = _seat(e.seat), _seat(e.target)
    if e.text == "stolen":
        _, state.rng = rng.below(state.rng, len(state.seats[giver].hand))
    for cid in e.cards:
        _take_from_hand(state, giver, cid)
        state.seats[receiver].hand.append(cid)


# Copy-on-write: a clone shares the per-clearing dicts of ``State.pieces`` with the state it
# was taken from (``State.clone``), so these four handlers, the only writers of pieces,
# never change one in place: they put a changed copy of the clearing's dict, and of the
# seat's, in its place.


def _with_kinds(state: State, clearing: str, seat: Seat) -> dict[str, int]:
    """A fresh copy of ``seat``'s piece counts in ``clearing``, put in place of the shared
    one (in a fresh copy of the clearing's dict), for the caller to change."""
    per_seat = dict(state.pieces[clearing])
    held = per_seat.get(seat)
    kinds = per_seat[seat] = dict(held) if held is not None else {}
    state.pieces[clearing] = per_seat
    return kinds


def _pieces_placed(state: State, e: Event) -> None:
    seat = _seat(e.seat)
    supply = state.seats[seat].supply
    if supply.get(e.piece, 0) < e.count:
        raise CorruptEvent(f"{seat} has no {e.count} {e.piece} in supply")
    supply[e.piece] -= e.count
    kinds = _with_kinds(state, e.clearing, seat)
    kinds[e.piece] = kinds.get(e.piece, 0) + e.count


def _pieces_moved(state: State, e: Event) -> None:
    seat = _seat(e.seat)
    if state.pieces[e.clearing][seat].get(e.piece, 0) < e.count:
        raise CorruptEvent(f"{seat} has no {e.count} {e.piece} in {e.clearing}")
    origin = _with_kinds(state, e.clearing, seat)
    origin[e.piece] -= e.count
    dest = _with_kinds(state, e.to, seat)
    dest[e.piece] = dest.get(e.piece, 0) + e.count


def _pieces_removed(state: State, e: Event) -> None:
    seat = _seat(e.seat)
    held = state.pieces[e.clearing].get(seat)
    if held is None or held.get(e.piece, 0) < e.count:
        raise CorruptEvent(f"{seat} has no {e.count} {e.piece} in {e.clearing}")
    _with_kinds(state, e.clearing, seat)[e.piece] -= e.count
    if e.piece != KEEP:  # the keep is removed permanently
        supply = state.seats[seat].supply
        supply[e.piece] = supply.get(e.piece, 0) + e.count
    if state.battle is not None and e.piece == "warrior":
        b = state.battle
        b.removed_warriors = (*b.removed_warriors, (e.seat, e.count))


def _wood_spent(state: State, e: Event) -> None:
    seat = _seat(e.seat)
    for clearing in e.clearings:
        _with_kinds(state, clearing, seat)["wood"] -= 1
        state.seats[seat].supply["wood"] += 1


def _noop(state: State, e: Event) -> None:
    return None


def _step_set(state: State, e: Event) -> None:
    state.step = e.text
    state.actions = e.count
    state.march_left = 0


def _actions_changed(state: State, e: Event) -> None:
    state.actions += e.amount
    state.march_left = e.count


def _turn_started(state: State, e: Event) -> None:
    state.turn_seat = _seat(e.seat)
    state.used = {}
    state.actions = 0
    state.march_left = 0


def _round_started(state: State, e: Event) -> None:
    state.round = e.count


def _once_used(state: State, e: Event) -> None:
    state.used[e.text] = state.used.get(e.text, 0) + (e.count or 1)


def _decision_requested(state: State, e: Event) -> None:
    state.decisions.append(
        Decision(
            seat=_seat(e.seat),
            kind=e.text,
            clearing=e.clearing,
            target=e.target,
            count=e.count,
            piece=e.piece,
            cards=e.cards,
        )
    )


def _decision_closed(state: State, e: Event) -> None:
    if not state.decisions:
        raise CorruptEvent("no open decision to close")
    state.decisions.pop(0)


def _battle_started(state: State, e: Event) -> None:
    state.battle = Battle(
        attacker=_seat(e.seat),
        defender=_seat(e.target),
        clearing=e.clearing,
        looting=e.piece == "looting",  # R28, declared with the battle
    )


def _battle(state: State) -> Battle:
    if state.battle is None:
        raise CorruptEvent("no battle is open")
    return state.battle


def _battle_stage(state: State, e: Event) -> None:
    _battle(state).stage = e.text


def _ambush_played(state: State, e: Event) -> None:
    _take_from_hand(state, _seat(e.seat), e.cards[0])
    state.discard.append(e.cards[0])
    _battle(state).ambush = e.cards[0]


def _ambush_foiled(state: State, e: Event) -> None:
    _take_from_hand(state, _seat(e.seat), e.cards[0])
    state.discard.append(e.cards[0])
    _battle(state).ambush = ""


def _dice_rolled(state: State, e: Event) -> None:
    dice, state.rng = rng.roll_dice(state.rng)
    if dice != tuple(e.values):
        raise CorruptEvent(f"dice {e.values} do not match the generator ({dice})")
    _battle(state).dice = dice


def _hits_set(state: State, e: Event) -> None:
    b = _battle(state)
    b.hits_to_defender, b.hits_to_attacker, b.extra_to_defender, b.extra_to_attacker = e.values


def _effect_used(state: State, e: Event) -> None:
    b = _battle(state)
    seat = _seat(e.seat)
    for cid in e.cards:
        state.seats[seat].play_area.remove(cid)
        state.discard.append(cid)
    b.effects_used = (*b.effects_used, f"{e.seat}:{e.piece}")
    if e.piece == "armorers":
        if seat is b.attacker:
            b.ignore_rolled_by_attacker = True
        else:
            b.ignore_rolled_by_defender = True
    elif e.piece == "sappers":
        b.extra_to_attacker += 1
    elif e.piece == "brutal_tactics":
        b.extra_to_defender += 1


def _battle_ended(state: State, e: Event) -> None:
    state.battle = None


def _card_crafted(state: State, e: Event) -> None:
    seat = _seat(e.seat)
    cid = e.cards[0]
    _take_from_hand(state, seat, cid)
    for clearing in e.clearings:
        key = f"craft:{clearing}"
        state.used[key] = state.used.get(key, 0) + 1
    if e.piece:
        item = Item(e.piece)
        stock = state.stock[board().map_of(e.clearings[0])]
        if stock.get(item, 0) <= 0:
            raise CorruptEvent(f"no {item} left in the stock")
        stock[item] -= 1
        if e.to and e.target:  # contraband carried by the crafter's warriors there (R16)
            carried = state.carried.setdefault(e.to, {}).setdefault(_seat(e.target), [])
            carried.append(DroppedItem(item, seat.team, seat))
        elif e.to:  # contraband dropped in that clearing (R16, R21)
            state.dropped.setdefault(e.to, []).append(DroppedItem(item, seat.team, seat))
        else:
            state.seats[seat].crafted_items.append(item)
        state.discard.append(cid)
    else:
        state.seats[seat].play_area.append(cid)
    if card(cid).item is None and e.piece:
        raise CorruptEvent(f"{cid} yields no item")


# ----- contraband (R16-R21) ---------------------------------------------------------------


def _take_carried(state: State, clearing: str, seat: Seat) -> list[DroppedItem]:
    """Every item ``seat`` carries in ``clearing``, removed from there."""
    per_seat = state.carried.get(clearing, {})
    items = per_seat.pop(seat, [])
    if not per_seat:
        state.carried.pop(clearing, None)
    return items


def _take_one(pile: Mapping[K, list[DroppedItem]], key: K, e: Event) -> DroppedItem:
    """Remove the item ``e`` names (piece = item, target = crafter) from ``pile[key]``; the
    caller drops the emptied list."""
    items = pile.get(key, [])
    item, crafter = Item(e.piece), _seat(e.target)
    found = next((d for d in items if d.item is item and d.crafter is crafter), None)
    if found is None:
        raise CorruptEvent(f"no {item} of {e.target} in {e.clearing or e.to}")
    items.remove(found)
    return found


def _take_dropped(state: State, e: Event) -> DroppedItem:
    found = _take_one(state.dropped, e.clearing, e)
    if not state.dropped[e.clearing]:
        del state.dropped[e.clearing]
    return found


def _add_carried(state: State, clearing: str, seat: Seat, items: list[DroppedItem]) -> None:
    state.carried.setdefault(clearing, {}).setdefault(seat, []).extend(items)


def _contraband_moved(state: State, e: Event) -> None:
    seat = _seat(e.seat)
    items = _take_carried(state, e.clearing, seat)
    if len(items) != e.count:
        raise CorruptEvent(f"{seat} carries {len(items)} items in {e.clearing}, not {e.count}")
    _add_carried(state, e.to, seat, items)


def _contraband_dropped(state: State, e: Event) -> None:
    items = _take_carried(state, e.clearing, _seat(e.seat))
    if len(items) != e.count:
        raise CorruptEvent(f"{e.seat} carries {len(items)} items in {e.clearing}, not {e.count}")
    state.dropped.setdefault(e.clearing, []).extend(items)


def _contraband_collected(state: State, e: Event) -> None:
    _add_carried(state, e.clearing, _seat(e.seat), [_take_dropped(state, e)])


def _contraband_seized(state: State, e: Event) -> None:
    state.crate.append(_take_dropped(state, e).item)


def _contraband_validated(state: State, e: Event) -> None:
    """Carried home: it counts as crafted by the crafter (a Vagabond keeps it in its Satchel,
    no longer contraband)."""
    seat = _seat(e.seat)
    item = Item(e.piece)
    vs = vagabond_state.vagabond(state, seat)
    if vs is not None:
        it = next(
            (i for i in vs.items if i.contraband and i.item is item and i.crafter == e.target),
            None,
        )
        if it is None:
            raise CorruptEvent(f"{e.seat} carries no contraband {item} of {e.target}")
        it.contraband = False
        it.crafter = ""
        return
    per_seat = state.carried.get(e.to, {})
    found = _take_one(per_seat, seat, e)
    if not per_seat[seat]:
        del per_seat[seat]
    if not per_seat:
        state.carried.pop(e.to, None)
    state.seats[found.crafter].crafted_items.append(found.item)


def _scored(state: State, e: Event) -> None:
    team = Team(e.target)
    state.scores[team] += e.amount
    state.seats[_seat(e.seat)].vp += e.amount


def _hand_revealed(state: State, e: Event) -> None:
    viewer = _seat(e.target)
    state.known_hands.setdefault(viewer, {})[_seat(e.seat)] = e.cards


def _round_limit_reached(state: State, e: Event) -> None:
    state.step = "final"


def _game_ended(state: State, e: Event) -> None:
    state.winner = e.text
    state.end_reason = e.piece
    state.step = "over"
    state.decisions = []
    state.battle = None


_HANDLERS: dict[EventKind, Callable[[State, Event], None]] = {
    EventKind.MATCH_STARTED: _noop,
    EventKind.SUITS_ASSIGNED: _noop,
    EventKind.DECK_SHUFFLED: _deck_shuffled,
    EventKind.CARDS_DRAWN: _cards_drawn,
    EventKind.CARDS_DISCARDED: _cards_discarded,
    EventKind.CARD_GIVEN: _card_given,
    EventKind.KEEP_PLACED: _pieces_placed,
    EventKind.PIECES_PLACED: _pieces_placed,
    EventKind.PIECES_MOVED: _pieces_moved,
    EventKind.PIECES_REMOVED: _pieces_removed,
    EventKind.WOOD_SPENT: _wood_spent,
    EventKind.ONCE_USED: _once_used,
    EventKind.DECISION_REQUESTED: _decision_requested,
    EventKind.DECISION_CLOSED: _decision_closed,
    EventKind.BATTLE_STAGE: _battle_stage,
    EventKind.BRIDGE_CROSSED: _noop,
    EventKind.STEP_SET: _step_set,
    EventKind.ACTIONS_CHANGED: _actions_changed,
    EventKind.TURN_STARTED: _turn_started,
    EventKind.ROUND_STARTED: _round_started,
    EventKind.BATTLE_STARTED: _battle_started,
    EventKind.AMBUSH_PLAYED: _ambush_played,
    EventKind.AMBUSH_FOILED: _ambush_foiled,
    EventKind.DICE_ROLLED: _dice_rolled,
    EventKind.HITS_SET: _hits_set,
    EventKind.EFFECT_USED: _effect_used,
    EventKind.BATTLE_ENDED: _battle_ended,
    EventKind.DECISION_DECLINED: _noop,
    EventKind.CARD_CRAFTED: _card_crafted,
    EventKind.SCORED: _scored,
    EventKind.HAND_REVEALED: _hand_revealed,
    EventKind.GAME_ENDED: _game_ended,
    EventKind.ROUND_LIMIT_REACHED: _round_limit_reached,
    EventKind.CONTRABAND_MOVED: _contraband_moved,
    EventKind.CONTRABAND_DROPPED: _contraband_dropped,
    EventKind.CONTRABAND_COLLECTED: _contraband_collected,
    EventKind.CONTRABAND_SEIZED: _contraband_seized,
    EventKind.CONTRABAND_VALIDATED: _contraband_validated,
}


# The factions' own event kinds (the Eyrie's Decree, the Vagabond's items...).  Filled once,
# at import, by :func:`frontier.engine.registry.register`: this module cannot import the
# factions, since every rule (the factions' too) emits through ``evolve``.
_FACTION_HANDLERS: dict[EventKind, EvolveHandler] = {}


def add_faction_handlers(handlers: Mapping[EventKind, EvolveHandler]) -> None:
    """Register a faction's event kinds (each kind has one handler, core or faction)."""
    for kind, handler in handlers.items():
        if kind in _HANDLERS or kind in _FACTION_HANDLERS:
            raise ValueError(f"event kind {kind.value} has a handler already")
        _FACTION_HANDLERS[kind] = handler


def evolve(state: State, event: Event) -> State:
    """Apply one event to ``state`` in place and return it (the caller owns the state)."""
    handler = _HANDLERS.get(event.kind) or _FACTION_HANDLERS.get(event.kind)
    if handler is None:
        raise CorruptEvent(f"no evolve handler for {event.kind.value}")
    handler(state, event)
    state.version += 1
    return state


def fold(state: State, events: list[Event]) -> State:
    for event in events:
        evolve(state, event)
    return state
