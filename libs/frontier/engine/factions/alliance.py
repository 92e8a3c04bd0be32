"""Woodland Alliance (base Root §11, with the variant's R12, R21 and R25).

Setup: no pieces on the map; 3 supporters drawn face down (R12).  A turn:

* Birdsong, in any order and as often as it can pay: **Revolt** (a sympathetic clearing
  matching a base still on the faction board; spend 2 matching supporters; remove every
  piece of the *rival team* there, scoring 1 VP per building or token; place the base, then
  warriors equal to the sympathetic clearings of its suit, then 1 officer) and **Spread
  Sympathy** (a clearing next to a sympathetic one, across a Border Bridge too (R25), or
  anywhere while none is; never a keep clearing; the track's cost in supporters of the
  clearing's suit, +1 under Martial Law; score the track's VP).
* Daylight, in any order: **craft** with sympathy tokens (on the rival map the item drops in
  the clearing: Revolutionary Agent, R21), **mobilize** (a hand card onto the supporters,
  within the limit) and **train** (a card matching a base on the map: 1 warrior from the
  supply becomes an officer).
* Evening: **Military Operations**, one per officer (move, battle, recruit at a base,
  organize; a battle may seize a dropped item, R19, but the Alliance never collects one,
  R21),
  then draw 1 + 1 per base on the map and discard down to 5.

Guerrilla War lives in :mod:`frontier.engine.battle`; supporters, Outrage and the loss of a
base in :mod:`frontier.engine.sympathy`.
"""

from __future__ import annotations

from ..battle import battle_commands
from ..battle import start as start_battle
from ..board import board, raw_data
from ..card_effects import birdsong_commands
from ..cards import one_per_type, payable
from ..contraband import do_seize, seize_commands
from ..crafting import craft_commands
from ..ctx import Ctx
from ..errors import IllegalCommand
from ..field_hospitals import offer_field_hospitals
from ..model import Command, CommandKind, EventKind, Faction, Seat, Suit
from ..movement import do_move, move_commands, suit_of
from ..pieces import BASES, BUILDINGS, KEEP, SYMPATHY, TOKENS, WARRIOR, open_slots, warriors
from ..registry import rules_for
from ..removal import remove
from ..state import SeatSpec, State
from ..sympathy import (
    EVOLVE,
    OUTRAGE,
    SUPPORTERS_LIMIT_DECISION,
    alliance_state,
    answer_outrage,
    answer_supporters_limit,
    base_piece,
    base_suit,
    bases_on_map,
    draw_supporters,
    gain_supporters,
    lost_pieces,
    new_alliance_state,
    outrage_commands,
    spend_supporters,
    supporter_payments,
    supporters_limit,
    supporters_limit_commands,
    sympathetic,
)
from .base import FactionRules

_DATA = raw_data()["factions"]["alliance"]
WARRIORS = int(_DATA["warriors"])
SYMPATHY_TOKENS = int(_DATA["sympathy_tokens"])
SYMPATHY_COST: tuple[int, ...] = tuple(_DATA["sympathy_cost_by_nth_token"])
SYMPATHY_VP: tuple[int, ...] = tuple(_DATA["sympathy_vp_by_nth_token"])
STARTING_SUPPORTERS = int(_DATA["starting_supporters"])
REVOLT_COST = 2
MARTIAL_LAW_WARRIORS = 3
OPERATIONS = "operations"  # per-turn counter of Military Operations taken


def starting_supply(spec: SeatSpec) -> dict[str, int]:
    return {WARRIOR: WARRIORS, SYMPATHY: SYMPATHY_TOKENS, **dict.fromkeys(BASES, 1)}


def sympathy_placed(state: State, seat: Seat) -> int:
    return SYMPATHY_TOKENS - state.seats[seat].supply.get(SYMPATHY, 0)


def public_counts(state: State, seat: Seat) -> dict[str, object]:
    """Public facts of the faction board that live in the supply: bases and the track."""
    supply = state.seats[seat].supply
    return {
        "bases_left": sorted(base_suit(b).value for b in BASES if supply.get(b, 0)),
        "sympathy_placed": sympathy_placed(state, seat),
    }


def _keep_here(state: State, clearing: str) -> bool:
    return any(kinds.get(KEEP, 0) for kinds in state.pieces[clearing].values())


