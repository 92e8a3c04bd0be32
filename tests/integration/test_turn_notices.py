"""WatchTurns end to end: a seat is told of each of its own decisions, with its id, kind
and deadline, and of nothing another seat must decide; and the stream ends with the match."""

from __future__ import annotations

import queue
import threading

import grpc
import pytest

from frontier.engine import Seat
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc

from .client import MIRROR, Match

pytestmark = pytest.mark.integration

WAIT_S = 60.0  # how long a missing notice is waited for before the test fails


class Follower:
    """One seat's WatchTurns stream, read into a queue by a thread."""

    def __init__(self, stub: match_pb2_grpc.MatchServiceStub, match_id: str, token: str) -> None:
        self.notices: queue.Queue[match_pb2.WatchTurnsResponse] = queue.Queue()
        self.seen: list[match_pb2.WatchTurnsResponse] = []
        self.call = stub.WatchTurns(
            match_pb2.WatchTurnsRequest(match_id=match_id, seat_token=token)
        )
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for notice in self.call:
                self.notices.put(notice)
        except grpc.RpcError as exc:  # only the test's own cancel ends a stream early
            if exc.code() is not grpc.StatusCode.CANCELLED:
                raise

    def next(self) -> match_pb2.WatchTurnsResponse:
        notice = self.notices.get(timeout=WAIT_S)
        self.seen.append(notice)
        return notice


def test_a_match_played_from_turn_notices_alone_notifies_each_seat_of_its_own_decisions(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    match = Match.create(match_stub, seed=31, lineup=MIRROR)
    follow = {seat: Follower(match_stub, match.match_id, t) for seat, t in match.tokens.items()}
    asked: dict[Seat, list[str]] = {seat: [] for seat in match.tokens}
    n = 0
    while match.to_act is not None:
        seat = match.to_act
        asked[seat].append(str(match.version))
        notice = follow[seat].next()  # a seat acts only once told to
        assert notice.decision_id == str(match.version) and not notice.match_over
        assert notice.decision_version == match.version  # the expected_version to pass
        assert notice.deadline_unix_ms == 0 and notice.server_time_unix_ms > 0
        view = match_stub.GetView(
            match_pb2.GetViewRequest(match_id=match.match_id, seat_token=match.tokens[seat])
        ).view
        own = view.decision.kind if view.decision.seat == view.viewer else ""
        assert notice.kind == own
        assert notice.decision_kind == (view.decision.decision_kind if own else 0)
        match.step(n)
        n += 1
    for seat, follower in follow.items():
        last = follower.next()
        assert (
            last.match_over
            and last.winner
            == match.stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view.winner
        )
        follower.thread.join(WAIT_S)
        assert not follower.thread.is_alive()  # the stream ended with the match
        # exactly the seat's own decisions, in order, and nothing else
        assert [x.decision_id for x in follower.seen[:-1]] == asked[seat]
    assert n > 30 and all(asked.values())


def test_a_clocked_decision_carries_its_deadline(
    match_stub: match_pb2_grpc.MatchServiceStub,
) -> None:
    created = match_stub.CreateMatch(
        match_pb2.CreateMatchRequest(
            config=match_pb2.MatchConfig(
                seed=3, lineup=MIRROR, decision_budget_ms=600_000, reserve_ms=60_000
            )
        )
    )
    token = created.seats[0].token
    follower = Follower(match_stub, created.match_id, token)
    notice = follower.next()
    assert notice.deadline_unix_ms >= notice.server_time_unix_ms + 600_000
    follower.call.cancel()


@pytest.mark.parametrize(
    ("which", "code", "reason"),
    [
        ("none", grpc.StatusCode.UNAUTHENTICATED, "TOKEN_REQUIRED"),
        ("host", grpc.StatusCode.PERMISSION_DENIED, "HOST_CANNOT_ACT"),
        ("forged", grpc.StatusCode.PERMISSION_DENIED, "UNKNOWN_TOKEN"),
    ],
)
def test_turn_notices_need_a_seat_token(
    match_stub: match_pb2_grpc.MatchServiceStub,
    which: str,
    code: grpc.StatusCode,
    reason: str,
) -> None:
    created = match_stub.CreateMatch(
        match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(lineup=MIRROR))
    )
    token = {"none": "", "host": created.host_token, "forged": "x" * 32}[which]
    call = match_stub.WatchTurns(
        match_pb2.WatchTurnsRequest(match_id=created.match_id, seat_token=token)
    )
    with pytest.raises(grpc.RpcError) as exc:
        next(iter(call))
    assert exc.value.code() is code
    assert reason_in(exc.value.trailing_metadata()) == reason
