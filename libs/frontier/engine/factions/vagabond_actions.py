"""The Vagabond's Daylight actions other than moving (base Root §12.2, R16, R20, R27-R29,
R34): battle (with Looting), explore, aid, quest, strike, repair, craft, the character's
special action (steal, day labor, hideout) and the torch pick-up of a dropped item; and the
table of every action command, moves included, that ``execute`` dispatches on.
"""

from __future__ import annotations

from collections import Counter

from .. import rng
from ..battle import start as start_battle
from ..board import HOME_MAP, board
from ..cards import card, one_per_type, payable
from ..crafting import craftable, do_craft
from ..ctx import Ctx
from ..field_hospitals import offer_field_hospitals
from ..model import Character, Command, CommandKind, EventKind, Item, Seat, Suit
from ..movement import (
    suit_of,
)
from ..pieces import (
    BUILDINGS,
    TOKENS,
    WARRIOR,
    enemies_with_pieces,
    has_any_piece,
)
from ..removal import remove
from ..state import State
from ..turn import goto
from ..vagabond_state import (
    ALLIED,
    AMIABLE,
    CRAFTED_CONTRABAND,
    FRIENDLY,
    HOSTILE,
    MASTER_CRAFTSMAN,
    TRACK_LEVELS,
    is_clearing,
    keys,
    legendary_due,
    pawns_in,
    quest,
    ready,
    relationship,
    vstate,
)
from .vagabond_moves import exhaust, move, move_commands, slip

# Aids needed in one turn to reach each level of the rival track, and the VP on reaching it;
# once Allied every aid scores 2 (base Root §12.4, R34).
AIDS_TO_REACH: dict[str, int] = {AMIABLE: 1, FRIENDLY: 2, ALLIED: 3}
VP_ON_REACH: dict[str, int] = {AMIABLE: 1, FRIENDLY: 2, ALLIED: 2}
ALLIED_AID_VP = 2
QUEST_DRAW = 2
HIDEOUT_REPAIRS = 3

LOOTING = "looting"  # per-turn counter: Looting declared this turn (R28, once per turn)
AID_TAKE = "aid_take"
LEGENDARY = "legendary"
HIDEOUT = "hideout"
QUEST_VP = "vp"
QUEST_CARDS = "draw"


def present(state: State, clearing: str, seat: Seat, pawns_here: list[Seat] | None = None) -> bool:
    """``seat`` has a piece in ``clearing`` (a warrior, building, token or its pawn);
    ``pawns_here`` is :func:`pawns_in` of the clearing when asking about several seats."""
    if has_any_piece(state, clearing, seat):
        return True
    return seat in (pawns_here if pawns_here is not None else pawns_in(state, clearing))


# ----- Daylight: the other actions --------------------------------------------------------


def battle_commands(state: State, seat: Seat) -> list[Command]:
    """Any rival seat with a piece in the clearing (never an ally, R14/R27); Looting (R28)
    once per turn against a defender with crafted items."""
    vs = vstate(state, seat)
    here = vs.location
    if not ready(vs, Item.SWORD) or not is_clearing(here):
        return []
    out: list[Command] = []
    for enemy in enemies_with_pieces(state, here, seat):
        out.append(Command(CommandKind.BATTLE, seat, clearing=here, target=enemy.value))
        if not state.used.get(LOOTING) and state.seats[enemy].crafted_items:
            out.append(
                Command(CommandKind.BATTLE, seat, clearing=here, target=enemy.value, piece=LOOTING)
            )
    return out


def battle(ctx: Ctx, cmd: Command) -> None:
    looting = cmd.piece == LOOTING
    exhaust(ctx, cmd.seat, Item.SWORD)
    if looting:
        ctx.use(cmd.seat, LOOTING)
    start_battle(ctx, cmd.seat, cmd.clearing, Seat(cmd.target), looting=looting)


def explore_commands(state: State, seat: Seat) -> list[Command]:
    vs = vstate(state, seat)
    if ready(vs, Item.TORCH) and state.ruins.get(vs.location):
        return [Command(CommandKind.EXPLORE, seat, clearing=vs.location)]
    return []


