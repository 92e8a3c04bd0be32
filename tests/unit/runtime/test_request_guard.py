"""The request limits of the public services, message by message (runtime/guard.py)."""

from __future__ import annotations

import pytest

from frontier.runtime.errors import ServiceError, shown
from frontier.runtime.guard import MAX_LEGAL_ID_BYTES, MAX_REPEATED, check_limits
from frontier.v1 import bot_pb2, match_pb2, types_pb2


def _refusal(message: object) -> str:
    with pytest.raises(ServiceError) as refused:
        check_limits(message)  # type: ignore[arg-type]
    return refused.value.message


def test_ids_and_tokens_are_limited_to_128_bytes_counted_in_utf8() -> None:
    check_limits(match_pb2.GetViewRequest(match_id="a" * 128, seat_token="b" * 128))
    assert _refusal(match_pb2.GetViewRequest(match_id="é" * 65)) == (
        "match_id is 130 bytes; at most 128 bytes"
    )


def test_nested_and_repeated_fields_are_checked_with_their_path() -> None:
    cards = ["c"] * (MAX_REPEATED + 1)
    request = match_pb2.SubmitCommandRequest(command=types_pb2.Command(cards=cards))
    assert _refusal(request) == f"command.cards is {MAX_REPEATED + 1} entries; at most 64 entries"
    request = match_pb2.SubmitCommandRequest(command=types_pb2.Command(clearing="x" * 65))
    assert _refusal(request) == "command.clearing is 65 bytes; at most 64 bytes"


def test_a_bot_answer_names_a_legal_id_and_gets_the_legal_id_limit() -> None:
    check_limits(bot_pb2.Answer(command_id="k" * MAX_LEGAL_ID_BYTES))
    assert "at most 512 bytes" in _refusal(bot_pb2.Answer(command_id="k" * 513))


def test_echoed_values_are_cut_to_64_characters() -> None:
    assert shown("short") == "'short'"
    assert shown("v" * 200) == repr("v" * 64) + "..."


def test_a_string_near_its_limit_is_counted_in_bytes_not_characters() -> None:
    """The guard skips encoding a string whose character count settles it; at the edges it
    counts bytes: 32 four-byte characters fit 128 bytes, 33 do not, nor do 129 ASCII ones."""
    check_limits(match_pb2.GetViewRequest(match_id="😀" * 32, seat_token="é" * 64))
    assert _refusal(match_pb2.GetViewRequest(match_id="😀" * 33)) == (
        "match_id is 132 bytes; at most 128 bytes"
    )
    assert _refusal(match_pb2.GetViewRequest(seat_token="a" * 129)) == (
        "seat_token is 129 bytes; at most 128 bytes"
    )
