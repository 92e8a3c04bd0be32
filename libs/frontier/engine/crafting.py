"""Crafting (base Root §6) on one map at a time (R16), against each map's own stock (R10).

Each crafting piece (a Marquise workshop, ...) can be activated once per turn and provides
its clearing's suit.  Items come from the stock of the map the pieces stand on.  Crafting
with pieces on the rival map (contraband, R16-R17) is not offered by this engine yet: every
craft here uses pieces on the crafter's home map.
"""

from __future__ import annotations

from .board import HOME_MAP, board
from .cards import CardKind, card
from .ctx import Ctx
from .model import Command, CommandKind, EventKind, Seat
from .state import State


def capacity(state: State, seat: Seat) -> dict[str, int]:
    """Unused crafting pieces per clearing this turn."""
    from .factions import rules_for

    piece = rules_for(state.lineup[seat].faction).crafting_piece
    home = HOME_MAP[seat.team]
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


def craftable(state: State, seat: Seat, card_id: str) -> bool:
    c = card(card_id)
    st = state.seats[seat]
    if c.kind is CardKind.AMBUSH:
        return False
    if c.kind is CardKind.PERSISTENT:
        return all(card(p).type != c.type for p in st.play_area)
    assert c.item is not None
    return state.stock[HOME_MAP[seat.team]].get(c.item, 0) > 0


def craft_commands(state: State, seat: Seat) -> list[Command]:
    cap = capacity(state, seat)
    if not cap:
        return []
    out: list[Command] = []
    seen: set[str] = set()
    for cid in sorted(state.seats[seat].hand):
        c = card(cid)
        if c.type in seen or not craftable(state, seat, cid):
            continue
        seen.add(c.type)
        for clearings in _assignments(state, c.cost, cap):
            out.append(Command(CommandKind.CRAFT, seat, cards=(cid,), clearings=clearings))
    return out


def item_vp(state: State, seat: Seat, card_id: str) -> int:
    return card(card_id).vp


def do_craft(ctx: Ctx, cmd: Command) -> None:
    cid = cmd.cards[0]
    c = card(cid)
    ctx.emit(
        EventKind.CARD_CRAFTED,
        seat=cmd.seat.value,
        cards=(cid,),
        clearings=cmd.clearings,
        piece=c.item.value if c.item else "",
    )
    if c.item is not None:
        ctx.score(cmd.seat, item_vp(ctx.state, cmd.seat, cid), f"crafted {c.item.value}")