def explore(ctx: Ctx, cmd: Command) -> None:
    seat = cmd.seat
    exhaust(ctx, seat, Item.TORCH)
    item = ctx.state.ruins[cmd.clearing][-1]
    ctx.emit(
        EventKind.ITEM_GAINED, seat=seat.value, piece=item.value, clearing=cmd.clearing, text="ruin"
    )
    ctx.score(seat, 1, "explored a ruin")
    check_legendary(ctx, seat)


def aid_commands(state: State, seat: Seat) -> list[Command]:
    vs = vstate(state, seat)
    here = vs.location
    if not is_clearing(here):
        return []
    items = sorted({it.item.value for it in vs.items if it.ready})
    cards = payable(state.seats[seat].hand, suit_of(state, here))
    if not items or not cards:
        return []
    pawns_here = pawns_in(state, here)
    aid = CommandKind.AID
    out: list[Command] = []
    for other in state.order:
        if other is seat or not present(state, here, other, pawns_here):
            continue
        target = other.value
        for cid in cards:
            pay = (cid,)
            for item in items:
                out.append(Command(aid, seat, target=target, cards=pay, piece=item))
    return out


def aid(ctx: Ctx, cmd: Command) -> None:
    """R27: an ally gets the card, scores nothing.  R34: a rival moves along the base track."""
    state = ctx.state
    seat, other = cmd.seat, Seat(cmd.target)
    exhaust(ctx, seat, Item(cmd.piece))
    ctx.give(seat, other, cmd.cards, "aid")
    if other.team is not seat.team:
        _aided_rival(ctx, seat, other)
    if state.seats[other].crafted_items:
        ctx.ask(seat, AID_TAKE, target=other.value)


def _aided_rival(ctx: Ctx, seat: Seat, other: Seat) -> None:
    """The relationship track: aids in one turn climb it; Allied scores 2 per aid; a Hostile
    rival may be aided but never climbs."""
    state = ctx.state
    level = relationship(state, seat, other)
    if level == HOSTILE:
        return
    if level == ALLIED:
        ctx.score(seat, ALLIED_AID_VP, "aid (allied)")
        return
    nxt = TRACK_LEVELS[TRACK_LEVELS.index(level) + 1]
    counter = f"aid:{other.value}:{level}"  # aids toward the next level, this turn only
    ctx.use(seat, counter)
    if state.used[counter] >= AIDS_TO_REACH[nxt]:
        ctx.emit(EventKind.RELATIONSHIP_CHANGED, seat=seat.value, target=other.value, text=nxt)
        ctx.score(seat, VP_ON_REACH[nxt], f"relationship {nxt}")


def quest_commands(state: State, seat: Seat) -> list[Command]:
    vs = vstate(state, seat)
    if not is_clearing(vs.location):
        return []
    suit = suit_of(state, vs.location)
    out: list[Command] = []
    for qid in sorted(state.quests):
        q = quest(qid)
        if q.suit is not suit:  # checked first: most face-up quests are of another suit
            continue
        need = Counter(q.items)
        if all(ready(vs, item) >= n for item, n in need.items()):
            for reward in (QUEST_VP, QUEST_CARDS):
                out.append(Command(CommandKind.QUEST, seat, piece=qid, target=reward))
    return out


def do_quest(ctx: Ctx, cmd: Command) -> None:
    state = ctx.state
    seat = cmd.seat
    q = quest(cmd.piece)
    for item, n in sorted(Counter(q.items).items()):
        exhaust(ctx, seat, item, n)
    revealed = state.quest_deck[-1] if state.quest_deck else ""
    ctx.emit(EventKind.QUEST_COMPLETED, seat=seat.value, piece=q.id, to=revealed)
    if cmd.target == QUEST_VP:
        done = sum(1 for qid in vstate(state, seat).quests_done if quest(qid).suit is q.suit)
        ctx.score(seat, done, f"quest {q.id}")
    else:
        ctx.draw(seat, QUEST_DRAW)
    check_legendary(ctx, seat)


def strike_commands(state: State, seat: Seat) -> list[Command]:
    """A rival warrior; a building or token only of a rival with no warriors there."""
    vs = vstate(state, seat)
    here = vs.location
    if not ready(vs, Item.CROSSBOW) or not is_clearing(here):
        return []
    out: list[Command] = []
    for other, kinds in state.pieces[here].items():
        if other.team is seat.team:
            continue
        if kinds.get(WARRIOR, 0):
            out.append(Command(CommandKind.STRIKE, seat, target=other.value, piece=WARRIOR))
            continue
        for kind in sorted(kinds):
            if kinds[kind] > 0 and (kind in BUILDINGS or kind in TOKENS):
                out.append(Command(CommandKind.STRIKE, seat, target=other.value, piece=kind))
    return out


