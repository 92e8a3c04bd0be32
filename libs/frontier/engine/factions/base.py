"""What a faction plugs into the turn machinery.

A faction is a set of steps (``phase.step`` names) and a few functions.  The shared steps
(card hooks at the start of each phase, crafting, the hand limit) are run by
:mod:`frontier.engine.turn`; everything specific to a faction is here, so adding a faction
is one module plus one registry line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..ctx import Ctx
from ..evolve_types import EvolveHandler
from ..model import Command, CommandKind, EventKind, Faction, Seat
from ..state import Decision, FactionState, SeatSpec, State

StepHook = Callable[[Ctx, Seat], None]
StepCommands = Callable[[State, Seat, str], list[Command]]
Execute = Callable[[Ctx, Command], None]
DecisionOptions = Callable[[State, Decision], list[Command]]
DecisionAnswer = Callable[[Ctx, Command, Decision], None]


@dataclass(frozen=True)
class FactionRules:
    faction: Faction
    supply: Callable[[SeatSpec], dict[str, int]]
    setup_steps: tuple[str, ...]
    turn_steps: tuple[str, ...]
    # step -> automatic work done on entering the step
    enter: dict[str, StepHook]
    # commands of this faction's own interactive steps ([] for steps it does not own)
    step_commands: StepCommands
    # is this setup step complete?
    setup_done: Callable[[State, Seat, str], bool]
    # the command kinds this faction executes, and how
    kinds: frozenset[CommandKind]
    execute: Execute
    # the step where once-per-Daylight card actions (Tax Collector, Codebreakers) are offered
    daylight_main_step: str
    # the crafting piece kind ('' when the faction crafts otherwise)
    crafting_piece: str = ""
    # actions granted on entering a step
    step_actions: dict[str, int] = field(default_factory=dict)
    # faction-specific decisions: kind -> (options, answer)
    decisions: dict[str, tuple[DecisionOptions, DecisionAnswer]] = field(default_factory=dict)
    # the faction's own per-seat data, created at match start (None: it needs none)
    new_state: Callable[[SeatSpec], FactionState | None] = lambda spec: None
    # how this faction's own event kinds change the state
    evolve: dict[EventKind, EvolveHandler] = field(default_factory=dict)
    # public facts of the faction board that live in the state rather than in ``extra``
    # (e.g. the Alliance's bases left), merged into the seat's public ``faction_state`` view
    public_counts: Callable[[State, Seat], dict[str, object]] | None = None
    # (ctx, seat, clearing, remover): ``remover`` removed every piece of ``seat``'s team in
    # ``clearing`` (a Revolt).  The Vagabond's hook damages 3 items when its pawn is there
    # (§12.1); it must do nothing when the faction has nothing in the clearing.
    full_removal: Callable[[Ctx, Seat, str, Seat], None] | None = None
