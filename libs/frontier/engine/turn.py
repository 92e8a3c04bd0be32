"""Turn order (R3), phases and steps, the 6-round limit and the end of the match (R30).

Each faction's turn is a fixed list of steps named ``phase.step``.  A step may have an
*enter* hook (automatic work such as Birdsong wood or the Evening draw) and may be
*interactive* (the active seat chooses commands until it ends the step).  ``advance`` moves
through steps, turns and rounds until some seat has a real choice to make; an interactive
step whose only legal command is END_PHASE is passed automatically.
"""

from __future__ import annotations

from collections.abc import Callable

from . import card_effects
from .crafting import craft_commands
from .ctx import Ctx
from .model import Command, CommandKind, EventKind, Faction, Seat
from .movement import ask_wings_card
from .registry import rules_for
from .state import State

HAND_LIMIT = 5
FINAL_STEP = "final"  # after the last turn of the last round, until scoring decides

# Steps every faction shares; the faction's own steps come from its FactionRules.
SHARED_ENTER: dict[str, Callable[[Ctx, Seat], None]] = {
    "birdsong.start": card_effects.offer_birdsong_start,
    "daylight.start": card_effects.offer_daylight_start,
    "evening.start": card_effects.offer_evening_start,
}


def first_setup_step(faction: Faction) -> str:
    return rules_for(faction).setup_steps[0]


def step_commands(state: State, seat: Seat) -> list[Command]:
    """Commands of the active seat in the current step (no open decision)."""
    step = state.step
    rules = rules_for(state.lineup[seat].faction)
    if step.startswith("setup."):
        return rules.step_commands(state, seat, step)
    if step == "birdsong.cards":
        return [*card_effects.birdsong_commands(state, seat), Command(CommandKind.END_PHASE, seat)]
    if step == "daylight.craft":
        return [*craft_commands(state, seat), Command(CommandKind.END_PHASE, seat)]
    if step == "evening.discard":
        hand = state.seats[seat].hand
        if len(hand) <= HAND_LIMIT:
            return []
        return [Command(CommandKind.DISCARD, seat, cards=(c,)) for c in sorted(set(hand))]
    own = rules.step_commands(state, seat, step)
    if step == rules.daylight_main_step:
        return [
            *own,
            *card_effects.daylight_commands(state, seat),
            Command(CommandKind.END_PHASE, seat),
        ]
    return own


def at_rest(state: State) -> tuple[bool, list[Command] | None]:
    """Whether :func:`advance` has nothing to do now, and the active seat's step commands
    when finding that out meant listing them.

    At rest means the match is over, or it waits for a decision, a battle, the final scoring,
    an unfinished setup step, or a choice of the active seat in its step (an interactive step
    waits while the seat has a choice other than ending it).  ``advance`` loops until this
    holds, and the orchestrator asks it to skip the turn-order round trip of a command after
    which there is nothing to advance: the same function decides both, so they cannot drift.
    The commands, when returned, are exactly ``legal_commands(state, turn_seat)``.
    """
    if state.over or state.decisions or state.battle is not None or state.step == FINAL_STEP:
        return True, None
    seat = state.turn_seat
    assert seat is not None
    if state.step.startswith("setup"):
        return not rules_for(state.lineup[seat].faction).setup_done(state, seat, state.step), None
    commands = step_commands(state, seat)
    end = CommandKind.END_PHASE
    for c in commands:
        if c.kind is not end:
            return True, commands
    return False, None


# ----- moving on ---------------------------------------------------------------------------


def goto(ctx: Ctx, seat: Seat, step: str) -> None:
    rules = rules_for(ctx.state.lineup[seat].faction)
    ctx.emit(EventKind.STEP_SET, seat=seat.value, text=step, count=rules.step_actions.get(step, 0))
    hook = SHARED_ENTER.get(step) or rules.enter.get(step)
    if hook is not None:
        hook(ctx, seat)


def advance(ctx: Ctx) -> None:
    """Run automatic steps until a seat must choose (or the match ends)."""
    state = ctx.state
    while True:
        rest, commands = at_rest(state)
        if rest:
            if commands is not None:
                assert state.turn_seat is not None
                ctx.next_legal = (state.turn_seat, state.version, commands)
            return
        seat = state.turn_seat
        assert seat is not None
        faction = state.lineup[seat].faction
        if state.step.startswith("setup"):
            _next_setup_step(ctx, seat, faction)
            continue
        steps = rules_for(faction).turn_steps
        index = steps.index(state.step)
        if index + 1 < len(steps):
            goto(ctx, seat, steps[index + 1])
        elif not ask_wings_card(ctx, seat):  # R23: the card owed to the Eyrie, if any
            _next_turn(ctx, seat)


def _next_setup_step(ctx: Ctx, seat: Seat, faction: Faction) -> None:
    steps = rules_for(faction).setup_steps
    index = steps.index(ctx.state.step)
    if index + 1 < len(steps):
        goto(ctx, seat, steps[index + 1])
    else:
        _next_setup_turn(ctx, seat)


def _next_setup_turn(ctx: Ctx, seat: Seat) -> None:
    order = ctx.state.order
    index = order.index(seat)
    if index + 1 < len(order):
        nxt = order[index + 1]
        ctx.emit(EventKind.TURN_STARTED, seat=nxt.value, count=0)
        goto(ctx, nxt, first_setup_step(ctx.state.lineup[nxt].faction))
    else:
        _start_round(ctx, 1)


def _start_round(ctx: Ctx, number: int) -> None:
    ctx.emit(EventKind.ROUND_STARTED, count=number)
    _start_turn(ctx, ctx.state.order[0])


def _start_turn(ctx: Ctx, seat: Seat) -> None:
    ctx.emit(EventKind.TURN_STARTED, seat=seat.value, count=ctx.state.round)
    goto(ctx, seat, rules_for(ctx.state.lineup[seat].faction).turn_steps[0])


def _next_turn(ctx: Ctx, seat: Seat) -> None:
    state = ctx.state
    index = state.order.index(seat)
    if index + 1 < len(state.order):
        _start_turn(ctx, state.order[index + 1])
    elif state.round >= state.options.max_rounds:
        ctx.emit(EventKind.ROUND_LIMIT_REACHED, count=state.round)
    else:
        _start_round(ctx, state.round + 1)
