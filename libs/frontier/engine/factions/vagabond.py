"""Vagabond (base Root §12): Thief, Tinker and Ranger, one per team (R1, R2), with the
variant's rulings R12, R15, R16, R20, R27, R28, R29 and R34.

Setup: the pawn in a forest of the home map (R12); relationship markers on Indifferent with the
three rival seats and at the top (Allied) with the two teammates (R27).  The quest deck is one
deck of 15, shared by both Vagabonds: it is shuffled with the match generator in
``setup.initial_state`` and 3 quests lie face up in ``State.quests`` for whichever Vagabond
completes them first (one physical deck and one quest row, as on a base table with two
Vagabonds).

A turn.  Birdsong: refresh 3 + 2 per face-up tea (the Vagabond picks which when it cannot
refresh everything), then one free slip to an adjacent clearing or forest.  Daylight: any
number of actions, each paid by exhausting items: move, battle (with Looting, R28), explore,
aid, quest, strike, repair, craft (on the rival map the item is contraband and, with no
warrior to carry it, dropped: R16), the character's special action and the torch pick-up of a
dropped item (R20: its team's contraband is validated when the pawn crosses a bridge home).
Evening: rest in a forest, draw 1 + coins, discard to 5, then the item limit.  Battle itself
(caps, hits as item damage, Looting, R15 intervention, the War Veteran reroll) runs in
:mod:`battle` through :mod:`vagabond_state`; this module answers the decisions those stages ask.
"""

from __future__ import annotations

from collections import Counter

from .. import rng
from ..battle import set_hits
from ..battle import start as start_battle
from ..board import HOME_MAP, board
from ..cards import card, one_per_type, payable
from ..contraband import carry_options, move_with, vagabond_crossed
from ..crafting import craftable, do_craft
from ..ctx import Ctx
from ..evolve import CorruptEvent
from ..field_hospitals import offer_field_hospitals
from ..model import Character, Command, CommandKind, Event, EventKind, Faction, Item, Seat, Suit
from ..movement import (
    WINGS,
    WINGS_USED,
    fee_options,
    pay_bridge_fee,
    suit_of,
    team_eyrie,
)
from ..pieces import (
    BUILDINGS,
    ROOST,
    TOKENS,
    WARRIOR,
    count,
    enemies_with_pieces,
    has_any_piece,
    warriors,
)
from ..state import Decision, SeatSpec, State
from ..sympathy import after_warriors_moved
from ..vagabond_state import (
    ALLIED,
    AMIABLE,
    DAMAGE_DECISION,
    FOREST_GHOST,
    FRIENDLY,
    HOSTILE,
    INDIFFERENT,
    INTERVENTION,
    LEGENDARY_ABILITIES,
    LOOT_DECISION,
    MASTER_CRAFTSMAN,
    REROLL_DECISION,
    TRACK_LEVELS,
    VANGUARD_LEADER,
    VagabondState,
    VItem,
    find,
    intervention_options,
    is_clearing,
    item_limit,
    item_load,
    keys,
    legendary_due,
    on_track,
    pawns_in,
    quest,
    ready,
    refresh_allowance,
    relationship,
    starting_items,
    take_hits,
    track_count,
    vstate,
)
from .base import FactionRules

# Aids needed in one turn to reach each level of the rival track, and the VP on reaching it;
# once Allied every aid scores 2 (base Root §12.4, R34).
AIDS_TO_REACH: dict[str, int] = {AMIABLE: 1, FRIENDLY: 2, ALLIED: 3}
VP_ON_REACH: dict[str, int] = {AMIABLE: 1, FRIENDLY: 2, ALLIED: 2}
ALLIED_AID_VP = 2
QUEST_DRAW = 2
EVENING_DRAW = 1
HIDEOUT_REPAIRS = 3
FULL_REMOVAL_DAMAGE = 3
DIE_FACES = 4  # a Root die shows 0-3

