"""The state before the first command: seeded board, deck and hands (R5, R9, R10, R11).

Everything random about the start of a match is drawn here from the match seed, in a fixed
order, so ``initial_state(config)`` is a pure function of the config.
"""

from __future__ import annotations

from . import rng
from .board import MAPS, WINTER, board, raw_data
from .cards import deck_ids
from .config import MatchConfig
from .ctx import Ctx
from .model import Faction, Item, Seat, Suit, Team
from .registry import rules_for
from .state import SeatState, State
from .turn import advance
from .vagabond_state import quests

STARTING_HAND = 3
FACE_UP_QUESTS = 3
RUIN_ITEMS: tuple[Item, ...] = (Item.BAG, Item.BOOTS, Item.HAMMER, Item.SWORD) * 2  # R9


def map_stock() -> dict[Item, int]:
    """R10: each map has the standard 12-item crafting stock."""
    raw = raw_data()["items"]["map_item_supply_at_start"]
    return {Item(k): int(v) for k, v in raw.items()}


def initial_state(config: MatchConfig) -> State:
    b = board()
    lineup = config.seats()
    state_rng = rng.seed_state(config.seed)

    suits: dict[str, str] = {}
    for cid in b.order:
        printed = b.clearings[cid].printed_suit
        if printed is not None:
            suits[cid] = printed.value
    markers = [Suit.FOX.value] * 4 + [Suit.RABBIT.value] * 4 + [Suit.MOUSE.value] * 4
    markers, state_rng = rng.shuffled(markers, state_rng)  # R5: Winter suit markers
    for cid, suit in zip(b.on_map(WINTER), markers, strict=True):
        suits[cid] = suit

    ruin_clearings = [c for c in b.order if b.clearings[c].ruin]
    ruin_items, state_rng = rng.shuffled(RUIN_ITEMS, state_rng)
    ruins = {c: [item] for c, item in zip(ruin_clearings, ruin_items, strict=True)}

    deck, state_rng = rng.shuffled(deck_ids(), state_rng)
    # One quest deck shared by both Vagabonds, 3 quests face up (base Root §12.1).  Drawn
    # last, and only when a Vagabond plays, so lineups without one keep their old seeds.
    quest_deck: list[str] = []
    face_up: list[str] = []
    if any(spec.faction is Faction.VAGABOND for spec in lineup.values()):
        quest_deck, state_rng = rng.shuffled(list(quests()), state_rng)
        face_up = [quest_deck.pop() for _ in range(FACE_UP_QUESTS)]
    order = tuple(s for s in Seat if s in lineup)
    seats: dict[Seat, SeatState] = {}
    for seat in order:
        spec = lineup[seat]
        hand = [deck.pop() for _ in range(STARTING_HAND)]
        seats[seat] = SeatState(
            seat=seat,
            faction=spec.faction,
            character=spec.character,
            hand=hand,
            supply=rules_for(spec.faction).supply(spec),
            extra=rules_for(spec.faction).new_state(spec),
        )

    state = State(
        lineup=lineup,
        options=config.options(),
        order=order,
        rng=state_rng,
        suits=suits,
        seats=seats,
        pieces={c: {} for c in b.order},
        deck=deck,
        discard=[],
        stock={m: map_stock() for m in MAPS},
        ruins=ruins,
        scores={Team.A: 0, Team.B: 0},
        turn_seat=order[0],
        step=rules_for(lineup[order[0]].faction).setup_steps[0],
        quests=face_up,
        quest_deck=quest_deck,
    )
    _enter_first_step(state)
    return state


def _enter_first_step(state: State) -> None:
    """Run the automatic work of the very first setup step (e.g. the Alliance's supporters),
    then move on to the first real choice.

    Every later step is entered by a command; the first one is not, so its work is part of
    constructing the initial state, like dealing the starting hands.  Its events are folded
    in here and are not part of the match's event stream (the version stays 0).
    """
    seat = state.order[0]
    hook = rules_for(state.lineup[seat].faction).enter.get(state.step)
    if hook is not None:
        ctx = Ctx(state)
        hook(ctx, seat)
        advance(ctx)  # a step with nothing to choose must not wait for a command
        state.version = 0