def _rival_pieces(state: State, clearing: str, seat: Seat) -> list[tuple[Seat, str, int]]:
    """Every removable piece of the rival team in ``clearing`` (warriors, buildings, tokens)."""
    out: list[tuple[Seat, str, int]] = []
    for owner in state.order:
        if owner.team is seat.team:
            continue
        for kind, n in sorted(state.pieces[clearing].get(owner, {}).items()):
            if n > 0 and (kind == WARRIOR or kind in BUILDINGS or kind in TOKENS):
                out.append((owner, kind, n))
    return out


# ----- setup (R12) --------------------------------------------------------------------------


def _setup_supporters(ctx: Ctx, seat: Seat) -> None:
    draw_supporters(ctx, seat, STARTING_SUPPORTERS, "setup")


def setup_done(state: State, seat: Seat, step: str) -> bool:
    return True  # the step's enter hook drew the supporters; there is nothing to choose


# ----- Birdsong: Revolt and Spread Sympathy --------------------------------------------------


def _base_fits_after_revolt(state: State, clearing: str, seat: Seat) -> bool:
    """The base needs an open slot once the rival pieces are gone, and no teammate's keep."""
    if any(
        kinds.get(KEEP, 0)
        for owner, kinds in state.pieces[clearing].items()
        if owner is not seat and owner.team is seat.team
    ):
        return False
    rival_buildings = sum(
        n for _, kind, n in _rival_pieces(state, clearing, seat) if kind in BUILDINGS
    )
    return open_slots(state, clearing) + rival_buildings > 0


def revolt_commands(state: State, seat: Seat) -> list[Command]:
    supply = state.seats[seat].supply
    supporters = alliance_state(state, seat).supporters
    out: list[Command] = []
    for c in board().order:
        if not sympathetic(state, c, seat):
            continue
        suit = suit_of(state, c)
        if supply.get(base_piece(suit), 0) == 0 or not _base_fits_after_revolt(state, c, seat):
            continue
        for pay in supporter_payments(supporters, suit, REVOLT_COST):
            out.append(Command(CommandKind.REVOLT, seat, clearing=c, cards=pay))
    return out


def revolt(ctx: Ctx, cmd: Command) -> None:
    state = ctx.state
    seat, clearing = cmd.seat, cmd.clearing
    suit = suit_of(state, clearing)
    spend_supporters(ctx, seat, cmd.cards, "revolt")
    removed_warriors: dict[Seat, int] = {}
    for owner, kind, n in _rival_pieces(state, clearing, seat):
        # Re-read: an earlier removal's trigger never adds rival pieces here, but be exact.
        n = state.pieces[clearing].get(owner, {}).get(kind, 0)
        remove(ctx, owner, clearing, kind, n, seat, "revolt")
        if kind == WARRIOR:
            removed_warriors[owner] = removed_warriors.get(owner, 0) + n
    full_removal_hooks(ctx, seat, clearing)
    for owner, n in removed_warriors.items():
        offer_field_hospitals(ctx, owner, clearing, n, in_battle=False)
    ctx.place(seat, clearing, base_piece(suit), 1, reason="revolt")
    same_suit = sum(
        1 for c in board().order if sympathetic(state, c, seat) and suit_of(state, c) is suit
    )
    n = min(same_suit, state.seats[seat].supply.get(WARRIOR, 0))
    ctx.place(seat, clearing, WARRIOR, n, reason="revolt")
    if state.seats[seat].supply.get(WARRIOR, 0) > 0:
        ctx.emit(EventKind.OFFICERS_CHANGED, seat=seat.value, amount=1, text="revolt")


def full_removal_hooks(ctx: Ctx, remover: Seat, clearing: str) -> None:
    """An effect removed every rival piece in ``clearing`` (Revolt).  A Vagabond there is not
    removed but damages 3 items (§12.1): each rival faction's ``full_removal`` hook decides
    (a no-op while it has nothing in the clearing; factions without the hook skip it)."""
    for owner in ctx.state.order:
        if owner.team is remover.team:
            continue
        hook = rules_for(ctx.state.lineup[owner].faction).full_removal
        if hook is not None:
            hook(ctx, owner, clearing, remover)