SLIP = "slip"  # per-turn counter: the Birdsong slip is used
LOOTING = "looting"  # per-turn counter: Looting declared this turn (R28, once per turn)
AID_TAKE = "aid_take"
LEGENDARY = "legendary"
HIDEOUT = "hideout"
QUEST_VP = "vp"
QUEST_CARDS = "draw"


def _exhaust(ctx: Ctx, seat: Seat, item: Item, n: int = 1) -> None:
    ctx.emit(EventKind.ITEMS_EXHAUSTED, seat=seat.value, piece=item.value, count=n)


def _present(state: State, clearing: str, seat: Seat, pawns_here: list[Seat] | None = None) -> bool:
    """``seat`` has a piece in ``clearing`` (a warrior, building, token or its pawn);
    ``pawns_here`` is :func:`pawns_in` of the clearing when asking about several seats."""
    if has_any_piece(state, clearing, seat):
        return True
    return seat in (pawns_here if pawns_here is not None else pawns_in(state, clearing))


def _hostile_warriors(state: State, seat: Seat, clearing: str) -> bool:
    vs = vstate(state, seat)
    if HOSTILE not in vs.relations.values():  # the usual case, answered without a scan
        return False
    return any(
        warriors(state, clearing, other) > 0
        for other in state.order
        if vs.relations.get(other.value) == HOSTILE
    )


# ----- setup (R12, R27) -------------------------------------------------------------------


def new_state(spec: SeatSpec) -> VagabondState:
    assert spec.character is not None
    return VagabondState(spec.character, starting_items(spec.character))


def setup_commands(state: State, seat: Seat) -> list[Command]:
    home = HOME_MAP[seat.team]
    return [
        Command(CommandKind.PLACE_PAWN, seat, clearing=f)
        for f in board().forests
        if board().map_of(f) == home
    ]


def setup_done(state: State, seat: Seat, step: str) -> bool:
    return bool(vstate(state, seat).location)


# ----- Birdsong ---------------------------------------------------------------------------


def enter_refresh(ctx: Ctx, seat: Seat) -> None:
    """Refresh everything when the allowance covers it; otherwise the Vagabond picks."""
    vs = vstate(ctx.state, seat)
    allowance = refresh_allowance(vs)
    exhausted = [it for it in vs.items if it.exhausted]
    if len(exhausted) > allowance:
        ctx.emit(EventKind.ACTIONS_CHANGED, seat=seat.value, amount=allowance, count=0)
        return
    for it in exhausted:
        ctx.emit(EventKind.ITEM_REFRESHED, seat=seat.value, piece=it.key)


def refresh_commands(state: State, seat: Seat) -> list[Command]:
    if state.actions <= 0:
        return []
    exhausted = [it for it in vstate(state, seat).items if it.exhausted]
    return [Command(CommandKind.REFRESH, seat, piece=k) for k in keys(exhausted)]


def _crossings(
    state: State, seat: Seat, origin: str, dest: str
) -> list[tuple[tuple[str, ...], str]]:
    """How the pawn may go from ``origin`` to ``dest``: (fee cards, piece) per option.

    Off a bridge: one free option.  Across one: a fee card (R7), none with Forest Ghost
    (R29), or none on the team Eyrie's wings when a roost stands at either end (R23).
    """
    b = board()
    if not is_clearing(origin) or not b.is_bridge(origin, dest):
        return [((), "")]
    if vstate(state, seat).legendary == FOREST_GHOST:
        return [((), FOREST_GHOST)]
    out: list[tuple[tuple[str, ...], str]] = [
        ((fee,), "") for fee in fee_options(state, seat, dest)
    ]
    eyrie = team_eyrie(state, seat)
    if eyrie is not None and (
        count(state, origin, eyrie, ROOST) or count(state, dest, eyrie, ROOST)
    ):
        out.append(((), WINGS))
    return out


