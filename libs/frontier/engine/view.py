"""What one viewer may see: ``view(state, seat)`` and ``view(state, None)`` (spectator).

Computed on the server from the full state, so secrets never leave it: other seats' hands
(only their sizes are public), the deck order, unexplored ruin items and the generator
state.  What a seat learnt through a card (Codebreakers, R33) stays in *its* view only.
With ``team_hands_visible`` (R4) teammates see each other's hands and nothing more.
"""

from __future__ import annotations

from typing import Any

from .board import board
from .decide import to_act
from .model import Event, EventKind, Seat
from .pieces import open_slots, rulers
from .registry import rules_for
from .state import Battle, Decision, DroppedItem, State
from .vagabond_state import pawns_in

SPECTATOR = "spectator"


def can_see_hand(state: State, viewer: Seat | None, owner: Seat) -> bool:
    if viewer is None:
        return False
    if viewer is owner:
        return True
    return state.options.team_hands_visible and viewer.team is owner.team


def _faction_state(state: State, seat: Seat) -> dict[str, Any]:
    """The public part of a seat's faction board (its own data plus counts kept elsewhere)."""
    extra = state.seats[seat].extra
    out = extra.public_view() if extra is not None else {}
    counts = rules_for(state.lineup[seat].faction).public_counts
    if counts is not None:
        out = {**out, **counts(state, seat)}
    return out


def view(state: State, viewer: Seat | None) -> dict[str, Any]:
    """A JSON-ready picture of the match as ``viewer`` may see it."""
    return {
        "viewer": viewer.value if viewer else SPECTATOR,
        "round": state.round,
        "step": state.step,
        "phase": state.phase,
        "turn_seat": state.turn_seat.value if state.turn_seat else "",
        "to_act": actor.value if (actor := to_act(state)) else "",
        "decision": _first_decision(state.decisions[0]) if state.decisions else None,
        "actions": state.actions,
        # Public facts the rules read, so that a seat's view plus a guess at the hidden
        # parts rebuilds a state the engine can play on (the search bot's determinization):
        # the open decisions in order: the first (public, as "decision" above) and the
        # viewer's own; another seat's queued decision stays hidden until it comes first,
        # as its existence may say something of that seat's hand
        "decisions": [
            _decision(d)
            for i, d in enumerate(state.decisions)
            if i == 0 or (viewer is not None and d.seat is viewer)
        ],
        "march_left": state.march_left,
        "used": dict(sorted(state.used.items())),  # per-turn counters (public events)
        "options": {
            "team_hands_visible": state.options.team_hands_visible,
            "max_rounds": state.options.max_rounds,
            "winning_score": state.options.winning_score,
        },
        "battle": _battle(state.battle) if state.battle else None,
        "scores": {t.value: n for t, n in state.scores.items()},
        "winner": state.winner,
        "end_reason": state.end_reason,
        "version": state.version,
        "seats": [_seat(state, seat) for seat in state.order],
        "hands": {
            seat.value: sorted(state.seats[seat].hand)
            for seat in state.order
            if can_see_hand(state, viewer, seat)
        },
        "private": _private(state, viewer),
        "known_hands": _known_hands(state, viewer),
        "clearings": _clearings(state),
        "deck_count": len(state.deck),
        "quests": list(state.quests),  # face up, shared by the Vagabonds; the deck is hidden
        "quest_deck_count": len(state.quest_deck),
        "discard": list(state.discard),
        "stock": {m: {i.value: n for i, n in items.items()} for m, items in state.stock.items()},
        "dropped": {  # items lying in clearings are public (R18-R21)
            c: [_contraband(d) for d in items]
            for c, items in sorted(state.dropped.items())
            if items
        },
        "carried": {  # contraband carried by warriors is public too (R16-R18)
            c: {s.value: [_contraband(d) for d in items] for s, items in per_seat.items() if items}
            for c, per_seat in sorted(state.carried.items())
            if any(per_seat.values())
        },
        "crate": sorted(i.value for i in state.crate),  # seized items, out of the game (R19)
        # the items still lying in ruins, all ruins together: every item taken out of a ruin
        # is shown, so this is public; which ruin holds which stays hidden (counts above)
        "ruin_pool": sorted(i.value for items in state.ruins.values() for i in items),
    }


