"""Persistent card effects of the standard deck (base Root §8, §14), as commands.

Timing hooks: Better Burrow Bank at the start of Birdsong, Command Warren at the start of
Daylight and Cobbler at the start of Evening are offered as decisions; Royal Claim and Stand
and Deliver! are Birdsong actions; Tax Collector and Codebreakers are once-per-Daylight
actions.  Battle effects (Armorers, Sappers, Brutal Tactics, Scouting Party) live in
:mod:`battle`.  R33: "another player" is any other seat, teammate or rival, except that Stand and
Deliver! takes only from a rival; Royal Claim counts the clearings the team rules; Cobbler's
move and Command Warren's battle are open to every faction, the Vagabond included (its own
boots move and sword battle, through the faction's hooks), and count as a move for collecting
a dropped item (R18; never the Alliance, R21) and as a battle for seizing one (R19).
"""

from __future__ import annotations

from . import rng
from .battle import battle_commands
from .battle import start as start_battle
from .board import board
from .cards import (
    BETTER_BURROW_BANK,
    COBBLER,
    CODEBREAKERS,
    COMMAND_WARREN,
    ROYAL_CLAIM,
    STAND_AND_DELIVER,
    TAX_COLLECTOR,
    in_play,
)
from .contraband import collect_commands, do_collect, do_seize, seize_commands
from .ctx import Ctx
from .field_hospitals import offer_field_hospitals
from .model import Command, CommandKind, EventKind, Faction, Seat
from .movement import do_move, move_commands
from .pieces import WARRIOR, clearings_ruled, warriors
from .registry import rules_for
from .removal import remove
from .state import Decision, State


def _others(state: State, seat: Seat) -> list[Seat]:
    return [s for s in state.order if s is not seat]


# ----- offers at the start of a phase -----------------------------------------------------


def offer_birdsong_start(ctx: Ctx, seat: Seat) -> None:
    if in_play(ctx.state, seat, BETTER_BURROW_BANK) and _others(ctx.state, seat):
        ctx.ask(seat, "better_burrow_bank")


def warren_commands(state: State, seat: Seat) -> list[Command]:
    """Command Warren's battle (R33): the faction's own battle (the Vagabond's sword), else a
    warrior battle or a seizure of a dropped item, which is a battle action (R19)."""
    hook = rules_for(state.lineup[seat].faction).card_battle_commands
    if hook is not None:
        return hook(state, seat)
    return [*battle_commands(state, seat, CommandKind.COMMAND_WARREN), *seize_commands(state, seat)]


def cobbler_commands(state: State, seat: Seat) -> list[Command]:
    """Cobbler's move (R33): the faction's own move (the Vagabond's boots), else a warrior
    move or the collection of a dropped item, which costs a move (R18) - never for the
    Alliance, whose allies carry its items (R21)."""
    faction = state.lineup[seat].faction
    hook = rules_for(faction).card_move_commands
    if hook is not None:
        return hook(state, seat)
    out = move_commands(state, seat, CommandKind.COBBLER)
    if faction is not Faction.ALLIANCE:
        out.extend(collect_commands(state, seat))
    return out


def offer_daylight_start(ctx: Ctx, seat: Seat) -> None:
    if in_play(ctx.state, seat, COMMAND_WARREN) and warren_commands(ctx.state, seat):
        ctx.ask(seat, "command_warren")


def offer_evening_start(ctx: Ctx, seat: Seat) -> None:
    if in_play(ctx.state, seat, COBBLER) and cobbler_commands(ctx.state, seat):
        ctx.ask(seat, "cobbler")


def decision_commands(state: State, d: Decision) -> list[Command]:
    seat = d.seat
    if d.kind == "better_burrow_bank":
        out = [
            Command(CommandKind.BETTER_BURROW_BANK, seat, target=o.value)
            for o in _others(state, seat)
        ]
    elif d.kind == "command_warren":
        out = warren_commands(state, seat)
    elif d.kind == "cobbler":
        out = cobbler_commands(state, seat)
    else:
        return []
    out.append(Command(CommandKind.DECLINE, seat))
    return out


