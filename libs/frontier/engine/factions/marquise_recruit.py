"""The Marquise's Recruit action (base Root §9.5.3): a warrior at each recruiter.

With fewer warriors in supply than recruiters on the map, the Marquise places what is left
and chooses which recruiters get one (Law 1.5.4, 6.5.3: "the player taking their turn
chooses").  The choice is a decision like the allocation of hits (``allocate_hits``): the
``recruit`` decision holds the warriors still to place (``count``) and offers one RECRUIT
command per clearing whose recruiters may still take one (``Command.clearing``); each answer
places one warrior there, and the last warriors go without asking when only one clearing
can take them.  How many went where during this action is a per-turn counter, so a clearing
with two recruiters takes at most two.
"""

from __future__ import annotations

from ..ctx import Ctx
from ..model import Command, CommandKind, Seat
from ..pieces import RECRUITER, WARRIOR, clearings_with, count
from ..state import Decision, State

RECRUIT_DECISION = "recruit"


def _placed_key(clearing: str) -> str:
    return f"recruited:{clearing}"


def open_recruiters(state: State, seat: Seat) -> dict[str, int]:
    """Recruiters per clearing that have not yet had their warrior in this action."""
    out: dict[str, int] = {}
    for c in clearings_with(state, seat, RECRUITER):
        n = count(state, c, seat, RECRUITER) - state.used.get(_placed_key(c), 0)
        if n > 0:
            out[c] = n
    return out


def recruit(ctx: Ctx, seat: Seat) -> None:
    """Place a warrior at every recruiter, or ask which ones get the warriors left."""
    _place(ctx, seat, ctx.state.seats[seat].supply.get(WARRIOR, 0))


def _place(ctx: Ctx, seat: Seat, left: int) -> None:
    state = ctx.state
    spots = open_recruiters(state, seat)
    if left <= 0 or not spots:
        return
    if len(spots) > 1 and left < sum(spots.values()):
        ctx.ask(seat, RECRUIT_DECISION, count=left)
        return
    for c, n in spots.items():  # board order (clearings_with); every one of them gets its own
        k = min(n, left)
        ctx.place(seat, c, WARRIOR, k, reason="recruit")
        left -= k


def decision_commands(state: State, d: Decision) -> list[Command]:
    return [
        Command(CommandKind.RECRUIT, d.seat, clearing=c) for c in open_recruiters(state, d.seat)
    ]


def answer(ctx: Ctx, cmd: Command, d: Decision) -> None:
    ctx.close_decision()
    ctx.use(cmd.seat, _placed_key(cmd.clearing))
    ctx.place(cmd.seat, cmd.clearing, WARRIOR, 1, reason="recruit")
    _place(ctx, cmd.seat, d.count - 1)
