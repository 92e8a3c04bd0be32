"""Reissued seat tokens and bots playing for a person (seat_links.py), ruling by ruling.

A real :class:`Orchestrator` over a bus that keeps the match record in memory (its
compare-and-set is a plain replace here), with one hosted match of six seats: A1 held by
the host, B1 claimed by an invitee, A2 open, B2 a bot from the start, A3 and B3 the host's.
Every refusal must leave both the record and the hosted match as they were.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from frontier.engine import Seat, initial_state, make_config, to_act
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.orchestrator.checks import check_not_taken_over
from frontier.orchestrator.core import Orchestrator
from frontier.orchestrator.decisions import automatic, bot_name
from frontier.orchestrator.hosted_match import HostedMatch
from frontier.orchestrator.match_summary import seat_statuses
from frontier.orchestrator.referee import BUILT_IN_BOT
from frontier.runtime.errors import ServiceError
from frontier.store.matches import token_hash
from frontier.store.seats import SeatArrangement
from frontier.store.snapshot import SeatClock, decode
from frontier.v1 import match_pb2, types_pb2

MATCH = "0123456789abcdef0123456789abcdef"
HOST = "host-token-" + "h" * 30
A1_TOKEN = "a1-token-" + "a" * 30
B1_TOKEN = "b1-token-" + "b" * 30
NEW = "N" * 43  # a token the client drew


class _Bus:
    """The match record and its snapshots in memory."""

    def __init__(self, record: dict[str, object]) -> None:
        self.record = record
        self.snapshots: dict[str, bytes] = {}
        self.writes = 0

    async def update_match(
        self, match_id: str, change: Callable[[dict[str, object]], None]
    ) -> dict[str, object]:
        record: dict[str, object] = json.loads(json.dumps(self.record))
        change(record)
        self.record = record
        self.writes += 1
        return record

    async def put_snapshot(self, match_id: str, blob: bytes) -> None:
        self.snapshots[match_id] = blob

    async def get_match(self, match_id: str) -> dict[str, object] | None:
        return self.record if match_id == MATCH else None


class _Session:
    def __init__(self) -> None:
        self.closed: grpc.StatusCode | None = None
        self.poked = 0

    def on_commit(self, *args: Any) -> None:
        pass

    def poke(self) -> None:
        self.poked += 1

    def close(self, code: grpc.StatusCode, reason: str) -> None:
        self.closed = code


@pytest.fixture
def orch() -> Orchestrator:
    config = make_config(seed=5, lineup=R2_DEFAULT_LINEUP)
    seats = SeatArrangement(
        invites={"inv-b1": Seat.B1.value, "inv-a2": Seat.A2.value},
        claimed={"inv-b1"},
        bots={Seat.B2.value: "random"},
        host_hash=token_hash(HOST),
    )
    tokens = {token_hash(A1_TOKEN): "A1", token_hash(B1_TOKEN): "B1"}
    for seat in (Seat.A3, Seat.B3):
        tokens[token_hash(f"{seat.value}-token-" + "x" * 30)] = seat.value
    bus = _Bus({"tokens": dict(tokens), **seats.as_record()})
    core = Orchestrator(bus, None, snapshot_every=100)  # type: ignore[arg-type]
    hosted = HostedMatch(MATCH, config, initial_state(config), 0, dict(tokens), {}, seats=seats)
    core.host.matches[MATCH] = hosted
    started: list[HostedMatch] = []
    core.decisions.ensure_referee = started.append  # type: ignore[method-assign,assignment]
    return core


def _hosted(orch: Orchestrator) -> HostedMatch:
    return orch.host.matches[MATCH]


def _bus(orch: Orchestrator) -> _Bus:
    bus: _Bus = orch.bus  # type: ignore[assignment]
    return bus


async def _refused(orch: Orchestrator, call: Any) -> ServiceError:
    """The refusal of ``call``, which must have changed nothing."""
    hosted = _hosted(orch)
    before = (
        copy.deepcopy(_bus(orch).record),
        dict(hosted.seat_by_token_hash),
        copy.deepcopy(hosted.seats),
        dict(hosted.clocks),
    )
    with pytest.raises(ServiceError) as caught:
        await call
    after = (_bus(orch).record, hosted.seat_by_token_hash, hosted.seats, hosted.clocks)
    assert after == before
    return caught.value


async def test_a_seat_reissues_its_own_token_and_the_old_one_stops_at_once(
    orch: Orchestrator,
) -> None:
    seat, token = await orch.seat_links.reissue(MATCH, B1_TOKEN, "", None)
    assert seat is Seat.B1 and token != B1_TOKEN
    hosted = _hosted(orch)
    assert orch.seat_for(hosted, token) is Seat.B1
    with pytest.raises(ServiceError) as old:
        orch.seat_for(hosted, B1_TOKEN)
    assert (old.value.code, old.value.reason) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "TOKEN_REISSUED",
    )
    record = _bus(orch).record
    assert record["tokens"] == {h: s for h, s in hosted.seat_by_token_hash.items()}
    assert token_hash(token) in record["tokens"]
    assert B1_TOKEN not in json.dumps(record) and token not in json.dumps(record)  # hashes only
    assert record["retired"] == {token_hash(B1_TOKEN): "B1"}


async def test_the_host_reissues_a_person_held_seat(orch: Orchestrator) -> None:
    seat, token = await orch.seat_links.reissue(MATCH, "", HOST, Seat.A1, NEW)
    assert (seat, token) == (Seat.A1, NEW)
    assert orch.seat_for(_hosted(orch), NEW) is Seat.A1
    with pytest.raises(ServiceError):
        orch.seat_for(_hosted(orch), A1_TOKEN)


async def test_a_retried_reissue_with_its_drawn_token_succeeds_without_a_change(
    orch: Orchestrator,
) -> None:
    await orch.seat_links.reissue(MATCH, B1_TOKEN, "", None, NEW)
    writes = _bus(orch).writes
    # the reply was lost: the retry still sends the old (now retired) token
    again = await orch.seat_links.reissue(MATCH, B1_TOKEN, "", None, NEW)
    assert again == (Seat.B1, NEW) and _bus(orch).writes == writes
    assert orch.seat_for(_hosted(orch), NEW) is Seat.B1


async def test_reissue_closes_a_bot_stream_of_the_old_token(orch: Orchestrator) -> None:
    session = _Session()
    _hosted(orch).attach(Seat.B1, session)
    await orch.seat_links.reissue(MATCH, B1_TOKEN, "", None)
    assert session.closed is grpc.StatusCode.PERMISSION_DENIED


@pytest.mark.parametrize(
    ("seat_token", "host_token", "seat", "new_token", "code", "reason"),
    [
        ("", "", None, "", grpc.StatusCode.UNAUTHENTICATED, "TOKEN_REQUIRED"),
        ("nobody", "", None, "", grpc.StatusCode.PERMISSION_DENIED, "UNKNOWN_TOKEN"),
        (HOST, "", None, "", grpc.StatusCode.PERMISSION_DENIED, "HOST_CANNOT_ACT"),
        (B1_TOKEN, "", Seat.A1, "", grpc.StatusCode.PERMISSION_DENIED, "WRONG_SEAT"),
        ("", "not-the-host", Seat.A1, "", grpc.StatusCode.PERMISSION_DENIED, "NOT_HOST"),
        ("", HOST, None, "", grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED"),
        ("", HOST, Seat.A2, "", grpc.StatusCode.FAILED_PRECONDITION, "SEAT_HAS_NO_PLAYER"),
        ("", HOST, Seat.B2, "", grpc.StatusCode.FAILED_PRECONDITION, "SEAT_HAS_NO_PLAYER"),
        (B1_TOKEN, HOST, None, "", grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED"),
        (B1_TOKEN, "", None, "short", grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED"),
        (B1_TOKEN, "", None, "bad chars!" * 4, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED"),
        (B1_TOKEN, "", None, HOST, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED"),
        (B1_TOKEN, "", None, A1_TOKEN, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED"),
    ],
)
async def test_every_bad_reissue_is_refused_and_changes_nothing(
    orch: Orchestrator,
    seat_token: str,
    host_token: str,
    seat: Seat | None,
    new_token: str,
    code: grpc.StatusCode,
    reason: str,
) -> None:
    refusal = await _refused(
        orch, orch.seat_links.reissue(MATCH, seat_token, host_token, seat, new_token)
    )
    assert (refusal.code, refusal.reason) == (code, reason)


async def test_nothing_changes_hands_in_an_unknown_or_ended_match(orch: Orchestrator) -> None:
    unknown = await _refused(orch, orch.seat_links.reissue("f" * 32, B1_TOKEN, "", None))
    assert unknown.reason == "MATCH_NOT_FOUND"
    unknown = await _refused(orch, orch.seat_links.give_back("nope", HOST, Seat.A1))
    assert unknown.reason == "MATCH_NOT_FOUND"
    _hosted(orch).abandoned = True
    for call in (
        orch.seat_links.reissue(MATCH, B1_TOKEN, "", None),
        orch.seat_links.play_for(MATCH, HOST, Seat.A1, "random"),
        orch.seat_links.give_back(MATCH, HOST, Seat.A1),
    ):
        assert (await _refused(orch, call)).reason == "MATCH_ABANDONED"


async def test_a_bot_plays_a_claimed_seat_and_the_person_reads_but_cannot_act(
    orch: Orchestrator,
) -> None:
    hosted = _hosted(orch)
    session = _Session()
    hosted.attach(Seat.B1, session)
    await orch.seat_links.play_for(MATCH, HOST, Seat.B1, "random")
    assert _bus(orch).record["standins"] == {"B1": "random"}
    assert automatic(hosted, Seat.B1) == BUILT_IN_BOT and bot_name(hosted, Seat.B1) == "random"
    assert session.poked == 1  # its bot stream looks again: nothing waits for it now
    assert orch.viewer_for(hosted, B1_TOKEN) is Seat.B1  # the person still reads the view
    with pytest.raises(ServiceError) as refused:
        check_not_taken_over(hosted, Seat.B1)
    assert refused.value.reason == "SEAT_PLAYED_BY_BOT"
    entry = _status(hosted, Seat.B1)
    assert entry.status == match_pb2.SEAT_STATUS_BOT_FOR_PLAYER and entry.bot == "random"
    assert entry.holder == match_pb2.SEAT_STATUS_CLAIMED


async def test_a_bot_plays_the_hosts_seat_with_its_holder_shown(orch: Orchestrator) -> None:
    await orch.seat_links.play_for(MATCH, HOST, Seat.A1, "")
    entry = _status(_hosted(orch), Seat.A1)
    assert entry.status == match_pb2.SEAT_STATUS_BOT_FOR_PLAYER and entry.bot == "greedy"
    assert entry.holder == match_pb2.SEAT_STATUS_HOST


async def test_giving_back_stops_the_bot_and_the_pending_decision_stays(
    orch: Orchestrator,
) -> None:
    hosted = _hosted(orch)
    assert to_act(hosted.state) is Seat.A1  # the host's seat opens the match
    session = _Session()
    hosted.attach(Seat.A1, session)
    await orch.seat_links.play_for(MATCH, HOST, Seat.A1, "random")
    version = hosted.state.version
    await orch.seat_links.give_back(MATCH, HOST, Seat.A1)
    assert _bus(orch).record["standins"] == {}
    assert automatic(hosted, Seat.A1) is None
    check_not_taken_over(hosted, Seat.A1)  # the person may act again
    assert hosted.state.version == version and to_act(hosted.state) is Seat.A1
    assert orch.seat_for(hosted, A1_TOKEN) is Seat.A1
    assert session.poked == 2  # its bot stream is asked for the open decision again


async def test_giving_back_a_taken_over_seat_clears_the_takeover_durably(
    orch: Orchestrator,
) -> None:
    hosted = _hosted(orch)
    hosted.clocks[Seat.A1] = SeatClock(500, 3, True)
    assert _status(hosted, Seat.A1).status == match_pb2.SEAT_STATUS_TAKEN_OVER
    await orch.seat_links.give_back(MATCH, HOST, Seat.A1)
    assert hosted.clock_of(Seat.A1) == SeatClock(500, 0, False)
    snapshot = decode(_bus(orch).snapshots[MATCH])
    assert snapshot is not None and snapshot.clocks["A1"] == SeatClock(500, 0, False)
    assert _status(hosted, Seat.A1).status == match_pb2.SEAT_STATUS_HOST


async def test_a_taken_over_seat_may_get_the_hosts_bot(orch: Orchestrator) -> None:
    hosted = _hosted(orch)
    hosted.clocks[Seat.B1] = SeatClock(0, 3, True)
    await orch.seat_links.play_for(MATCH, HOST, Seat.B1, "random")
    assert _status(hosted, Seat.B1).status == match_pb2.SEAT_STATUS_BOT_FOR_PLAYER
    assert bot_name(hosted, Seat.B1) == "random"


async def test_an_open_seat_with_replace_player_is_given_to_the_bot(orch: Orchestrator) -> None:
    await orch.seat_links.play_for(MATCH, HOST, Seat.A2, "random")
    assert _status(_hosted(orch), Seat.A2).status == match_pb2.SEAT_STATUS_BOT
    assert _bus(orch).record["bots"] == {"B2": "random", "A2": "random"}


async def test_without_replace_player_a_held_seat_is_still_not_open(orch: Orchestrator) -> None:
    refusal = await _refused(orch, orch.seating.assign_bot(MATCH, HOST, Seat.A1, "random"))
    assert refusal.reason == "SEAT_NOT_OPEN"


@pytest.mark.parametrize(
    ("host", "seat", "bot", "reason"),
    [
        ("", Seat.A1, "random", "TOKEN_REQUIRED"),
        (B1_TOKEN, Seat.A1, "random", "NOT_HOST"),
        (HOST, Seat.B2, "random", "BOT_ALREADY_PLAYS"),
        (HOST, Seat.A1, "no-such-bot", "MALFORMED"),
    ],
)
async def test_every_bad_replace_player_is_refused_and_changes_nothing(
    orch: Orchestrator, host: str, seat: Seat, bot: str, reason: str
) -> None:
    refusal = await _refused(orch, orch.seat_links.play_for(MATCH, host, seat, bot))
    assert refusal.reason == reason


async def test_a_seat_a_bot_plays_for_its_person_already_is_refused(orch: Orchestrator) -> None:
    await orch.seat_links.play_for(MATCH, HOST, Seat.B1, "random")
    refusal = await _refused(orch, orch.seat_links.play_for(MATCH, HOST, Seat.B1, "greedy"))
    assert refusal.reason == "BOT_ALREADY_PLAYS"


@pytest.mark.parametrize(
    ("host", "seat", "reason"),
    [
        ("", Seat.B1, "TOKEN_REQUIRED"),
        ("wrong", Seat.B1, "NOT_HOST"),
        (HOST, Seat.B1, "SEAT_NOT_PLAYED_BY_BOT"),
        (HOST, Seat.A2, "SEAT_HAS_NO_PLAYER"),
        (HOST, Seat.B2, "SEAT_HAS_NO_PLAYER"),
    ],
)
async def test_every_bad_give_back_is_refused_and_changes_nothing(
    orch: Orchestrator, host: str, seat: Seat, reason: str
) -> None:
    refusal = await _refused(orch, orch.seat_links.give_back(MATCH, host, seat))
    assert refusal.reason == reason


def _status(hosted: HostedMatch, seat: Seat) -> match_pb2.SeatStatusEntry:
    entries = seat_statuses(hosted.state.order, hosted.seats, hosted.taken_over())
    number = types_pb2.Seat.Value(f"SEAT_{seat.value}")
    return next(e for e in entries if e.seat == number)
