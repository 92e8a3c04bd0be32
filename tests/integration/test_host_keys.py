"""Host keys on a real stack in ``keys`` mode: the host calls need a live key, each key has
its own quotas (a flood from one key leaves another untouched), bot seats are capped, an
anonymous tier counts per address when configured, and ``frontier keys`` manages the keys
in the stack's NATS."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from frontier.bots.sdk import error_details
from frontier.cli.main import main
from frontier.ops.stack import Stack, StackConfig, free_port
from frontier.runtime.errors import retry_delay_in
from frontier.runtime.settings import host_key_metadata
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2

from .stack_logs import wait_logged

pytestmark = pytest.mark.integration

KEYS_ENV = {
    "FRONTIER_ACCESS": "keys",
    "FRONTIER_HOST_KEY_CACHE_S": "0",  # a revocation is seen by the next call
    "FRONTIER_QUOTA_CREATES_PER_MINUTE": "3",
    "FRONTIER_QUOTA_BOT_SEATS": "1",
}
TWO_SEATS = "A=marquise;B=marquise"


@pytest.fixture(scope="module")
def keys_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    config = StackConfig.ephemeral(
        tmp_path_factory.mktemp("keys"),
        extra_env=dict(KEYS_ENV),
        web_port=free_port(),
        log_level="INFO",  # every request's access line is written: none may hold a key
    )
    with Stack(config) as running:
        yield running


@pytest.fixture
def stub(keys_stack: Stack) -> Iterator[match_pb2_grpc.MatchServiceStub]:
    with grpc.insecure_channel(keys_stack.config.address("orchestrator")) as channel:
        yield match_pb2_grpc.MatchServiceStub(channel)


def keys(stack: Stack, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["keys", "--nats-url", stack.config.nats_url, *argv])
    return status, capsys.readouterr().out


def new_key(stack: Stack, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    status, out = keys(stack, capsys, "create", "--name", "tests", "--json", *flags)
    assert status == 0
    key: str = json.loads(out)["key"]
    return key


def create(
    stub: match_pb2_grpc.MatchServiceStub, key: str | None, bots: int = 0
) -> match_pb2.CreateMatchResponse:
    seats = [types_pb2.SEAT_A1, types_pb2.SEAT_B1][:bots]
    request = match_pb2.CreateMatchRequest(
        config=match_pb2.MatchConfig(lineup=TWO_SEATS),
        seat_setup=[match_pb2.SeatSetup(seat=s, mode=match_pb2.SEAT_MODE_BOT) for s in seats],
    )
    reply: match_pb2.CreateMatchResponse = stub.CreateMatch(
        request, timeout=10, metadata=host_key_metadata(key or "")
    )
    return reply


def refused(call: object) -> tuple[grpc.RpcError, str, dict[str, str]]:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    details = error_details(caught.value)
    return caught.value, details.reason, details.metadata


def test_without_a_key_unauthenticated_and_a_revoked_key_refused(
    keys_stack: Stack, stub: match_pb2_grpc.MatchServiceStub, capsys: pytest.CaptureFixture[str]
) -> None:
    error, reason, _ = refused(lambda: create(stub, None))
    assert error.code() is grpc.StatusCode.UNAUTHENTICATED and reason == "HOST_KEY_REQUIRED"
    key = new_key(keys_stack, capsys)
    created = create(stub, key)
    key_id = key.split("_")[1]
    assert keys(keys_stack, capsys, "revoke", key_id) == (0, f"revoked {key_id} (tests)\n")
    error, reason, _ = refused(lambda: create(stub, key))
    assert error.code() is grpc.StatusCode.PERMISSION_DENIED and reason == "UNKNOWN_HOST_KEY"
    abandon = match_pb2.AbandonMatchRequest(
        match_id=created.match_id, host_token=created.host_token
    )
    _, reason, _ = refused(
        lambda: stub.AbandonMatch(abandon, timeout=10, metadata=host_key_metadata(key))
    )
    assert reason == "UNKNOWN_HOST_KEY"
    status, listed = keys(keys_stack, capsys, "list", "--json")
    mine = [k for k in json.loads(listed) if k["key_id"] == key_id]
    assert status == 0 and mine[0]["revoked"] and key.split("_", 2)[2] not in listed


def test_a_creation_flood_from_one_key_leaves_another_key_creating_at_once(
    keys_stack: Stack, stub: match_pb2_grpc.MatchServiceStub, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = new_key(keys_stack, capsys), new_key(keys_stack, capsys)
    for _ in range(3):
        create(stub, a)
    error, reason, metadata = refused(lambda: create(stub, a))
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED and reason == "QUOTA_EXCEEDED"
    assert metadata == {"quota": "creates_per_minute", "limit": "3"}
    delay = retry_delay_in(error.trailing_metadata())
    assert delay is not None and 0 < delay <= 60
    assert create(stub, b).match_id


def test_bot_seats_are_capped_per_key_at_creation_and_assignment(
    keys_stack: Stack, stub: match_pb2_grpc.MatchServiceStub, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(keys_stack, capsys, "--bot-seats", "1")
    _, reason, metadata = refused(lambda: create(stub, key, bots=2))
    assert reason == "QUOTA_EXCEEDED" and metadata["quota"] == "bot_seats"
    create(stub, key, bots=1)  # the one seat it may have
    request = match_pb2.CreateMatchRequest(
        config=match_pb2.MatchConfig(lineup=TWO_SEATS),
        seat_setup=[match_pb2.SeatSetup(seat=types_pb2.SEAT_A1, mode=match_pb2.SEAT_MODE_OPEN)],
    )
    open_match = stub.CreateMatch(request, timeout=10, metadata=host_key_metadata(key))
    assign = match_pb2.AssignSeatBotRequest(
        match_id=open_match.match_id,
        host_token=open_match.host_token,
        seat=types_pb2.SEAT_A1,
        bot="random",
    )
    _, reason, metadata = refused(
        lambda: stub.AssignSeatBot(assign, timeout=10, metadata=host_key_metadata(key))
    )
    assert reason == "QUOTA_EXCEEDED" and metadata == {"quota": "bot_seats", "limit": "1"}


def test_an_anonymous_tier_serves_callers_without_a_key_within_its_quota(
    keys_stack: Stack, stub: match_pb2_grpc.MatchServiceStub
) -> None:
    env = keys_stack.config.extra_env
    env.update(FRONTIER_ANONYMOUS_MATCHES="5", FRONTIER_ANONYMOUS_CREATES_PER_MINUTE="1")
    keys_stack.kill("orchestrator")
    keys_stack.restart("orchestrator")
    try:
        assert create(stub, None).match_id
        error, reason, metadata = refused(lambda: create(stub, None))
        assert reason == "QUOTA_EXCEEDED" and metadata["quota"] == "creates_per_minute"
        assert retry_delay_in(error.trailing_metadata()) is not None
    finally:
        env.clear()
        env.update(KEYS_ENV)
        keys_stack.kill("orchestrator")
        keys_stack.restart("orchestrator")


def test_keys_on_an_unreachable_nats_is_one_line_and_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["keys", "--nats-url", "nats://127.0.0.1:1", "list"]) == 1
    assert "cannot reach NATS" in capsys.readouterr().err


def lobby_create(stack: Stack, key: str = "") -> tuple[int, dict[str, object]]:
    """POST /api/matches as the lobby does, with its host key header when it has one."""
    headers = {"Content-Type": "application/json", "X-Frontier-Client": "tests"}
    if key:
        headers["X-Frontier-Host-Key"] = key
    body = json.dumps({"lineup": TWO_SEATS}).encode()
    request = urllib.request.Request(
        f"{stack.config.web_url}api/matches", body, headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_the_lobby_creates_with_the_key_the_browser_sends_and_no_log_holds_it(
    keys_stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    status, body = lobby_create(keys_stack)
    assert (status, body["error"]) == (401, "host_key_required")
    key = new_key(keys_stack, capsys)
    status, body = lobby_create(keys_stack, key)
    assert status == 201 and body["match_id"]
    secret = key.split("_", 2)[2]
    logged = wait_logged(keys_stack, "POST /api/matches 201")  # the request was logged, ...
    assert secret not in logged  # ... without its key