def martial_law(state: State, clearing: str, seat: Seat) -> int:
    """+1 supporter when one rival seat has 3 or more warriors in the clearing."""
    return int(
        any(
            warriors(state, clearing, other) >= MARTIAL_LAW_WARRIORS
            for other in state.order
            if other.team is not seat.team
        )
    )


def spread_targets(state: State, seat: Seat) -> list[str]:
    """Unsympathetic clearings next to a sympathetic one (bridges are paths here, R25), or
    any clearing while none is sympathetic; never a keep clearing."""
    b = board()
    mine = [c for c in b.order if sympathetic(state, c, seat)]
    if mine:
        near = {n for c in mine for n in b.adjacent[c]}
        candidates = [c for c in b.order if c in near and c not in mine]
    else:
        candidates = list(b.order)
    return [c for c in candidates if not _keep_here(state, c)]


def spread_cost(state: State, clearing: str, seat: Seat) -> int:
    return SYMPATHY_COST[sympathy_placed(state, seat)] + martial_law(state, clearing, seat)


def spread_commands(state: State, seat: Seat) -> list[Command]:
    if state.seats[seat].supply.get(SYMPATHY, 0) == 0:
        return []
    supporters = alliance_state(state, seat).supporters
    # Many targets share a suit and a cost: work out each (suit, cost)'s payments once.
    payments: dict[tuple[Suit, int], list[tuple[str, ...]]] = {}
    out: list[Command] = []
    for c in spread_targets(state, seat):
        key = (suit_of(state, c), spread_cost(state, c, seat))
        pays = payments.get(key)
        if pays is None:
            pays = payments[key] = supporter_payments(supporters, *key)
        for pay in pays:
            out.append(Command(CommandKind.SPREAD_SYMPATHY, seat, clearing=c, cards=pay))
    return out


def place_sympathy(ctx: Ctx, seat: Seat, clearing: str, reason: str) -> None:
    vp = SYMPATHY_VP[sympathy_placed(ctx.state, seat)]
    ctx.place(seat, clearing, SYMPATHY, 1, reason=reason)
    ctx.score(seat, vp, "sympathy")


def spread(ctx: Ctx, cmd: Command) -> None:
    spend_supporters(ctx, cmd.seat, cmd.cards, "spread sympathy")
    place_sympathy(ctx, cmd.seat, cmd.clearing, "spread sympathy")


# ----- Daylight: craft, mobilize, train -----------------------------------------------------


def mobilize_commands(state: State, seat: Seat) -> list[Command]:
    limit = supporters_limit(state, seat)
    if limit is not None and len(alliance_state(state, seat).supporters) >= limit:
        return []
    return [
        Command(CommandKind.MOBILIZE, seat, cards=(c,))
        for c in one_per_type(state.seats[seat].hand)
    ]


def train_commands(state: State, seat: Seat) -> list[Command]:
    if state.seats[seat].supply.get(WARRIOR, 0) == 0:
        return []
    hand = state.seats[seat].hand
    cards: set[str] = set()
    for b in bases_on_map(state, seat):
        cards.update(payable(hand, base_suit(b)))
    return [Command(CommandKind.TRAIN, seat, cards=(c,)) for c in one_per_type(cards)]


def daylight_commands(state: State, seat: Seat) -> list[Command]:
    return [
        *craft_commands(state, seat),
        *mobilize_commands(state, seat),
        *train_commands(state, seat),
    ]


# ----- Evening: Military Operations ---------------------------------------------------------


def operations_left(state: State, seat: Seat) -> int:
    return max(0, alliance_state(state, seat).officers - state.used.get(OPERATIONS, 0))


def operation_commands(state: State, seat: Seat) -> list[Command]:
    end = Command(CommandKind.END_PHASE, seat)
    if operations_left(state, seat) == 0:
        return [end]
    out: list[Command] = []
    out.extend(move_commands(state, seat, CommandKind.MOVE))
    # R21 (revised): never a collect: the Alliance relies on its allies to carry items
    out.extend(battle_commands(state, seat))
    out.extend(seize_commands(state, seat))  # a battle operation seizing an item (R19)
    supply = state.seats[seat].supply
    if supply.get(WARRIOR, 0) > 0:
        for c in board().order:
            if any(state.pieces[c].get(seat, {}).get(b, 0) for b in BASES):
                out.append(Command(CommandKind.RECRUIT, seat, clearing=c))
    if supply.get(SYMPATHY, 0) > 0:
        for c in board().order:
            if (
                warriors(state, c, seat)
                and not sympathetic(state, c, seat)
                and not _keep_here(state, c)
            ):
                out.append(Command(CommandKind.ORGANIZE, seat, clearing=c))
    out.append(end)
    return out