def strike(ctx: Ctx, cmd: Command) -> None:
    """Not a battle: no Infamy, but removing a warrior makes its owner Hostile (R27)."""
    seat, other = cmd.seat, Seat(cmd.target)
    here = vstate(ctx.state, seat).location
    exhaust(ctx, seat, Item.CROSSBOW)
    remove(ctx, other, here, cmd.piece, 1, seat, "strike")
    if cmd.piece == WARRIOR:
        offer_field_hospitals(ctx, other, here, 1, in_battle=False)


def repair_commands(state: State, seat: Seat) -> list[Command]:
    vs = vstate(state, seat)
    if not ready(vs, Item.HAMMER):
        return []
    return [
        Command(CommandKind.REPAIR, seat, piece=k) for k in keys([i for i in vs.items if i.damaged])
    ]


def repair(ctx: Ctx, cmd: Command) -> None:
    exhaust(ctx, cmd.seat, Item.HAMMER)
    ctx.emit(EventKind.ITEM_REPAIRED, seat=cmd.seat.value, piece=cmd.piece)


def craft_commands(state: State, seat: Seat) -> list[Command]:
    """Hammers are crafting pieces of the clearing's suit; the item comes from the stock of
    the map the Vagabond stands on.  Master Craftsman (R29): once per turn one cost entry
    may ignore the clearing's suit."""
    vs = vstate(state, seat)
    here = vs.location
    hammers = ready(vs, Item.HAMMER)
    if not hammers or not is_clearing(here):
        return []
    suit = suit_of(state, here).value
    stock_map = board().map_of(here)
    rival = stock_map != HOME_MAP[seat.team]
    ability = vs.legendary == MASTER_CRAFTSMAN and not state.used.get(MASTER_CRAFTSMAN)
    out: list[Command] = []
    for cid in one_per_type(state.seats[seat].hand):
        cost = card(cid).cost
        if not cost or len(cost) > hammers or not craftable(state, seat, cid, stock_map):
            continue
        off_suit = sum(1 for s in cost if s not in ("any", suit))
        if off_suit == 0 or (off_suit == 1 and ability):
            piece = MASTER_CRAFTSMAN if off_suit else ""
            out.append(
                Command(
                    CommandKind.CRAFT,
                    seat,
                    to=here if rival and card(cid).item is not None else "",  # R16
                    cards=(cid,),
                    clearings=(here,) * len(cost),
                    piece=piece,
                )
            )
    return out


def craft(ctx: Ctx, cmd: Command) -> None:
    """Exhaust the hammers, craft as every faction does (VP as in base Root), then the item
    goes face up into the Satchel or onto its track.

    On the rival map (``Command.to``, the pawn's clearing) the item comes from that map's
    stock and is its team's contraband (R16, added): it goes straight into the Satchel,
    scoring nothing yet, and scores when the pawn crosses a bridge onto the home map (R17,
    R20).  The craft event names the clearing, as every contraband craft does; the item
    never lies there for anyone else to collect."""
    seat = cmd.seat
    exhaust(ctx, seat, Item.HAMMER, len(cmd.clearings))
    if cmd.piece == MASTER_CRAFTSMAN:
        ctx.use(seat, MASTER_CRAFTSMAN)
    do_craft(ctx, cmd)
    item = card(cmd.cards[0]).item
    if item is None:
        return
    if cmd.to:  # R16: from the spot the craft names into the Satchel, as contraband
        ctx.emit(
            EventKind.ITEM_GAINED,
            seat=seat.value,
            piece=item.value,
            clearing=cmd.to,
            target=seat.value,
            text=CRAFTED_CONTRABAND,
        )
        return
    ctx.emit(
        EventKind.ITEM_GAINED,
        seat=seat.value,
        piece=item.value,
        target=seat.value,
        text="craft",
    )


