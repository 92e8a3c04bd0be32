"""Contraband (R16-R21): items crafted on the rival map, carried, dropped, collected, seized
and validated when carried home.

* **Crafting (R16).**  A craft uses pieces on one map.  On the rival map the item comes from
  that map's stock and becomes contraband, scoring nothing yet.  The crafter names one used
  clearing (``Command.to``): when the crafter has warriors in some used clearing it must name
  one of those, and its warriors there carry the item; with none it names any used clearing
  and the item is dropped there.  The Alliance always drops it (Revolutionary Agent, R21).
  A Vagabond has no warriors: its hammers crafting on the rival map put the item straight into
  its Satchel as its team's contraband (R16, added), carried home like a torch pick-up (R20).
* **Carrying (R17).**  Warriors are counted, not individual, so contraband is carried by a
  *seat* in a clearing (``State.carried``: clearing -> seat -> items).  Every warrior move
  (march, Decree move, Alliance move, Cobbler, Vanguard Leader's ally) of ``k`` of that seat's
  ``n`` warriors from the clearing either takes all of that seat's contraband there along or
  none (``Command.clearings = (origin,)`` when it goes along); when ``k == n`` it must go.
  When warriors of the item's team carry it across a Border Bridge onto that team's home map
  it is validated: its team scores the item's VP (printed VP; an Eyrie crafter's Disdain for
  Trade applies as at crafting, with its leader at that moment) credited to the crafter seat,
  and the item goes to the crafter's Crafted Items box.  A rival carrier never validates it.
* **Dropping and collecting (R18).**  When the last warrior of a carrier seat in a clearing is
  removed (battle, Revolt, Organize, Tax Collector, strike...), its contraband drops there.  A
  dropped item may be collected by any faction with a warrior in the clearing, ruling or not,
  for 1 move: the Marquise as one move of a march (the first move starts a march action, the
  second ends it), the Eyrie by resolving a Move Decree card whose suit matches the clearing
  (birds wild; the clearing's own suit is spent first, which never leaves fewer options); never
  the Alliance, whose allies carry its items (R21, revised).  Cobbler's move may collect it
  too (R33).  A collected item keeps its crafter: the Alliance's items carried home by its
  Marquise or Eyrie teammate count as crafted by the Alliance (R21) and score for the team.  A
  rival may collect it too, to keep it from its team: it carries it like its own (it drops again
  when that carrier is removed) but never validates it.  Contraband is only validated by
  crossing a bridge onto its team's home map: an item that lies on its own team's home map (a
  rival carried it there) must be taken back across a bridge and home again.
* **Seizure (R19).**  A warrior of the team whose home map holds a dropped item of the *other*
  team may spend 1 battle action against it (a Marquise battle action, an Eyrie Battle Decree
  card matching the clearing, an Alliance battle operation): the item goes to the crate, out
  of the game, and the seizer's team scores 1 VP.  Command Warren's battle may seize it too
  (R33).  A Vagabond has no warriors and never seizes.
* **The Vagabond (R20).**  The torch pick-up lives in ``factions/vagabond.py``; its own team's
  item is marked contraband in the Satchel and is validated when the pawn crosses a bridge
  onto the home map (move or slip): the team scores as above, the item stays in the Satchel.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from .board import HOME_MAP, board
from .cards import catalog
from .ctx import Ctx
from .model import EMPTY, Command, CommandKind, EventKind, Faction, Item, Seat, Suit
from .pieces import warriors
from .registry import rules_for
from .state import DroppedItem, State
from .vagabond_state import is_clearing, vstate

SEIZE_VP = 1  # R19


# ----- queries -------------------------------------------------------------------------------


def carried_by(state: State, clearing: str, seat: Seat) -> list[DroppedItem]:
    """The contraband ``seat``'s warriors carry in ``clearing`` (empty when none)."""
    per_seat = state.carried.get(clearing)
    if not per_seat:
        return []
    return per_seat.get(seat, [])