def _cross(ctx: Ctx, seat: Seat, origin: str, dest: str, cmd: Command) -> None:
    if not is_clearing(origin) or not board().is_bridge(origin, dest):
        return
    if cmd.piece in (WINGS, FOREST_GHOST):
        ctx.emit(
            EventKind.BRIDGE_CROSSED, seat=seat.value, clearing=origin, to=dest, text=cmd.piece
        )
        if cmd.piece == WINGS:
            ctx.use(seat, WINGS_USED)
    else:
        pay_bridge_fee(ctx, seat, origin, dest, cmd.cards)


def slip_commands(state: State, seat: Seat) -> list[Command]:
    """A free move to an adjacent clearing or forest (across a bridge it pays the fee)."""
    if state.used.get(SLIP):
        return []
    b = board()
    here = vstate(state, seat).location
    if is_clearing(here):
        places = [*b.adjacent[here], *b.clearing_forests[here]]
    else:
        places = [*b.forests[here], *b.forest_adjacent[here]]
    out = [
        Command(CommandKind.SLIP, seat, to=dest, cards=cards, piece=piece)
        for dest in places
        for cards, piece in _crossings(state, seat, here, dest)
    ]
    return [*out, Command(CommandKind.END_PHASE, seat)]


def slip(ctx: Ctx, cmd: Command) -> None:
    seat = cmd.seat
    here = vstate(ctx.state, seat).location
    ctx.use(seat, SLIP)
    _cross(ctx, seat, here, cmd.to, cmd)
    ctx.emit(EventKind.PAWN_MOVED, seat=seat.value, clearing=here, to=cmd.to, text="slip")
    vagabond_crossed(ctx, seat, here, cmd.to)  # R20: contraband home


# ----- Daylight: move ---------------------------------------------------------------------


def boots_cost(state: State, seat: Seat, dest: str) -> int:
    """1 boots, +1 into a clearing with warriors of a Hostile faction."""
    return 1 + (1 if _hostile_warriors(state, seat, dest) else 0)


def move_commands(state: State, seat: Seat) -> list[Command]:
    vs = vstate(state, seat)
    boots = ready(vs, Item.BOOTS)
    if boots == 0:
        return []
    b = board()
    here = vs.location
    here_clearing = is_clearing(here)
    dests = b.adjacent[here] if here_clearing else b.forests[here]
    allies: list[Seat] = []
    if vs.legendary == VANGUARD_LEADER and here_clearing:
        allies = [
            s
            for s in state.order
            if s.team is seat.team and s is not seat and warriors(state, here, s) > 0
        ]
    # (ally, clearings): the ally's contraband here goes along with its warrior or not (R17)
    company: list[tuple[str, tuple[str, ...]]] = [("", ())]
    for ally in allies:
        company.extend((ally.value, carry) for carry in carry_options(state, ally, here, 1))
    out: list[Command] = []
    for dest in dests:
        if boots_cost(state, seat, dest) > boots:
            continue
        for cards, piece in _crossings(state, seat, here, dest):
            for ally_value, carry in company:
                out.append(
                    Command(
                        CommandKind.VAGABOND_MOVE,
                        seat,
                        to=dest,
                        cards=cards,
                        piece=piece,
                        target=ally_value,
                        clearings=carry,
                    )
                )
    return out