def _seat(state: State, seat: Seat) -> dict[str, Any]:
    """A seat's public board: everything but its hand's cards."""
    st = state.seats[seat]
    return {
        "seat": seat.value,
        "faction": st.faction.value,
        "character": st.character.value if st.character else "",
        "hand_count": len(st.hand),
        "play_area": list(st.play_area),
        "crafted_items": [i.value for i in st.crafted_items],
        "vp": st.vp,
        "supply": dict(sorted(st.supply.items())),
        "faction_state": _faction_state(state, seat),
    }


def _private(state: State, viewer: Seat | None) -> dict[str, Any]:
    """A faction's secret data (the Alliance's supporters) is its own seat's only: R4's
    team_hands_visible shows teammates' hands and nothing more."""
    own = state.seats[viewer].extra if viewer is not None else None
    return {viewer.value: own.private_view()} if viewer is not None and own else {}


def _known_hands(state: State, viewer: Seat | None) -> dict[str, list[str]]:
    """What the viewer learnt of other hands through a card (Codebreakers, R33)."""
    if viewer is None:
        return {}
    return {s.value: list(cards) for s, cards in state.known_hands.get(viewer, {}).items()}


def _clearings(state: State) -> list[dict[str, Any]]:
    b = board()
    rulers_now = rulers(state)
    return [
        {
            "id": cid,
            "suit": state.suits[cid],
            "ruin_items": len(state.ruins.get(cid, ())),
            "ruin_explored": b.clearings[cid].ruin and not state.ruins.get(cid),
            "ruler": ruled.value if (ruled := rulers_now[cid]) else "",
            "open_slots": open_slots(state, cid),
            "pawns": [s.value for s in pawns_in(state, cid)],  # Vagabonds (not pieces)
            "pieces": {
                s.value: {k: n for k, n in sorted(kinds.items()) if n}
                for s, kinds in per_seat.items()
                if any(kinds.values())
            },
        }
        for cid, per_seat in state.pieces.items()
    ]


def _first_decision(d: Decision) -> dict[str, Any]:
    return {
        "seat": d.seat.value,
        "kind": d.kind,
        "clearing": d.clearing,
        "target": d.target,
        "count": d.count,
    }


def _battle(battle: Battle) -> dict[str, Any]:
    return {
        "attacker": battle.attacker.value,
        "defender": battle.defender.value,
        "clearing": battle.clearing,
        "stage": battle.stage,
        "dice": list(battle.dice),
        "ambush": battle.ambush,
        "looting": battle.looting,
        # the rest of the battle's public record, so a bot can rebuild the state
        "hits_to_defender": battle.hits_to_defender,
        "hits_to_attacker": battle.hits_to_attacker,
        "extra_to_defender": battle.extra_to_defender,
        "extra_to_attacker": battle.extra_to_attacker,
        "ignore_rolled_by_attacker": battle.ignore_rolled_by_attacker,
        "ignore_rolled_by_defender": battle.ignore_rolled_by_defender,
        "effects_used": list(battle.effects_used),
        "removed_warriors": [[s, n] for s, n in battle.removed_warriors],
    }


def _decision(d: Decision) -> dict[str, Any]:
    return {
        "seat": d.seat.value,
        "kind": d.kind,
        "clearing": d.clearing,
        "target": d.target,
        "count": d.count,
        "piece": d.piece,
        "cards": list(d.cards),
    }


def _contraband(d: DroppedItem) -> dict[str, str]:
    return {"item": d.item.value, "team": d.team.value, "crafter": d.crafter.value}


# Cards that only the seat and the target (a giver, a receiver) may see, and the teammates
# who see their hands (R4).
_PRIVATE_CARD_EVENTS = frozenset({EventKind.CARDS_DRAWN, EventKind.CARD_GIVEN})


def event_for(state: State, event: Event, viewer: Seat | None) -> Event:
    """The event as ``viewer`` may see it: secret card names are replaced by 'hidden'."""
    if event.kind in _PRIVATE_CARD_EVENTS:
        involved = [Seat(event.seat)] + ([Seat(event.target)] if event.target else [])
        if any(can_see_hand(state, viewer, s) for s in involved):
            return event
        return event.redacted()
    if event.kind is EventKind.SUPPORTERS_ADDED:
        # Supporters are face down: a card put on them is known to the Alliance and to the
        # seat that gave it, never to their teammates (R4: hands and nothing more).
        if viewer is not None and viewer.value in (event.seat, event.target):
            return event
        return event.redacted()
    if event.kind is EventKind.HAND_REVEALED:
        if viewer is not None and viewer.value in (event.seat, event.target):
            return event
        return event.redacted()
    return event