def operation(ctx: Ctx, cmd: Command) -> None:
    seat = cmd.seat
    ctx.use(seat, OPERATIONS)
    if cmd.kind is CommandKind.MOVE:
        do_move(ctx, cmd)
    elif cmd.kind is CommandKind.BATTLE:
        start_battle(ctx, seat, cmd.clearing, Seat(cmd.target))
    elif cmd.kind is CommandKind.RECRUIT:
        ctx.place(seat, cmd.clearing, WARRIOR, 1, reason="recruit")
    elif cmd.kind is CommandKind.ORGANIZE:
        remove(ctx, seat, cmd.clearing, WARRIOR, 1, seat, "organize")
        place_sympathy(ctx, seat, cmd.clearing, "organize")
    elif cmd.kind is CommandKind.SEIZE:
        do_seize(ctx, cmd)
    else:  # pragma: no cover - operation_commands offers nothing else
        raise IllegalCommand(f"{cmd.kind.value} is not a military operation")


def _evening_draw(ctx: Ctx, seat: Seat) -> None:
    ctx.draw(seat, 1 + len(bases_on_map(ctx.state, seat)))


# ----- wiring -------------------------------------------------------------------------------


def step_commands(state: State, seat: Seat, step: str) -> list[Command]:
    if step == "birdsong.actions":
        return [
            *revolt_commands(state, seat),
            *spread_commands(state, seat),
            *birdsong_commands(state, seat),
            Command(CommandKind.END_PHASE, seat),
        ]
    if step == "daylight.actions":
        return daylight_commands(state, seat)
    if step == "evening.operations":
        return operation_commands(state, seat)
    return []


def execute(ctx: Ctx, cmd: Command) -> None:
    kind = cmd.kind
    if kind is CommandKind.REVOLT:
        revolt(ctx, cmd)
    elif kind is CommandKind.SPREAD_SYMPATHY:
        spread(ctx, cmd)
    elif kind is CommandKind.MOBILIZE:
        gain_supporters(ctx, cmd.seat, cmd.cards, cmd.seat, "mobilize")
    elif kind is CommandKind.TRAIN:
        ctx.discard(cmd.seat, cmd.cards, "train")
        ctx.emit(EventKind.OFFICERS_CHANGED, seat=cmd.seat.value, amount=1, text="train")
    else:
        operation(ctx, cmd)


RULES = FactionRules(
    faction=Faction.ALLIANCE,
    supply=starting_supply,
    setup_steps=("setup.supporters",),
    turn_steps=(
        "birdsong.start",
        "birdsong.actions",
        "daylight.start",
        "daylight.actions",
        "evening.start",
        "evening.operations",
        "evening.draw",
        "evening.discard",
    ),
    enter={"setup.supporters": _setup_supporters, "evening.draw": _evening_draw},
    step_commands=step_commands,
    setup_done=setup_done,
    kinds=frozenset(
        {
            CommandKind.REVOLT,
            CommandKind.SPREAD_SYMPATHY,
            CommandKind.MOBILIZE,
            CommandKind.TRAIN,
            CommandKind.MOVE,
            CommandKind.BATTLE,
            CommandKind.RECRUIT,
            CommandKind.ORGANIZE,
            CommandKind.SEIZE,
        }
    ),
    execute=execute,
    daylight_main_step="daylight.actions",
    crafting_piece=SYMPATHY,
    decisions={
        OUTRAGE: (outrage_commands, answer_outrage),
        SUPPORTERS_LIMIT_DECISION: (supporters_limit_commands, answer_supporters_limit),
    },
    new_state=new_alliance_state,
    evolve=dict(EVOLVE),
    public_counts=public_counts,
    lost_pieces=lost_pieces,
)
