"""The arena's bucket: a bot is registered with only its key's hash kept, a bad or taken
name changes nothing, a bad key enters no bot, and a result is counted exactly once
(across a rival writer and across a restart that finds the match still recorded)."""

from __future__ import annotations

import hashlib

import grpc
import pytest

from frontier.arena.ratings import MatchResult, SeatResult
from frontier.arena.registry import new_bot, parse_key
from frontier.arena.store import ArenaStore
from frontier.runtime.errors import ServiceError

from .memory_kv import MemoryKV


@pytest.fixture
def kv() -> MemoryKV:
    return MemoryKV()


@pytest.fixture
def store(kv: MemoryKV) -> ArenaStore:
    return ArenaStore(kv.as_bucket())


async def test_a_registered_bot_enters_with_its_key_and_only_the_hash_is_kept(
    kv: MemoryKV, store: ArenaStore
):
    record, key = new_bot("alpha", "plays well", owner="0123456789ab")
    await store.register(record)
    parsed = parse_key(key)
    assert parsed is not None and parsed[0] == record.bot_id
    stored = b"".join(value for value, _ in kv.values.values())
    assert parsed[1].encode() not in stored
    assert hashlib.sha256(parsed[1].encode()).hexdigest().encode() in stored
    assert await store.check_key(key) == record
    assert [b.name for b in await store.bots()] == ["alpha"]


@pytest.mark.parametrize(
    "key",
    ["", "nope", "fk_0123456789ab_" + "x" * 32, "fb_0123456789ab_" + "x" * 32, "fb_0_1"],
)
async def test_a_bad_key_enters_no_bot(store: ArenaStore, key: str):
    record, real = new_bot("alpha", "", owner="")
    await store.register(record)
    assert await store.check_key(key) is None
    assert await store.check_key(real[:-1] + ("A" if real[-1] != "A" else "B")) is None


@pytest.mark.parametrize(
    ("name", "description", "field"),
    [
        ("", "", "name"),
        ("two words", "", "name"),
        ("x" * 41, "", "name"),
        ("<b>", "", "name"),
        ("fine", "y" * 201, "description"),
        ("fine", "bell\x07", "description"),
    ],
)
async def test_a_bad_name_is_refused_with_its_reason_and_nothing_is_stored(
    kv: MemoryKV, name: str, description: str, field: str
):
    with pytest.raises(ServiceError) as refused:
        new_bot(name, description, owner="")
    assert refused.value.code is grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.reason == "INVALID_BOT_NAME"
    assert refused.value.metadata == {"field": field}
    assert kv.values == {}


async def test_a_taken_name_is_refused_whatever_its_case_and_nothing_changes(
    kv: MemoryKV, store: ArenaStore
):
    first, _ = new_bot("Alpha", "", owner="")
    await store.register(first)
    before = dict(kv.values)
    second, _ = new_bot("alpha", "", owner="")
    with pytest.raises(ServiceError) as refused:
        await store.register(second)
    assert refused.value.code is grpc.StatusCode.ALREADY_EXISTS
    assert refused.value.reason == "BOT_NAME_TAKEN"
    assert kv.values == before


def finished(match_id: str) -> MatchResult:
    seats = [
        SeatResult(seat=seat, bot_id=f"bot{seat}", name=f"bot{seat}", faction="marquise")
        for seat in ("A1", "B1")
    ]
    return MatchResult(
        match_id=match_id, lineup="A=marquise;B=marquise", seats=seats, state="rated", winner="A"
    )


async def test_a_result_is_counted_once_and_its_match_record_is_forgotten(store: ArenaStore):
    match = finished("m1")
    await store.put_match(match.model_copy(update={"state": "playing", "winner": ""}))
    assert [m.match_id for m in await store.matches_in_play()] == ["m1"]
    assert await store.record_result(match) is True
    assert await store.record_result(match) is False  # again, as after a restart
    board, _ = await store.board()
    assert board.entrants["botA1"].played == 1 and board.applied == ["m1"]
    assert await store.matches_in_play() == []


async def test_a_rival_write_is_read_back_before_counting(kv: MemoryKV, store: ArenaStore):
    rival = ArenaStore(kv.as_bucket())

    async def write_first() -> None:
        assert await rival.record_result(finished("m0"))

    kv.before_update = write_first  # another arena writes the board between read and write
    assert await store.record_result(finished("m1"))
    board, _ = await store.board()
    assert board.applied == ["m0", "m1"] and board.entrants["botA1"].played == 2
