"""A competitive match with a spectator delay, through the real services: its seats play on
the present while every reader without a seat -- spectators, the host token, ListMatches,
a replay asked for meanwhile -- sees it as it was set up, until the delay has passed (an
hour here, so nothing is released while the test runs; the release itself is tested with a
clock the test moves in tests/unit/orchestrator/test_spectator_delay.py)."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest

from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2

from .client import MIRROR, summary_of

A1 = types_pb2.SEAT_A1

pytestmark = pytest.mark.integration

HOUR = 3600


def _play(stub: match_pb2_grpc.MatchServiceStub, match_id: str, tokens: dict[Any, str]) -> int:
    """Each seat's first legal command until six are played; the match's version after."""
    version = 0
    for _ in range(6):
        view = stub.GetView(match_pb2.GetViewRequest(match_id=match_id, seat_token=tokens[A1]))
        token = tokens[view.view.to_act]
        legal = stub.ListLegalCommands(
            match_pb2.ListLegalCommandsRequest(match_id=match_id, seat_token=token)
        )
        reply = stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=match_id,
                seat_token=token,
                command_id=f"c{version}",
                expected_version=legal.version,
                legal_id=legal.commands[0].id,
            )
        )
        version = reply.version
    return version


def test_readers_without_a_seat_see_the_match_as_it_was_set_up(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    config = match_pb2.MatchConfig(seed=5, lineup=MIRROR, spectator_delay_s=HOUR)
    created = match_stub.CreateMatch(match_pb2.CreateMatchRequest(config=config))
    tokens = {s.seat: s.token for s in created.seats}
    played = _play(match_stub, created.match_id, tokens)
    assert played > 0
    match_id = created.match_id
    seat = match_stub.GetView(match_pb2.GetViewRequest(match_id=match_id, seat_token=tokens[A1]))
    assert seat.view.version == played  # the seats play on the present
    for token in ("", created.host_token):
        shown = match_stub.GetView(match_pb2.GetViewRequest(match_id=match_id, seat_token=token))
        assert shown.view.version == 0 and json.loads(shown.view.json)["version"] == 0
    summary = summary_of(match_stub, match_id)
    assert (summary.version, summary.score_a, summary.score_b) == (0, 0, 0)
    replay = json.loads(
        match_stub.ExportReplay(match_pb2.ExportReplayRequest(match_id=match_id)).json
    )
    assert replay["version"] == 0 and replay["batches"] == []
    seat_replay = json.loads(
        match_stub.ExportReplay(
            match_pb2.ExportReplayRequest(match_id=match_id, seat_token=tokens[A1])
        ).json
    )
    assert seat_replay["version"] == played and seat_replay["batches"]
    info = match_stub.GetMatchInfo(match_pb2.GetMatchInfoRequest(match_id=match_id))
    assert info.info.spectator_delay_s == HOUR
    assert list(info.seat_records) == []  # how many answers so far would tell too much


def test_a_delay_over_an_hour_is_refused(match_stub: match_pb2_grpc.MatchServiceStub) -> None:
    config = match_pb2.MatchConfig(lineup=MIRROR, spectator_delay_s=HOUR + 1)
    with pytest.raises(grpc.RpcError) as refused:
        match_stub.CreateMatch(match_pb2.CreateMatchRequest(config=config))
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert reason_in(refused.value.trailing_metadata()) == "MALFORMED"
