"""The static-data calls of MatchService: ``GetGameData`` and ``GetMatchInfo``.

Why a module of their own: they read, never write, and need nothing of the commit path;
keeping them here leaves the servicer's command and stream handlers untouched.  The game
data is the same for every match (built once, :func:`frontier.wire.game_data.game_data`);
a match's facts come from its hosted state (the seeded suits), its config and its record
on the bus (whether the creator fixed the seed), and its opening position is the engine's
view of ``initial_state(config)`` for the caller.  Neither ever shows the seed itself.
"""

from __future__ import annotations

from frontier.engine import Seat, initial_state
from frontier.engine.view import view
from frontier.v1 import game_data_pb2, match_pb2
from frontier.wire.game_data import game_data, match_info
from frontier.wire.view import view_to_proto

from .core import Orchestrator
from .hosted_match import HostedMatch
from .match_summary import seat_statuses
from .seat_records import seat_record


def game_data_response() -> match_pb2.GetGameDataResponse:
    return match_pb2.GetGameDataResponse(data=game_data())


async def match_info_response(
    core: Orchestrator, hosted: HostedMatch, viewer: Seat | None
) -> match_pb2.GetMatchInfoResponse:
    clock = hosted.clock
    info = match_info(
        hosted.match_id,
        hosted.config,
        hosted.state.suits,
        seed_fixed=hosted.seed_fixed,
        clock=game_data_pb2.MatchInfo(
            decision_budget_ms=clock.budget_ms,
            reserve_ms=clock.reserve_ms,
            strike_limit=clock.strike_limit,
            takeover_bot=clock.takeover_bot,
            spectator_delay_s=clock.spectator_delay_s,
        ),
    )
    # the setup is a pure function of the config: rebuilt, never kept, and viewed like any
    # other state, so the opening deal shows the caller exactly what GetView showed then
    initial = view_to_proto(view(initial_state(hosted.config), viewer))
    initial.seed_fixed = hosted.seed_fixed
    return match_pb2.GetMatchInfoResponse(
        info=info,
        initial_view=initial,
        seat_records=seat_records(hosted, viewer),
        seats=seat_statuses(hosted.state.order, hosted.seats, hosted.taken_over()),
    )


def seat_records(hosted: HostedMatch, viewer: Seat | None) -> list[match_pb2.SeatPlayRecord]:
    """Every filled seat's play so far, as ``viewer`` may see it (see seat_records.py); none
    for a reader without a seat while a delayed match is played (its answers so far would
    tell what the delay holds back)."""
    if viewer is None and hosted.delay is not None and not hosted.ended:
        return []
    records = []
    for seat in hosted.state.lineup:
        clock = hosted.clock_of(seat)
        play = hosted.plays.get(seat)
        records.append(seat_record(seat, play, clock.strikes, clock.taken_over, viewer))
    return records
