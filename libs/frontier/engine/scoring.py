"""Victory (R30): the immediate 90-point win lives in :meth:`Ctx.score`; this module decides
the result once the round limit is reached: score, then clearings ruled on the mega-map, then
warriors on the board, then a draw.  It is the scoring domain's part of every command.
"""

from __future__ import annotations

from .ctx import Ctx
from .model import Team
from .pieces import clearings_ruled, warriors_on_board
from .turn import FINAL_STEP


def finish(ctx: Ctx) -> None:
    """If the last round is over, end the match with R30's tie-breaks (else do nothing)."""
    if ctx.state.step == FINAL_STEP and not ctx.state.over:
        final_result(ctx)


def final_result(ctx: Ctx) -> None:
    """R30 after the last round: score, then clearings ruled, then warriors, then a draw."""
    state = ctx.state
    keys = {
        "score": (state.scores[Team.A], state.scores[Team.B]),
        "clearings ruled": (clearings_ruled(state, Team.A), clearings_ruled(state, Team.B)),
        "warriors": (warriors_on_board(state, Team.A), warriors_on_board(state, Team.B)),
    }
    for reason, (a, b) in keys.items():
        if a != b:
            ctx.end("A" if a > b else "B", f"round limit: {reason}")
    ctx.end("draw", "round limit: tie")
