"""Host keys as stored: their shape, the hash that is kept instead of the secret, and the
record an operator lists (which never holds a secret or its hash)."""

from __future__ import annotations

import hashlib
import json

import pytest

from frontier.store.host_keys import (
    HostKey,
    InvalidHostKey,
    Quotas,
    new_key,
    parse,
)
from frontier.store.matches import token_hash


def test_a_new_key_is_shown_once_and_only_its_secrets_hash_is_kept():
    record, key = new_key("alice", Quotas(creates_per_minute=3), now=1000.0)
    key_id, secret = parse(key)
    assert key == f"fk_{key_id}_{secret}" and key_id == record.key_id
    assert record.secret_sha256 == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in record.as_json().decode()
    assert record.matches(secret) and not record.matches(secret + "x")
    assert record.created_unix == 1000.0 and not record.revoked


def test_two_keys_share_neither_id_nor_secret():
    (a, key_a), (b, key_b) = new_key("a", Quotas()), new_key("b", Quotas())
    assert a.key_id != b.key_id and parse(key_a)[1] != parse(key_b)[1]


@pytest.mark.parametrize(
    "text",
    ["", "fk_", "fk_0123456789ab", "fk_XYZ456789ab_abcdefghijklmnopqrst", "nope", "fk_0_1"],
)
def test_a_string_not_shaped_like_a_key_is_refused(text: str):
    with pytest.raises(InvalidHostKey):
        parse(text)


def test_a_record_round_trips_and_its_listing_holds_no_secret_hash():
    record, _ = new_key("bob", Quotas(matches_hosted=2, bot_cpu_s_per_hour=1.5))
    again = HostKey.from_json(record.as_json())
    assert again == record
    listed = record.listed()
    assert "secret_sha256" not in listed and record.secret_sha256 not in json.dumps(listed)
    assert listed["quotas"] == {
        "matches_hosted": 2,
        "creates_per_minute": None,
        "bot_seats": None,
        "bot_cpu_s_per_hour": 1.5,
    }


def test_a_bad_name_or_record_is_refused():
    with pytest.raises(InvalidHostKey):
        new_key("  ", Quotas())
    with pytest.raises(InvalidHostKey):
        new_key("x" * 65, Quotas())
    with pytest.raises(InvalidHostKey):
        HostKey.from_json(b'{"key_id": 1}')


def test_the_hash_is_sha256_of_the_secret():
    assert token_hash("s") == hashlib.sha256(b"s").hexdigest()
