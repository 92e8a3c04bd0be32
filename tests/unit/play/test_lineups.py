"""R1/R2: any valid lineup plays to its end, including ones that leave seats empty."""

from __future__ import annotations

import pytest

from frontier.bots import RandomBot
from frontier.engine import Seat, initial_state, make_config
from frontier.play.match_runner import play_match

LINEUPS = [
    "A=marquise;B=marquise",
    "A=,alliance;B=,alliance",  # the first seat's setup is automatic (supporters)
    "A=,eyrie;B=marquise",
    "A=,,thief;B=,,tinker",
    "A=marquise,alliance,ranger;B=,eyrie,thief",
    "A=marquise,eyrie,thief;B=marquise,alliance,tinker",
]


@pytest.mark.parametrize("lineup", LINEUPS)
def test_R2_lineups_with_empty_seats_play_to_the_end(lineup: str) -> None:
    config = make_config(seed=7, lineup=lineup)
    bots = {seat: RandomBot(i) for i, seat in enumerate(Seat)}
    result = play_match(config, bots)
    assert result.winner in {"A", "B", "draw"}
    assert result.rounds <= 6


def test_R2_first_seat_automatic_setup_is_part_of_the_initial_state() -> None:
    state = initial_state(make_config(seed=1, lineup="A=,alliance;B=,alliance"))
    assert state.version == 0  # nothing of the construction is in the event stream
    # A2's setup (drawing 3 supporters) needs no choice, so it is already done
    supporters = state.seats[Seat.A2].extra
    assert supporters is not None and len(supporters.private_view()["supporters"]) == 3