def special_commands(state: State, seat: Seat) -> list[Command]:
    vs = vstate(state, seat)
    if not ready(vs, Item.TORCH):
        return []
    here = vs.location
    if vs.character is Character.RANGER:
        return [Command(CommandKind.HIDEOUT, seat)] if any(i.damaged for i in vs.items) else []
    if not is_clearing(here):
        return []
    if vs.character is Character.THIEF:
        pawns_here = pawns_in(state, here)
        return [
            Command(CommandKind.STEAL, seat, target=other.value)
            for other in state.order
            if other is not seat
            and state.seats[other].hand
            and present(state, here, other, pawns_here)
        ]
    suit = suit_of(state, here)
    usable = [c for c in state.discard if card(c).suit in (suit, Suit.BIRD)]
    return [Command(CommandKind.DAY_LABOR, seat, cards=(c,)) for c in one_per_type(usable)]


def steal(ctx: Ctx, cmd: Command) -> None:
    """Thief: a random card (the state's generator; evolve redraws it on CARD_GIVEN)."""
    victim = Seat(cmd.target)
    exhaust(ctx, cmd.seat, Item.TORCH)
    hand = ctx.state.seats[victim].hand
    index, _ = rng.below(ctx.state.rng, len(hand))
    ctx.give(victim, cmd.seat, (hand[index],), "stolen")


def day_labor(ctx: Ctx, cmd: Command) -> None:
    exhaust(ctx, cmd.seat, Item.TORCH)
    ctx.emit(EventKind.DISCARD_CARD_TAKEN, seat=cmd.seat.value, cards=cmd.cards)


def hideout(ctx: Ctx, cmd: Command) -> None:
    """Ranger: repair up to 3 damaged items, then Daylight ends at once."""
    exhaust(ctx, cmd.seat, Item.TORCH)
    hideout_repairs(ctx, cmd.seat, HIDEOUT_REPAIRS)


def hideout_repairs(ctx: Ctx, seat: Seat, left: int) -> None:
    vs = vstate(ctx.state, seat)
    while left > 0:
        damaged = [i for i in vs.items if i.damaged]
        if not damaged:
            break
        if len(keys(damaged)) > 1 and left < len(damaged):
            ctx.ask(seat, HIDEOUT, count=left)
            return
        ctx.emit(EventKind.ITEM_REPAIRED, seat=seat.value, piece=damaged[0].key)
        left -= 1
    goto(ctx, seat, "evening.start")


def pick_up_commands(state: State, seat: Seat) -> list[Command]:
    """R20: a dropped item in the clearing, picked up with the torch."""
    vs = vstate(state, seat)
    here = vs.location
    if not ready(vs, Item.TORCH) or not state.dropped.get(here):
        return []
    found = sorted({(d.item.value, d.crafter.value) for d in state.dropped[here]})
    return [
        Command(CommandKind.PICK_UP, seat, clearing=here, piece=item, target=crafter)
        for item, crafter in found
    ]


def pick_up(ctx: Ctx, cmd: Command) -> None:
    exhaust(ctx, cmd.seat, Item.TORCH)
    ctx.emit(
        EventKind.ITEM_GAINED,
        seat=cmd.seat.value,
        piece=cmd.piece,
        clearing=cmd.clearing,
        target=cmd.target,
        text="dropped",
    )


def action_commands(state: State, seat: Seat) -> list[Command]:
    return [
        *move_commands(state, seat),
        *battle_commands(state, seat),
        *explore_commands(state, seat),
        *aid_commands(state, seat),
        *quest_commands(state, seat),
        *strike_commands(state, seat),
        *repair_commands(state, seat),
        *craft_commands(state, seat),
        *special_commands(state, seat),
        *pick_up_commands(state, seat),
    ]


def check_legendary(ctx: Ctx, seat: Seat) -> None:
    if legendary_due(ctx.state, seat):
        ctx.ask(seat, LEGENDARY)


ACTIONS = {
    CommandKind.SLIP: slip,
    CommandKind.VAGABOND_MOVE: move,
    CommandKind.BATTLE: battle,
    CommandKind.EXPLORE: explore,
    CommandKind.AID: aid,
    CommandKind.QUEST: do_quest,
    CommandKind.STRIKE: strike,
    CommandKind.REPAIR: repair,
    CommandKind.CRAFT: craft,
    CommandKind.STEAL: steal,
    CommandKind.DAY_LABOR: day_labor,
    CommandKind.HIDEOUT: hideout,
    CommandKind.PICK_UP: pick_up,
}