def move(ctx: Ctx, cmd: Command) -> None:
    """Nimble: rule never matters.  Vanguard Leader (R29) takes 1 allied warrior along."""
    state = ctx.state
    seat = cmd.seat
    here = vstate(state, seat).location
    _exhaust(ctx, seat, Item.BOOTS, boots_cost(state, seat, cmd.to))
    _cross(ctx, seat, here, cmd.to, cmd)
    ctx.emit(EventKind.PAWN_MOVED, seat=seat.value, clearing=here, to=cmd.to, text="move")
    vagabond_crossed(ctx, seat, here, cmd.to)  # R20: contraband home
    if cmd.target:
        ally = Seat(cmd.target)
        ctx.move(ally, here, cmd.to, 1, WARRIOR)
        move_with(ctx, ally, here, cmd.to, carry=bool(cmd.clearings))  # R17
        after_warriors_moved(ctx, seat, cmd.to)  # the Vagabond is the mover (R25)


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
    _exhaust(ctx, cmd.seat, Item.SWORD)
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
    _exhaust(ctx, seat, Item.TORCH)
    item = ctx.state.ruins[cmd.clearing][-1]
    ctx.emit(
        EventKind.ITEM_GAINED, seat=seat.value, piece=item.value, clearing=cmd.clearing, text="ruin"
    )
    ctx.score(seat, 1, "explored a ruin")
    _check_legendary(ctx, seat)


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
        if other is seat or not _present(state, here, other, pawns_here):
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
    _exhaust(ctx, seat, Item(cmd.piece))
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
        _exhaust(ctx, seat, item, n)
    revealed = state.quest_deck[-1] if state.quest_deck else ""
    ctx.emit(EventKind.QUEST_COMPLETED, seat=seat.value, piece=q.id, to=revealed)
    if cmd.target == QUEST_VP:
        done = sum(1 for qid in vstate(state, seat).quests_done if quest(qid).suit is q.suit)
        ctx.score(seat, done, f"quest {q.id}")
    else:
        ctx.draw(seat, QUEST_DRAW)
    _check_legendary(ctx, seat)


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
    _exhaust(ctx, seat, Item.CROSSBOW)
    ctx.remove(other, here, cmd.piece, 1, seat, "strike")
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
    _exhaust(ctx, cmd.seat, Item.HAMMER)
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

    On the rival map the item is contraband (R16) and, read literally, R16 hands it to "a
    warrior of the crafter" in the clearing: a Vagabond has none, so it is dropped where the
    pawn stands (``Command.to``), scoring nothing.  The torch may then pick it up (R20): its
    own team's contraband in the Satchel, validated when the pawn enters the home map."""
    seat = cmd.seat
    _exhaust(ctx, seat, Item.HAMMER, len(cmd.clearings))
    if cmd.piece == MASTER_CRAFTSMAN:
        ctx.use(seat, MASTER_CRAFTSMAN)
    do_craft(ctx, cmd)
    item = card(cmd.cards[0]).item
    if item is not None and not cmd.to:
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
            and _present(state, here, other, pawns_here)
        ]
    suit = suit_of(state, here)
    usable = [c for c in state.discard if card(c).suit in (suit, Suit.BIRD)]
    return [Command(CommandKind.DAY_LABOR, seat, cards=(c,)) for c in one_per_type(usable)]


def steal(ctx: Ctx, cmd: Command) -> None:
    """Thief: a random card (the state's generator; evolve redraws it on CARD_GIVEN)."""
    victim = Seat(cmd.target)
    _exhaust(ctx, cmd.seat, Item.TORCH)
    hand = ctx.state.seats[victim].hand
    index, _ = rng.below(ctx.state.rng, len(hand))
    ctx.give(victim, cmd.seat, (hand[index],), "stolen")


def day_labor(ctx: Ctx, cmd: Command) -> None:
    _exhaust(ctx, cmd.seat, Item.TORCH)
    ctx.emit(EventKind.DISCARD_CARD_TAKEN, seat=cmd.seat.value, cards=cmd.cards)


def hideout(ctx: Ctx, cmd: Command) -> None:
    """Ranger: repair up to 3 damaged items, then Daylight ends at once."""
    _exhaust(ctx, cmd.seat, Item.TORCH)
    _hideout_repairs(ctx, cmd.seat, HIDEOUT_REPAIRS)


def _hideout_repairs(ctx: Ctx, seat: Seat, left: int) -> None:
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
    from ..turn import goto  # turn imports the factions

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
    _exhaust(ctx, cmd.seat, Item.TORCH)
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


def _check_legendary(ctx: Ctx, seat: Seat) -> None:
    if legendary_due(ctx.state, seat):
        ctx.ask(seat, LEGENDARY)


# ----- Evening ----------------------------------------------------------------------------


