"""What clients and operators read when something is down, and the cap on hosted matches.

- A client (MatchService, and the web gateway) is told what a failure means for it, never
  gRPC's own text, which names internal addresses (``127.0.0.1:23098``): a domain service
  down, the orchestrator that owns a match down (a forwarded call), the orchestrator down
  behind the web gateway.  The cause goes to the server's log instead.
- While NATS is down the lease renewal loop logs its failure once, not one traceback per
  attempt, and its recovery once.
- Concurrent CreateMatch calls never overshoot FRONTIER_MAX_MATCHES.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest

from frontier.ops.stack import DOMAINS, Stack, StackConfig, free_port
from frontier.runtime.errors import reason_in
from frontier.v1 import bot_pb2, bot_pb2_grpc, match_pb2, match_pb2_grpc

from .client import MIRROR, Match

pytestmark = pytest.mark.integration

# an IPv4 address, a bracketed IPv6 one, or a port after a colon
ADDRESS = re.compile(r"\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]|:\d{2,5}\b")


def _refusal(call: grpc.RpcError) -> tuple[grpc.StatusCode, str, str]:
    return call.code(), call.details() or "", reason_in(call.trailing_metadata())


def _wait_for(condition: object, what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


async def test_the_match_cap_is_exact_under_concurrent_creations(tmp_path: Path) -> None:
    cap, tries = 4, 48
    env = {"FRONTIER_MAX_MATCHES": str(cap)}
    with Stack(StackConfig.ephemeral(tmp_path, extra_env=env)) as stack:
        async with grpc.aio.insecure_channel(stack.config.address("orchestrator")) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            request = match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(lineup=MIRROR))

            async def create() -> tuple[grpc.StatusCode, str]:
                try:
                    await stub.CreateMatch(request, timeout=60)
                except grpc.aio.AioRpcError as exc:
                    return exc.code(), reason_in(exc.trailing_metadata())
                return grpc.StatusCode.OK, ""

            answers = await asyncio.gather(*(create() for _ in range(tries)))
            listed = await stub.ListMatches(match_pb2.ListMatchesRequest(page_size=1000))
    created = [a for a in answers if a[0] is grpc.StatusCode.OK]
    refused = [a for a in answers if a[0] is not grpc.StatusCode.OK]
    assert len(created) == cap, answers
    assert set(refused) == {(grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_MATCHES")}
    assert len(listed.matches) == cap  # nothing half-created is left behind either


def _web(url: str) -> tuple[int, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_domain_service_or_the_orchestrator_down_shows_no_internal_address(
    tmp_path: Path,
) -> None:
    config = StackConfig.ephemeral(tmp_path, web_port=free_port(), log_level="INFO")
    with Stack(config) as stack:
        with grpc.insecure_channel(config.address("orchestrator")) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            match = Match.create(stub, 7, MIRROR)
            legal_id = match.legal()[0].id
            for name in DOMAINS:
                stack.kill(name)
            with pytest.raises(grpc.RpcError) as down:
                match.submit(legal_id)
            code, details, reason = _refusal(down.value)
            assert code is grpc.StatusCode.UNAVAILABLE
            assert reason in ("DOMAIN_UNAVAILABLE", "NOT_SETTLED"), (reason, details)
            assert not ADDRESS.search(details), details
            assert "same command id" in details
        # the web gateway in front of an orchestrator that is gone
        stack.kill("orchestrator")
        status, body = _web(f"{config.web_url}api/matches")
        assert status == 503, body
        assert body["error"] == "unavailable" and not ADDRESS.search(body["detail"]), body
        # the operator's log holds the causes, each once
        orchestrator_log = (stack.logs / "orchestrator.log").read_text()
        web_log = (stack.logs / "web.log").read_text()
    assert "a domain service call (" in orchestrator_log
    assert "a call to the orchestrator (UNAVAILABLE) failed" in web_log


def test_a_forwarded_call_to_an_owner_that_is_down_shows_no_address(tmp_path: Path) -> None:
    # a long lease: the dead owner still holds the match while the test asks
    env = {"FRONTIER_LEASE_TTL_S": "60"}
    config = StackConfig.ephemeral(tmp_path, orchestrators=2, extra_env=env)
    with Stack(config) as stack:
        with grpc.insecure_channel(config.address("orchestrator")) as channel:
            owner = match_pb2_grpc.MatchServiceStub(channel)
            match = Match.create(owner, 8, MIRROR)
        stack.kill("orchestrator")
        with grpc.insecure_channel(config.address("orchestrator-2")) as channel:
            other = match_pb2_grpc.MatchServiceStub(channel)
            with pytest.raises(grpc.RpcError) as down:
                other.GetView(match_pb2.GetViewRequest(match_id=match.match_id), timeout=60)
            code, details, reason = _refusal(down.value)
            assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "SERVER_UNAVAILABLE"), details
            assert not ADDRESS.search(details), details
            watch = other.WatchEvents(
                match_pb2.WatchEventsRequest(match_id=match.match_id), timeout=60
            )
            with pytest.raises(grpc.RpcError) as stream_down:
                next(iter(watch))
            code, details, reason = _refusal(stream_down.value)
            assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "SERVER_UNAVAILABLE"), details
            assert not ADDRESS.search(details), details
            # a bot's Play stream, relayed to the owner (BotService)
            hello = bot_pb2.Hello(
                match_id=match.match_id, seat_token=next(iter(match.tokens.values()))
            )
            play = bot_pb2_grpc.BotServiceStub(channel).Play(
                iter([bot_pb2.PlayRequest(hello=hello)]), timeout=60
            )
            with pytest.raises(grpc.RpcError) as bot_down:
                next(iter(play))
            code, details, reason = _refusal(bot_down.value)
            assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "SERVER_UNAVAILABLE"), details
            assert not ADDRESS.search(details), details


def test_lease_renewal_logs_a_nats_outage_once_and_its_end_once(tmp_path: Path) -> None:
    # renewals every 0.5 s, so the outage below spans ten or more of them
    env = {"FRONTIER_LEASE_TTL_S": "1.5", "FRONTIER_CALL_TIMEOUT_S": "0.5"}
    config = StackConfig.ephemeral(tmp_path, log_level="INFO", extra_env=env)
    log_file = tmp_path / "logs" / "orchestrator.log"
    with Stack(config) as stack:
        with grpc.insecure_channel(config.address("orchestrator")) as channel:
            Match.create(match_pb2_grpc.MatchServiceStub(channel), 9, MIRROR)  # a lease held
        stack.kill("nats")
        _wait_for(lambda: "renewing the leases" in log_file.read_text(), "a failed renewal")
        time.sleep(5.0)  # ten more renewal periods with NATS away
        during = log_file.read_text()
        renewal_lines = [line for line in during.splitlines() if "renewing the leases" in line]
        # the first failure, and at most one summary (the interval is a minute)
        assert 1 <= len(renewal_lines) <= 2, renewal_lines
        # the NATS client's reconnect attempts: the first error of each type, not every one
        connection_lines = [line for line in during.splitlines() if "NATS connection" in line]
        assert 1 <= len(connection_lines) <= 4, connection_lines
        assert "nats: encountered error" not in during  # nats-py's own line per attempt
        stack.restart("nats")
        _wait_for(
            lambda: "renewing the leases works again" in log_file.read_text(), "the recovery line"
        )
        after = log_file.read_text()
    assert after.count("renewing the leases works again") == 1
    assert "the NATS connection (nats " in after  # its recovery, once per kind
