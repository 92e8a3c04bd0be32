"""Crafting (base Root §6) on one map at a time (R16), against each map's own stock (R10).

Each crafting piece (a Marquise workshop, ...) can be activated once per turn and provides
its clearing's suit.  Items come from the stock of the map the pieces stand on.  One craft
uses pieces on one map only (R16).  The Woodland Alliance may craft with sympathy on the
rival map (Revolutionary Agent, R21): the item comes from the rival map's stock, scores
nothing now and is dropped in the clearing of one of the tokens used (the crafter's choice,
``Command.to``).  The other factions' contraband (R16-R17 carriers) is not offered yet:
they craft with pieces on their home map.
"""

from __future__ import annotations

from .board import HOME_MAP, board
from .cards import CardKind, card
from .ctx import Ctx
from .model import Command, CommandKind, EventKind, Faction, Seat, other_team
from .state import State

# Factions that may craft with pieces on the rival map, dropping the item there (R21).
RIVAL_MAP_CRAFTERS: frozenset[Faction] = frozenset({Faction.ALLIANCE})


def crafting_maps(state: State, seat: Seat) -> tuple[str, ...]:
    """The maps whose pieces ``seat`` may craft with (one map per craft, R16)."""
    home = HOME_MAP[seat.team]
    if state.lineup[seat].faction in RIVAL_MAP_CRAFTERS:
        return (home, HOME_MAP[other_team(seat.team)])
    return (home,)


def capacity(state: State, seat: Seat, map_name: str | None = None) -> dict[str, int]:
    """Unused crafting pieces per clearing this turn, on ``map_name`` (default: home)."""
    from .factions import rules_for

    piece = rules_for(state.lineup[seat].faction).crafting_piece
    home = map_name or HOME_MAP[seat.team]
    out: dict[str, int] = {}
    for clearing in board().on_map(home):
        n = state.pieces[clearing].get(seat, {}).get(piece, 0)
        n -= state.used.get(f"craft:{clearing}", 0)
        if n > 0:
            out[clearing] = n
    return out


def _assignments(state: State, cost: tuple[str, ...], cap: dict[str, int]) -> list[tuple[str, ...]]:
    """Distinct multisets of clearings that pay ``cost`` (one piece per entry)."""
    clearings = sorted(cap)
    results: set[tuple[str, ...]] = set()
    # Specific suits first so "any" entries take what is left.
    entries = sorted(cost, key=lambda s: s == "any")

    def walk(i: int, left: dict[str, int], chosen: list[str]) -> None:
        if i == len(entries):
            results.add(tuple(sorted(chosen)))
            return
        need = entries[i]
        for c in clearings:
            if left[c] == 0 or (need != "any" and state.suits[c] != need):
                continue
            left[c] -= 1
            chosen.append(c)
            walk(i + 1, left, chosen)
            chosen.pop()
            left[c] += 1

    walk(0, dict(cap), [])
    return sorted(results)


def craftable(state: State, seat: Seat, card_id: str, map_name: str | None = None) -> bool:
    """Can ``card_id`` be crafted with pieces on ``map_name`` (default: home)?"""
    c = card(card_id)
    st = state.seats[seat]
    if c.kind is CardKind.AMBUSH:
        return False
    if c.kind is CardKind.PERSISTENT:
        return all(card(p).type != c.type for p in st.play_area)
    assert c.item is not None
    return state.stock[map_name or HOME_MAP[seat.team]].get(c.item, 0) > 0


def craft_commands(state: State, seat: Seat) -> list[Command]:
    out: list[Command] = []
    home = HOME_MAP[seat.team]
    for map_name in crafting_maps(state, seat):
        cap = capacity(state, seat, map_name)
        if not cap:
            continue
        seen: set[str] = set()
        for cid in sorted(state.seats[seat].hand):
            c = card(cid)
            if c.type in seen or not craftable(state, seat, cid, map_name):
                continue
            seen.add(c.type)
            for clearings in _assignments(state, c.cost, cap):
                if map_name == home or c.item is None:
                    out.append(Command(CommandKind.CRAFT, seat, cards=(cid,), clearings=clearings))
                    continue
                for drop in sorted(set(clearings)):  # R21: dropped where a token was used
                    out.append(
                        Command(CommandKind.CRAFT, seat, to=drop, cards=(cid,), clearings=clearings)
                    )
    return out


def item_vp(state: State, seat: Seat, card_id: str) -> int:
    """The printed VP; the Eyrie score 1 unless led by the Builder (Disdain for Trade)."""
    vp = card(card_id).vp
    if state.lineup[seat].faction is Faction.EYRIE:
        from .factions.eyrie import crafted_item_vp  # the factions import this module

        return crafted_item_vp(state, seat, vp)
    return vp


def do_craft(ctx: Ctx, cmd: Command) -> None:
    cid = cmd.cards[0]
    c = card(cid)
    ctx.emit(
        EventKind.CARD_CRAFTED,
        seat=cmd.seat.value,
        cards=(cid,),
        clearings=cmd.clearings,
        piece=c.item.value if c.item else "",
        to=cmd.to,
    )
    if c.item is not None and not cmd.to:  # a dropped item scores nothing yet (R16, R21)
        ctx.score(cmd.seat, item_vp(ctx.state, cmd.seat, cid), f"crafted {c.item.value}")
