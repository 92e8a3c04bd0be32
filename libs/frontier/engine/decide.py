"""The decider: ``legal_commands``, ``decide`` and ``execute``.

One source of truth for legality: ``decide`` accepts a command only if it is one of
``legal_commands(state, seat)``; it then explains a refusal with a specific reason.  The
rules run on a clone of the state through a :class:`Ctx`, so ``decide`` never mutates its
input; ``execute`` is the same path on a state the caller owns (no copy), used by the
in-process match runner.
"""

from __future__ import annotations

from collections.abc import Callable

from . import battle, card_effects, crafting, field_hospitals, movement, scoring, turn
from .ctx import Ctx, MatchEnded
from .errors import GameOver, IllegalCommand, WrongSeat
from .model import Command, CommandKind, Event, Seat
from .registry import REGISTRY, rules_for
from .state import Decision, State

_DecisionOptions = Callable[[State, Decision], list[Command]]
_DecisionAnswer = Callable[[Ctx, Command, Decision], None]

_DECISIONS: dict[str, tuple[_DecisionOptions, _DecisionAnswer]] = {
    "ambush": (battle.decision_commands, battle.answer),
    "foil": (battle.decision_commands, battle.answer),
    "battle_effects": (battle.decision_commands, battle.answer),
    "allocate_hits": (battle.decision_commands, battle.answer),
    "field_hospitals": (field_hospitals.decision_commands, field_hospitals.answer),
    "better_burrow_bank": (card_effects.decision_commands, card_effects.answer),
    "command_warren": (card_effects.decision_commands, card_effects.answer),
    "cobbler": (card_effects.decision_commands, card_effects.answer),
    movement.FEED_EYRIE: (movement.wings_decision_commands, movement.answer_wings),
}


def _decision_handlers(kind: str) -> tuple[_DecisionOptions, _DecisionAnswer]:
    handlers = _DECISIONS.get(kind)
    if handlers is None:
        for rules in REGISTRY.values():
            if kind in rules.decisions:
                return rules.decisions[kind]
        raise KeyError(f"no handler for decision {kind}")
    return handlers


def decision_kinds() -> frozenset[str]:
    """Every decision kind the engine may open: the shared rules' and each registered
    faction's.  The wire's DecisionKind enum must name each one (a unit test checks)."""
    kinds = set(_DECISIONS)
    for rules in REGISTRY.values():
        kinds.update(rules.decisions)
    return frozenset(kinds)


def to_act(state: State) -> Seat | None:
    """The seat whose answer the match waits for (None once it is over)."""
    if state.over:
        return None
    if state.decisions:
        return state.decisions[0].seat
    return state.turn_seat


def legal_commands(state: State, seat: Seat) -> list[Command]:
    """Exactly the commands ``seat`` may submit now, in a stable order."""
    if state.over or seat is not to_act(state):
        return []
    if state.decisions:
        d = state.decisions[0]
        return _decision_handlers(d.kind)[0](state, d)
    return turn.step_commands(state, seat)


_CARD_ACTIONS = frozenset(
    {
        CommandKind.ROYAL_CLAIM,
        CommandKind.STAND_AND_DELIVER,
        CommandKind.TAX_COLLECTOR,
        CommandKind.CODEBREAKERS,
    }
)


def _step_execute(ctx: Ctx, cmd: Command) -> None:
    kind = cmd.kind
    seat = cmd.seat
    rules = rules_for(ctx.state.lineup[seat].faction)
    if kind is CommandKind.END_PHASE:
        _end_step(ctx, seat)
    elif kind is CommandKind.DISCARD:
        ctx.discard(seat, cmd.cards, "hand limit")
    elif kind is CommandKind.CRAFT and kind not in rules.kinds:  # a faction may craft its way
        crafting.do_craft(ctx, cmd)
    elif kind in _CARD_ACTIONS:
        card_effects.execute(ctx, cmd)
    else:
        rules.execute(ctx, cmd)


def _end_step(ctx: Ctx, seat: Seat) -> None:
    """END_PHASE: leave the current interactive step for the next one."""
    state = ctx.state
    steps = rules_for(state.lineup[seat].faction).turn_steps
    index = steps.index(state.step)
    if index + 1 < len(steps):
        turn.goto(ctx, seat, steps[index + 1])
    else:  # pragma: no cover - the last step is never interactive with END_PHASE
        raise IllegalCommand("nothing to end")


def apply_command(ctx: Ctx, cmd: Command) -> None:
    """The owning domain's part: the command itself and what it sets off (battles...)."""
    state = ctx.state
    try:
        if state.decisions:
            d = state.decisions[0]
            _decision_handlers(d.kind)[1](ctx, cmd, d)
        else:
            _step_execute(ctx, cmd)
        battle.run(ctx)
    except MatchEnded:
        pass