def rest(ctx: Ctx, seat: Seat) -> None:
    """In a forest: repair every damaged item and turn it face up (base Root §12.2)."""
    vs = vstate(ctx.state, seat)
    if is_clearing(vs.location):
        return
    for it in [i for i in vs.items if i.damaged]:
        ctx.emit(EventKind.ITEM_REPAIRED, seat=seat.value, piece=it.key)
        if it.exhausted:
            ctx.emit(EventKind.ITEM_REFRESHED, seat=seat.value, piece=it.key)


def evening_draw(ctx: Ctx, seat: Seat) -> None:
    ctx.draw(seat, EVENING_DRAW + track_count(vstate(ctx.state, seat), Item.COINS))


def item_limit_commands(state: State, seat: Seat) -> list[Command]:
    """Over the limit, remove Satchel or damaged items (track items do not count)."""
    vs = vstate(state, seat)
    if item_load(vs) <= item_limit(vs):
        return []
    off_track = [it for it, on in zip(vs.items, on_track(vs), strict=True) if not on]
    return [Command(CommandKind.REMOVE_ITEM, seat, piece=k) for k in keys(off_track)]


# ----- turn plumbing ----------------------------------------------------------------------


def step_commands(state: State, seat: Seat, step: str) -> list[Command]:
    if step == "setup.pawn":
        return setup_commands(state, seat)
    if step == "birdsong.refresh":
        return refresh_commands(state, seat)
    if step == "birdsong.slip":
        return slip_commands(state, seat)
    if step == "daylight.actions":
        return action_commands(state, seat)
    if step == "evening.items":
        return item_limit_commands(state, seat)
    return []


def execute(ctx: Ctx, cmd: Command) -> None:
    seat = cmd.seat
    kind = cmd.kind
    if kind is CommandKind.PLACE_PAWN:
        ctx.emit(EventKind.PAWN_PLACED, seat=seat.value, to=cmd.clearing)
    elif kind is CommandKind.REFRESH:
        ctx.emit(EventKind.ITEM_REFRESHED, seat=seat.value, piece=cmd.piece)
        ctx.emit(EventKind.ACTIONS_CHANGED, seat=seat.value, amount=-1, count=0)
    elif kind is CommandKind.REMOVE_ITEM:
        ctx.emit(EventKind.ITEM_REMOVED, seat=seat.value, piece=cmd.piece, text="item limit")
    else:
        _ACTIONS[kind](ctx, cmd)


