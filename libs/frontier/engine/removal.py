"""Removing pieces from the board, and what every removal sets off.

A removal (battle hits, a Revolt, Organize, Tax Collector, a strike...) is one event, then
its consequences, in this order: the contraband of a carrier's last warrior drops (R18), an
enemy remover scores 1 VP per building or token (base Root), then the remover's faction
reacts (the Vagabond's Hostility and Infamy, R27, R34) and the owner's faction reacts (the
Alliance's base loss and Outrage, §11, R25).  The two faction reactions are hooks of
:class:`~frontier.engine.factions.base.FactionRules`, so this shared rule knows no faction.
"""

from __future__ import annotations

from .contraband import after_removal as drop_contraband
from .ctx import Ctx
from .model import EventKind, Seat
from .pieces import BUILDINGS, TOKENS, WARRIOR
from .registry import rules_for


def remove(
    ctx: Ctx, owner: Seat, clearing: str, piece: str, n: int, remover: Seat | None, reason: str
) -> None:
    """Remove ``n`` of ``owner``'s ``piece`` from ``clearing`` (``remover``: who removed
    them, None for no seat), then apply what follows (see the module docstring)."""
    if n <= 0:
        return
    state = ctx.state
    ctx.emit(
        EventKind.PIECES_REMOVED,
        seat=owner.value,
        clearing=clearing,
        piece=piece,
        count=n,
        target=remover.value if remover else "",
        text=reason,
    )
    if piece == WARRIOR and state.carried.get(clearing):  # R18: contraband drops
        drop_contraband(ctx, owner, clearing)
    if (
        remover is not None
        and remover.team is not owner.team
        and (piece in BUILDINGS or piece in TOKENS)
    ):
        ctx.score(remover, n, f"removed {piece}")
    if remover is not None:
        by = rules_for(state.lineup[remover].faction).removed_by
        if by is not None:
            by(ctx, owner, clearing, piece, n, remover, reason)
    lost = rules_for(state.lineup[owner].faction).lost_pieces
    if lost is not None:
        lost(ctx, owner, clearing, piece, n, remover, reason)
