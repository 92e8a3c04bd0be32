"""The Vagabond in battle and under removals: the hooks the shared rules call through the
registry (base Root §12.3, §12.1, R27, R28, R34).

Its hits damage items instead of removing pieces, a Looting that dealt a hit takes a crafted
item, removing a rival's warrior makes that rival Hostile and pieces of a Hostile rival
score Infamy, and an effect that removes every rival piece where the pawn stands damages 3
items.  The battle's own stages for it (caps, the reroll, intervention) are queries of
:mod:`frontier.engine.vagabond_state`.
"""

from __future__ import annotations

from ..ctx import Ctx
from ..model import EventKind, Seat
from ..pieces import (
    WARRIOR,
)
from ..state import Battle
from ..vagabond_state import (
    DAMAGE_DECISION,
    HOSTILE,
    LOOT_DECISION,
    effective_hits_to_defender,
    keys,
    vagabond,
    vstate,
)

FULL_REMOVAL_DAMAGE = 3
MADE_HOSTILE = "made_hostile"  # Battle.effects_used: this battle made its defender Hostile


def battle_started(ctx: Ctx, b: Battle) -> None:
    """R27 (revised): attacking a rival faction makes it Hostile, even if no warrior falls
    ("attacks or removes"); nothing removed in that battle scores Infamy."""
    attacker, defender = b.attacker, b.defender
    if defender.team is attacker.team:
        return
    if vstate(ctx.state, attacker).relations.get(defender.value) == HOSTILE:
        return
    ctx.emit(
        EventKind.RELATIONSHIP_CHANGED,
        seat=attacker.value,
        target=defender.value,
        text=HOSTILE,
        piece="battle",
    )


def take_hits(ctx: Ctx, seat: Seat, hits: int, remover: Seat | None) -> None:
    """Each hit damages one undamaged item of the Vagabond's choice; extra hits are lost.

    The choice is asked (DAMAGE_ITEM) one hit at a time only when it is real: two or more
    kinds of undamaged item and fewer hits than undamaged items.
    """
    vs = vstate(ctx.state, seat)
    while hits > 0:
        undamaged_items = [it for it in vs.items if not it.damaged]
        choices = keys(undamaged_items)
        if not choices:
            return
        if len(choices) > 1 and hits < len(undamaged_items):
            ctx.ask(seat, DAMAGE_DECISION, count=hits, target=remover.value if remover else "")
            return
        ctx.emit(EventKind.ITEM_DAMAGED, seat=seat.value, piece=choices[0])
        hits -= 1


def removed_by(
    ctx: Ctx, owner: Seat, clearing: str, piece: str, n: int, remover: Seat | None, reason: str
) -> None:
    """R27 Hostility and R34 Infamy, after ``remover`` removed ``n`` of ``owner``'s pieces.

    Removing a rival warrior makes that rival Hostile for good.  In a battle on the
    Vagabond's own turn it scores +1 VP per piece of a Hostile rival it removes, except the
    warrior whose removal made that rival Hostile and every piece removed in the battle whose
    attack made it Hostile (R27).
    """
    if remover is None or owner.team is remover.team:
        return
    vs = vagabond(ctx.state, remover)
    if vs is None:
        return
    infamous = n if vs.relations.get(owner.value) == HOSTILE else 0
    if piece == WARRIOR and not infamous:
        ctx.emit(
            EventKind.RELATIONSHIP_CHANGED, seat=remover.value, target=owner.value, text=HOSTILE
        )
        infamous = n - 1
    b = ctx.state.battle
    if b is not None and f"{remover.value}:{MADE_HOSTILE}" in b.effects_used:
        infamous = 0
    if reason == "battle" and ctx.state.turn_seat is remover and infamous > 0:
        ctx.score(remover, infamous, "infamy")


def loot(ctx: Ctx, b: Battle) -> None:
    """R28: a looting Vagabond that dealt at least 1 hit takes one of the defender's crafted
    items into its Satchel (asked when there is a choice)."""
    if effective_hits_to_defender(b) < 1:
        return
    items = sorted({i.value for i in ctx.state.seats[b.defender].crafted_items})
    if len(items) > 1:
        ctx.ask(b.attacker, LOOT_DECISION, target=b.defender.value, clearing=b.clearing)
    elif items:
        ctx.emit(
            EventKind.ITEM_GAINED,
            seat=b.attacker.value,
            piece=items[0],
            target=b.defender.value,
            clearing=b.clearing,
            text="loot",
        )


def full_removal(ctx: Ctx, seat: Seat, clearing: str, remover: Seat) -> None:
    """An effect removed every rival piece where the pawn stands (a Revolt): 3 items are
    damaged instead, since the pawn cannot be removed (base Root §12.1)."""
    if vstate(ctx.state, seat).location == clearing:
        take_hits(ctx, seat, FULL_REMOVAL_DAMAGE, remover)
