"""What a faction plugs into the turn machinery and the shared rules.

A faction is a set of steps (``phase.step`` names) and a few functions.  The shared steps
(card hooks at the start of each phase, crafting, the hand limit) are run by
:mod:`frontier.engine.turn`.  Where a shared rule has a faction-specific twist (a battle
bonus, hits that damage items instead of removing pieces, what an item scores, what follows
a removal), it calls the optional hook of the faction concerned, found through
:mod:`frontier.engine.registry`: the shared rules never import a faction, so adding one is
its module(s) plus one line in :mod:`frontier.engine.roster`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..ctx import Ctx
from ..evolve_types import EvolveHandler
from ..facts import Preview
from ..model import Command, CommandKind, EventKind, Faction, Seat
from ..state import Battle, Decision, FactionState, SeatSpec, State

StepHook = Callable[[Ctx, Seat], None]
StepCommands = Callable[[State, Seat, str], list[Command]]
Execute = Callable[[Ctx, Command], None]
DecisionOptions = Callable[[State, Decision], list[Command]]
DecisionAnswer = Callable[[Ctx, Command, Decision], None]
# (ctx, owner, clearing, piece, count, remover, reason): after a removal (see the fields)
RemovalHook = Callable[[Ctx, Seat, str, str, int, Seat | None, str], None]


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
    # ----- hooks of the shared rules (None: the faction plays them as base Root) -----------
    # (state, crafter, printed VP) -> the VP a crafted item scores for this faction, when it
    # is crafted at home or validated as contraband (the Eyrie's Disdain for Trade)
    item_vp: Callable[[State, Seat, int], int] | None = None
    # (state, attacker) -> extra hits this faction deals as attacker (the Eyrie's Commander)
    attacker_extra_hits: Callable[[State, Seat], int] | None = None
    # (ctx, battle, remover): this faction removed an enemy building or token in a battle
    # (the Eyrie's Despot)
    building_removed: Callable[[Ctx, Battle, Seat], None] | None = None
    # (ctx, victim, hits, remover): this faction takes battle hits its own way instead of
    # losing pieces (the Vagabond damages items)
    take_hits: Callable[[Ctx, Seat, int, Seat | None], None] | None = None
    # (ctx, battle): this faction has just declared a battle, before the ambush (the Vagabond:
    # attacking a rival makes it Hostile, R27)
    battle_started: Callable[[Ctx, Battle], None] | None = None
    # (ctx, battle): the loot stage of a battle this faction attacked in (R28)
    loot: Callable[[Ctx, Battle], None] | None = None
    # after a seat of this faction removed some pieces of another seat (the Vagabond's
    # Hostility and Infamy, R27, R34)
    removed_by: RemovalHook | None = None
    # after pieces of a seat of this faction were removed, whoever removed them (the
    # Alliance losing a base or a sympathy token, §11, R25)
    lost_pieces: RemovalHook | None = None
    # (state, seat) -> the move Cobbler offers / the battle Command Warren offers, when this
    # faction moves or battles its own way (the Vagabond: boots and sword, R33); the commands
    # are answered through ``execute``.  None: warrior moves and battles (base Root).
    card_move_commands: Callable[[State, Seat], list[Command]] | None = None
    card_battle_commands: Callable[[State, Seat], list[Command]] | None = None
    # (state, legal command of this faction) -> its cost and certain VP when the faction's
    # rules state them without the command being played (None: play it; see score_preview)
    known_facts: Callable[[State, Command], Preview | None] | None = None
