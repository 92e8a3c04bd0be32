"""Crafting (base Root §6) on one map at a time (R16), against each map's own stock (R10).

Each crafting piece (a Marquise workshop, an Eyrie roost, an Alliance sympathy token) can be
activated once per turn and provides its clearing's suit.  One craft uses pieces on one map
only (R16), and the item comes from the stock of that map.  With pieces on the rival map the
item is contraband (R16): it scores nothing now; ``Command.to`` names the clearing of a used
piece where the crafter's warriors carry it, or, with no warrior of the crafter in any used
clearing, where it is dropped.  The Alliance always drops it (Revolutionary Agent, R21).  What
happens to contraband afterwards lives in :mod:`frontier.engine.contraband`.
"""

from __future__ import annotations

from .board import HOME_MAP, board
from .cards import CardKind, card
from .contraband import carrier_of, contraband_clearings
from .ctx import Ctx
from .model import Command, CommandKind, EventKind, Seat, other_team
from .registry import rules_for
from .state import State


def crafting_maps(state: State, seat: Seat) -> tuple[str, ...]:
    """The maps whose pieces ``seat`` may craft with: either, one map per craft (R16)."""
    return (HOME_MAP[seat.team], HOME_MAP[other_team(seat.team)])


def capacity(state: State, seat: Seat, map_name: str | None = None) -> dict[str, int]:
    """Unused crafting pieces per clearing this turn, on ``map_name`` (default: home)."""
    piece = rules_for(state.lineup[seat].faction).crafting_piece
    home = map_name or HOME_MAP[seat.team]
    pieces, used = state.pieces, state.used
    out: dict[str, int] = {}
    for clearing in board().on_map(home):
        kinds = pieces[clearing].get(seat)
        n = kinds.get(piece, 0) if kinds else 0
        n -= used.get(f"craft:{clearing}", 0)
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
                for where in contraband_clearings(state, seat, clearings):  # R16, R21
                    out.append(
                        Command(
                            CommandKind.CRAFT, seat, to=where, cards=(cid,), clearings=clearings
                        )
                    )
    return out


def item_vp(state: State, seat: Seat, card_id: str) -> int:
    """The printed VP, unless the crafter's faction changes it (the Eyrie's Disdain for
    Trade: 1 VP unless led by the Builder)."""
    vp = card(card_id).vp
    hook = rules_for(state.lineup[seat].faction).item_vp
    return hook(state, seat, vp) if hook is not None else vp


def do_craft(ctx: Ctx, cmd: Command) -> None:
    cid = cmd.cards[0]
    c = card(cid)
    carrier = carrier_of(ctx.state, cmd.seat, cmd.to) if cmd.to else None
    ctx.emit(
        EventKind.CARD_CRAFTED,
        seat=cmd.seat.value,
        cards=(cid,),
        clearings=cmd.clearings,
        piece=c.item.value if c.item else "",
        to=cmd.to,
        target=carrier.value if carrier else "",
    )
    if c.item is not None and not cmd.to:  # contraband scores nothing yet (R16, R17)
        ctx.score(cmd.seat, item_vp(ctx.state, cmd.seat, cid), f"crafted {c.item.value}")