_ACTIONS = {
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


def full_removal(ctx: Ctx, seat: Seat, clearing: str, remover: Seat) -> None:
    """An effect removed every rival piece where the pawn stands (a Revolt): 3 items are
    damaged instead, since the pawn cannot be removed (base Root §12.1)."""
    if vstate(ctx.state, seat).location == clearing:
        take_hits(ctx, seat, FULL_REMOVAL_DAMAGE, remover)


# ----- decisions --------------------------------------------------------------------------


def decision_commands(state: State, d: Decision) -> list[Command]:
    seat = d.seat
    vs = vstate(state, seat)
    if d.kind == DAMAGE_DECISION:
        undamaged = [i for i in vs.items if not i.damaged]
        return [Command(CommandKind.DAMAGE_ITEM, seat, piece=k) for k in keys(undamaged)]
    if d.kind == HIDEOUT:
        damaged = [i for i in vs.items if i.damaged]
        return [Command(CommandKind.REPAIR, seat, piece=k) for k in keys(damaged)]
    if d.kind == LEGENDARY:
        return [Command(CommandKind.CHOOSE_LEGENDARY, seat, piece=a) for a in LEGENDARY_ABILITIES]
    if d.kind in (LOOT_DECISION, AID_TAKE):
        items = sorted({i.value for i in state.seats[Seat(d.target)].crafted_items})
        out = [Command(CommandKind.TAKE_ITEM, seat, piece=i, target=d.target) for i in items]
        return out if d.kind == LOOT_DECISION else [*out, Command(CommandKind.DECLINE, seat)]
    decline = Command(CommandKind.DECLINE, seat)
    if d.kind == INTERVENTION:
        b = state.battle
        assert b is not None
        offer = intervention_options(state, b)
        pieces = offer[1] if offer is not None else []
        return [*(Command(CommandKind.INTERVENE, seat, piece=p) for p in pieces), decline]
    if d.kind == REROLL_DECISION:
        return [Command(CommandKind.REROLL, seat), decline]
    return []


def answer(ctx: Ctx, cmd: Command, d: Decision) -> None:
    state = ctx.state
    seat = cmd.seat
    ctx.close_decision()
    if cmd.kind is CommandKind.DECLINE:
        ctx.emit(EventKind.DECISION_DECLINED, seat=seat.value, text=d.kind)
    if d.kind == DAMAGE_DECISION:
        ctx.emit(EventKind.ITEM_DAMAGED, seat=seat.value, piece=cmd.piece)
        take_hits(ctx, seat, d.count - 1, Seat(d.target) if d.target else None)
    elif d.kind == HIDEOUT:
        ctx.emit(EventKind.ITEM_REPAIRED, seat=seat.value, piece=cmd.piece)
        _hideout_repairs(ctx, seat, d.count - 1)
    elif d.kind == LEGENDARY:
        ctx.emit(EventKind.LEGENDARY_GAINED, seat=seat.value, piece=cmd.piece)
    elif d.kind in (LOOT_DECISION, AID_TAKE):
        if cmd.kind is CommandKind.TAKE_ITEM:
            ctx.emit(
                EventKind.ITEM_GAINED,
                seat=seat.value,
                piece=cmd.piece,
                target=d.target,
                clearing=d.clearing,
                text="loot" if d.kind == LOOT_DECISION else "aid",
            )
    elif d.kind == INTERVENTION:
        if cmd.kind is CommandKind.INTERVENE:
            ctx.emit(EventKind.INTERVENED, seat=seat.value, piece=cmd.piece)
        ctx.emit(EventKind.BATTLE_STAGE, text="deal_defender")
    elif d.kind == REROLL_DECISION:
        b = state.battle
        assert b is not None
        if cmd.kind is CommandKind.REROLL:
            die, _ = rng.below(state.rng, DIE_FACES)
            ctx.emit(EventKind.DIE_REROLLED, seat=seat.value, values=(die,))
            set_hits(ctx, b)
        ctx.emit(EventKind.BATTLE_STAGE, text="effects_attacker")


# ----- evolve -----------------------------------------------------------------------------


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
    elif e.text == "dropped":
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

_DECISION = (decision_commands, answer)

RULES = FactionRules(
    faction=Faction.VAGABOND,
    supply=lambda spec: {},  # a pawn and items, no pieces in supply
    setup_steps=("setup.pawn",),
    turn_steps=(
        "birdsong.start",
        "birdsong.refresh",
        "birdsong.slip",
        "birdsong.cards",
        "daylight.start",
        "daylight.actions",
        "evening.start",
        "evening.rest",
        "evening.draw",
        "evening.discard",
        "evening.items",
    ),
    enter={"birdsong.refresh": enter_refresh, "evening.rest": rest, "evening.draw": evening_draw},
    step_commands=step_commands,
    setup_done=setup_done,
    kinds=frozenset(
        {
            CommandKind.PLACE_PAWN,
            CommandKind.REFRESH,
            CommandKind.REMOVE_ITEM,
            CommandKind.CRAFT,  # with hammers, as a Daylight action (not decide's shared craft)
            *_ACTIONS,
        }
    ),
    execute=execute,
    daylight_main_step="daylight.actions",
    decisions={
        kind: _DECISION
        for kind in (
            DAMAGE_DECISION,
            INTERVENTION,
            LOOT_DECISION,
            AID_TAKE,
            REROLL_DECISION,
            LEGENDARY,
            HIDEOUT,
        )
    },
    new_state=new_state,
    evolve=dict(EVOLVE),
    full_removal=full_removal,
)