def answer(ctx: Ctx, cmd: Command, d: Decision) -> None:
    ctx.close_decision()
    seat = cmd.seat
    if cmd.kind is CommandKind.DECLINE:
        ctx.emit(EventKind.DECISION_DECLINED, seat=seat.value, text=d.kind)
    elif cmd.kind is CommandKind.BETTER_BURROW_BANK:
        ctx.draw(seat, 1)
        ctx.draw(Seat(cmd.target), 1)
    elif cmd.kind is CommandKind.COMMAND_WARREN:
        start_battle(ctx, seat, cmd.clearing, Seat(cmd.target))
    elif cmd.kind is CommandKind.COBBLER:
        do_move(ctx, cmd)
    elif cmd.kind is CommandKind.COLLECT:  # R18: Cobbler's move spent on a dropped item
        do_collect(ctx, cmd)
    elif cmd.kind is CommandKind.SEIZE:  # R19: Command Warren's battle spent on one
        do_seize(ctx, cmd)
    else:  # the faction's own move or battle (the Vagabond's boots or sword, R33)
        rules_for(ctx.state.lineup[seat].faction).execute(ctx, cmd)


# ----- Birdsong and Daylight actions ------------------------------------------------------


def birdsong_commands(state: State, seat: Seat) -> list[Command]:
    out: list[Command] = []
    if in_play(state, seat, ROYAL_CLAIM):
        out.append(Command(CommandKind.ROYAL_CLAIM, seat))
    if in_play(state, seat, STAND_AND_DELIVER) and not state.used.get(STAND_AND_DELIVER):
        out.extend(
            Command(CommandKind.STAND_AND_DELIVER, seat, target=o.value)
            for o in _others(state, seat)
            # R33: a rival only (from a teammate the victim's point would be a free team point)
            if o.team is not seat.team and state.seats[o].hand
        )
    return out


def daylight_commands(state: State, seat: Seat) -> list[Command]:
    out: list[Command] = []
    if in_play(state, seat, TAX_COLLECTOR) and not state.used.get(TAX_COLLECTOR):
        out.extend(
            Command(CommandKind.TAX_COLLECTOR, seat, clearing=c)
            for c in board().order
            if warriors(state, c, seat)
        )
    if in_play(state, seat, CODEBREAKERS) and not state.used.get(CODEBREAKERS):
        out.extend(
            Command(CommandKind.CODEBREAKERS, seat, target=o.value) for o in _others(state, seat)
        )
    return out


def execute(ctx: Ctx, cmd: Command) -> None:
    state = ctx.state
    seat = cmd.seat
    if cmd.kind is CommandKind.ROYAL_CLAIM:
        cid = in_play(state, seat, ROYAL_CLAIM)
        assert cid is not None
        ctx.emit(EventKind.CARDS_DISCARDED, seat=seat.value, cards=(cid,), piece="play")
        ctx.score(seat, clearings_ruled(state, seat.team), "royal claim")
    elif cmd.kind is CommandKind.STAND_AND_DELIVER:
        victim = Seat(cmd.target)
        ctx.use(seat, STAND_AND_DELIVER)
        hand = state.seats[victim].hand
        index, _ = rng.below(state.rng, len(hand))
        ctx.give(victim, seat, (hand[index],), "stolen")
        ctx.score(victim, 1, "stand and deliver")
    elif cmd.kind is CommandKind.TAX_COLLECTOR:
        ctx.use(seat, TAX_COLLECTOR)
        remove(ctx, seat, cmd.clearing, WARRIOR, 1, seat, "tax collector")
        ctx.draw(seat, 1)
        offer_field_hospitals(ctx, seat, cmd.clearing, 1, in_battle=False)
    elif cmd.kind is CommandKind.CODEBREAKERS:
        ctx.use(seat, CODEBREAKERS)
        target = Seat(cmd.target)
        seen = tuple(sorted(state.seats[target].hand))
        ctx.emit(EventKind.HAND_REVEALED, seat=target.value, target=seat.value, cards=seen)