def advance(ctx: Ctx) -> None:
    """The turn-order domain's part: steps, turns and rounds until a seat must choose."""
    # A plain try, not contextlib.suppress (two Python-level calls and an object): this and
    # finish run after every command.
    try:  # noqa: SIM105
        turn.advance(ctx)
    except MatchEnded:
        pass


def finish(ctx: Ctx) -> None:
    """The scoring domain's part: the result once the round limit is reached (R30)."""
    try:  # noqa: SIM105 - see advance
        scoring.finish(ctx)
    except MatchEnded:
        pass


def run(ctx: Ctx, cmd: Command) -> None:
    """Apply a command already known to be legal, then advance and score the match.

    The three parts are separate functions because the distributed server runs them in
    three services (the owning domain, turn-order, scoring); in-process they run in a row
    and must give exactly the same events.
    """
    apply_command(ctx, cmd)
    advance(ctx)
    finish(ctx)


def check(state: State, cmd: Command, legal: list[Command] | None = None) -> None:
    """Raise the specific error for a command that may not be applied now.

    ``legal`` is ``legal_commands(state, cmd.seat)`` when the caller already has it (the
    orchestrator keeps it per state version): it saves enumerating the commands again."""
    if state.over:
        raise GameOver(f"the match is over (winner: {state.winner})")
    if cmd.seat not in state.seats:
        raise WrongSeat(f"seat {cmd.seat.value} is empty in this match")
    actor = to_act(state)
    if cmd.seat is not actor:
        assert actor is not None
        waiting = state.decisions[0].kind if state.decisions else f"turn ({state.step})"
        raise WrongSeat(
            f"seat {cmd.seat.value} may not act now: waiting for {actor.value}'s {waiting}"
        )
    if legal is None:
        legal = legal_commands(state, cmd.seat)
    if cmd in legal:
        return
    kinds = sorted({c.kind.value for c in legal})
    if cmd.kind.value not in kinds:
        raise IllegalCommand(
            f"{cmd.kind.value} is not possible now; possible: {', '.join(kinds) or 'nothing'}"
        )
    raise IllegalCommand(f"illegal {cmd.key()}: {_reason(state, cmd, legal)}")


def _reason(state: State, cmd: Command, legal: list[Command]) -> str:
    same_kind = [c for c in legal if c.kind is cmd.kind]
    if cmd.clearing and not any(c.clearing == cmd.clearing for c in same_kind):
        return f"no legal {cmd.kind.value} involves clearing {cmd.clearing}"
    if cmd.to and not any(c.to == cmd.to and c.clearing == cmd.clearing for c in same_kind):
        return f"cannot go from {cmd.clearing} to {cmd.to} (adjacency or rule)"
    if cmd.cards and not any(c.cards == cmd.cards for c in same_kind):
        return f"card(s) {', '.join(cmd.cards)} cannot be used for this"
    return "the arguments do not match any legal option (see legal_commands)"


def decide(state: State, cmd: Command) -> list[Event]:
    """Validate ``cmd`` against ``state`` and return the events it causes (state untouched)."""
    check(state, cmd)
    ctx = Ctx(state.clone())
    run(ctx, cmd)
    return ctx.events


def execute(state: State, cmd: Command) -> list[Event]:
    """Like :func:`decide`, but applies the events to ``state`` itself (no copy)."""
    check(state, cmd)
    ctx = Ctx(state)
    run(ctx, cmd)
    return ctx.events


def _listed(cmd: Command, legal: list[Command]) -> bool:
    """``cmd in legal``, trying identity first: a bot returns one of the listed objects, and
    comparing it by value with every command before it costs far more than this scan."""
    for c in legal:
        if c is cmd:
            return True
    return cmd in legal


def execute_chosen(
    state: State, cmd: Command, legal: list[Command]
) -> tuple[list[Event], list[Command] | None]:
    """:func:`execute` for a command picked from ``legal`` = ``legal_commands(state, seat)``.

    Validation is the membership test against that very list (computing it again would
    give the same list), and the result carries the next seat's legal commands when the
    turn machinery already computed them (else None).  This is the in-process runner's
    fast path: it halves the legal-command enumerations per command.
    """
    if not _listed(cmd, legal):
        check(state, cmd)  # raises the specific error
    ctx = Ctx(state)
    run(ctx, cmd)
    cached = ctx.next_legal
    if cached is not None and cached[1] == state.version and cached[0] is to_act(state):
        return ctx.events, cached[2]
    return ctx.events, None
