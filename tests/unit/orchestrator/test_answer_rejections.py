"""A bot's refused answer says why as data: the reason and metadata its AnswerRejected
carries (decisions.py), the same catalogue (errors.proto) a MatchService call fails with.

The commit path is a stand-in that runs the answer under the match's lock and applies it
with the engine; one variant first moves the match on, as another writer would between the
answer's first look and the lock, so the closed-decision branch is reached without timing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from frontier.engine import Command, Seat, initial_state, legal_commands, make_config, to_act
from frontier.orchestrator.decisions import Decisions
from frontier.orchestrator.hosted_match import HostedMatch
from frontier.runtime.errors import ServiceError
from frontier.store.seats import SeatArrangement

from .test_bot_thinking import advance

T = TypeVar("T")


class _Commits:
    """The commit path's two calls an answer makes; ``move_first``: the match moves on
    (another command is committed) just before the answer gets the lock."""

    def __init__(self, move_first: bool = False) -> None:
        self.move_first = move_first
        self.made: list[str] = []

    async def serialized(self, hosted: HostedMatch, work: Callable[[], Awaitable[T]]) -> T:
        async with hosted.lock:
            if self.move_first:
                seat = to_act(hosted.state)
                assert seat is not None
                advance(hosted, legal_commands(hosted.state, seat)[0])
            return await work()

    async def commit(
        self, hosted: HostedMatch, seat: Seat, cmd: Command, command_id: str, by: Any
    ) -> None:
        advance(hosted, cmd)
        self.made.append(command_id)


def _match(bots: dict[str, str] | None = None) -> HostedMatch:
    config = make_config(seed=11)
    return HostedMatch(
        match_id="c" * 32,
        config=config,
        state=initial_state(config),
        stream_seq=0,
        seat_by_token_hash={},
        command_ids={},
        seats=SeatArrangement(bots=bots or {}),
    )


async def _refusal(
    hosted: HostedMatch, decision_id: str, legal_id: str, commits: _Commits | None = None
) -> ServiceError:
    decisions = Decisions(commits or _Commits(), lambda h: True, lambda: False)  # type: ignore[arg-type]
    seat = to_act(hosted.state)
    assert seat is not None
    try:
        with pytest.raises(ServiceError) as refused:
            await decisions.answer_decision(hosted, seat, decision_id, legal_id)
    finally:
        decisions.close()
    return refused.value


def _first_legal_id(hosted: HostedMatch) -> str:
    seat = to_act(hosted.state)
    assert seat is not None
    return hosted.legal(seat).keys[0]


async def test_an_unknown_decision_id_is_unknown_decision_with_the_version_now() -> None:
    hosted = _match()
    refused = await _refusal(hosted, "77", _first_legal_id(hosted))
    assert refused.reason == "UNKNOWN_DECISION"
    assert refused.metadata == {"field": "decision_id", "current_version": "0"}
    over_long = await _refusal(hosted, "9" * 100, "x")
    assert over_long.reason == "UNKNOWN_DECISION" and "9" * 100 not in over_long.message


async def test_an_unknown_command_id_names_the_answers_own_field() -> None:
    hosted = _match()
    refused = await _refusal(hosted, "0", "no-such-id")
    assert refused.reason == "UNKNOWN_LEGAL_ID"
    assert refused.metadata == {"field": "command_id"}


async def test_a_decision_the_server_answers_is_decision_closed() -> None:
    config = make_config(seed=11)
    seat = to_act(initial_state(config))
    assert seat is not None
    hosted = _match(bots={seat.value: "random"})
    refused = await _refusal(hosted, "0", _first_legal_id(hosted))
    assert refused.reason == "DECISION_CLOSED"
    assert refused.metadata == {"field": "decision_id", "current_version": "0"}


async def test_a_decision_closed_before_the_answer_got_the_lock_is_decision_closed() -> None:
    hosted = _match()
    commits = _Commits(move_first=True)
    refused = await _refusal(hosted, "0", _first_legal_id(hosted), commits)
    assert refused.reason == "DECISION_CLOSED"
    assert refused.metadata["current_version"] == str(hosted.state.version) != "0"
    assert commits.made == []  # the answer was not applied


async def test_an_open_decision_answered_with_a_legal_id_is_applied() -> None:
    hosted = _match()
    commits = _Commits()
    decisions = Decisions(commits, lambda h: True, lambda: False)  # type: ignore[arg-type]
    seat = to_act(hosted.state)
    assert seat is not None
    await decisions.answer_decision(hosted, seat, "0", _first_legal_id(hosted))
    decisions.close()
    assert commits.made == [f"bot:{seat.value}:0"] and hosted.state.version > 0