def carry_options(state: State, seat: Seat, origin: str, k: int) -> tuple[tuple[str, ...], ...]:
    """The ``Command.clearings`` values a move of ``k`` warriors from ``origin`` may take:
    ``()`` (the contraband stays) and/or ``(origin,)`` (it goes along).  Without contraband
    there is nothing to choose; when every warrior of the seat leaves, it must go along."""
    if not carried_by(state, origin, seat):
        return ((),)
    if k >= warriors(state, origin, seat):
        return ((origin,),)
    return ((), (origin,))


Load = tuple[int, tuple[str, ...]]  # (warriors moved, ``Command.clearings``)

# The loads of a move without contraband, by warriors present: shared constants, since
# every move enumeration needs them for every origin.  More warriors than any faction owns
# fall back to building the tuple.
_PLAIN_LOADS: tuple[tuple[Load, ...], ...] = tuple(
    tuple((k, EMPTY) for k in range(1, n + 1)) for n in range(41)
)


def plain_loads(n: int) -> Sequence[Load]:
    """The loads of a move of up to ``n`` warriors carrying no contraband."""
    if n < len(_PLAIN_LOADS):
        return _PLAIN_LOADS[n]
    return [(k, EMPTY) for k in range(1, n + 1)]


def carry_loads(state: State, seat: Seat, origin: str, n: int) -> Sequence[Load]:
    """Every (warriors moved, ``Command.clearings``) of a move from ``origin`` where ``seat``
    has ``n`` warriors, by count then :func:`carry_options` order."""
    if not carried_by(state, origin, seat):
        return plain_loads(n)
    return [(k, carry) for k in range(1, n + 1) for carry in carry_options(state, seat, origin, k)]


@cache
def printed_item_vp() -> dict[Item, int]:
    """The VP printed on the cards that craft each item (the same for every card of an item)."""
    out: dict[Item, int] = {}
    for c in catalog().values():
        if c.item is not None:
            out[c.item] = max(out.get(c.item, 0), c.vp)
    return out


def item_points(state: State, crafter: Seat, item: Item) -> int:
    """What a validated item scores: its printed VP, unless the crafter's faction changes it
    (the Eyrie's Disdain for Trade)."""
    vp = printed_item_vp()[item]
    hook = rules_for(state.lineup[crafter].faction).item_vp
    return hook(state, crafter, vp) if hook is not None else vp


def _position(clearing: str) -> int:
    return board().position[clearing]


def _lying(state: State, suit: Suit | None) -> list[str]:
    """Clearings with dropped items, in board order, matching ``suit`` (birds wild) if given."""
    out = [c for c, items in state.dropped.items() if items]
    if not out:  # the usual case: every move and battle enumeration asks
        return out
    if suit is not None and suit is not Suit.BIRD:
        out = [c for c in out if state.suits[c] == suit]  # a StrEnum equals its value
    return sorted(out, key=_position)


def collect_commands(state: State, seat: Seat, suit: Suit | None = None) -> list[Command]:
    """R18: a dropped item where ``seat`` has a warrior (one command per distinct item)."""
    out: list[Command] = []
    for clearing in _lying(state, suit):
        if not warriors(state, clearing, seat):
            continue
        found = sorted({(d.item.value, d.crafter.value) for d in state.dropped[clearing]})
        out.extend(
            Command(CommandKind.COLLECT, seat, clearing=clearing, piece=item, target=crafter)
            for item, crafter in found
        )
    return out


def seize_commands(state: State, seat: Seat, suit: Suit | None = None) -> list[Command]:
    """R19: a rival team's item dropped on ``seat``'s home map where it has a warrior."""
    home = HOME_MAP[seat.team]
    out: list[Command] = []
    for clearing in _lying(state, suit):
        if board().map_of(clearing) != home or not warriors(state, clearing, seat):
            continue
        found = sorted(
            {
                (d.item.value, d.crafter.value)
                for d in state.dropped[clearing]
                if d.team is not seat.team
            }
        )
        out.extend(
            Command(CommandKind.SEIZE, seat, clearing=clearing, piece=item, target=crafter)
            for item, crafter in found
        )
    return out


# ----- changes -------------------------------------------------------------------------------


def do_collect(ctx: Ctx, cmd: Command) -> None:
    ctx.emit(
        EventKind.CONTRABAND_COLLECTED,
        seat=cmd.seat.value,
        clearing=cmd.clearing,
        piece=cmd.piece,
        target=cmd.target,
    )


def do_seize(ctx: Ctx, cmd: Command) -> None:
    ctx.emit(
        EventKind.CONTRABAND_SEIZED,
        seat=cmd.seat.value,
        clearing=cmd.clearing,
        piece=cmd.piece,
        target=cmd.target,
    )
    ctx.score(cmd.seat, SEIZE_VP, "seized contraband")


def _crosses_home(seat: Seat, origin: str, dest: str) -> bool:
    b = board()
    return b.is_bridge(origin, dest) and b.map_of(dest) == HOME_MAP[seat.team]


def move_with(ctx: Ctx, seat: Seat, origin: str, dest: str, *, carry: bool) -> None:
    """After ``seat``'s warriors moved from ``origin`` to ``dest``: its contraband there goes
    along when ``carry`` (or when no warrior of the seat is left), and is validated when the
    move crossed a bridge onto the seat's home map (R17)."""
    state = ctx.state
    items = list(carried_by(state, origin, seat))
    if not items or not (carry or warriors(state, origin, seat) == 0):
        return
    ctx.emit(
        EventKind.CONTRABAND_MOVED, seat=seat.value, clearing=origin, to=dest, count=len(items)
    )
    if not _crosses_home(seat, origin, dest):
        return
    for it in items:
        if it.team is seat.team:  # a rival's item carried onto our map stays contraband
            _validate(ctx, seat, origin, dest, it.item, it.crafter)


def _validate(ctx: Ctx, carrier: Seat, origin: str, dest: str, item: Item, crafter: Seat) -> None:
    ctx.emit(
        EventKind.CONTRABAND_VALIDATED,
        seat=carrier.value,
        clearing=origin,
        to=dest,
        piece=item.value,
        target=crafter.value,
    )
    ctx.score(crafter, item_points(ctx.state, crafter, item), f"contraband {item.value}")


def vagabond_crossed(ctx: Ctx, seat: Seat, origin: str, dest: str) -> None:
    """R20: the pawn crossed from ``origin`` to ``dest``; over a bridge onto its home map, its
    team's contraband in the Satchel is validated (the items stay in the Satchel)."""
    if not is_clearing(origin) or not _crosses_home(seat, origin, dest):
        return
    for it in [i for i in vstate(ctx.state, seat).items if i.contraband]:
        _validate(ctx, seat, origin, dest, it.item, Seat(it.crafter))


def after_removal(ctx: Ctx, owner: Seat, clearing: str) -> None:
    """R18: ``owner``'s warriors were removed from ``clearing``; with none left, the
    contraband they carried drops there."""
    state = ctx.state
    items = carried_by(state, clearing, owner)
    if items and warriors(state, clearing, owner) == 0:
        ctx.emit(
            EventKind.CONTRABAND_DROPPED, seat=owner.value, clearing=clearing, count=len(items)
        )


def contraband_clearings(state: State, seat: Seat, clearings: tuple[str, ...]) -> list[str]:
    """R16: where a craft with pieces in ``clearings`` on the rival map may put its item: the
    used clearings holding a warrior of the crafter (it carries the item) or, with none, any
    used clearing (it is dropped there).  The Alliance always drops it (R21)."""
    used = sorted(set(clearings))
    if state.lineup[seat].faction is Faction.ALLIANCE:
        return used
    return [c for c in used if warriors(state, c, seat)] or used


def carrier_of(state: State, seat: Seat, clearing: str) -> Seat | None:
    """The seat whose warriors carry a craft's contraband in ``clearing`` (None: dropped)."""
    if state.lineup[seat].faction is Faction.ALLIANCE or not warriors(state, clearing, seat):
        return None
    return seat
