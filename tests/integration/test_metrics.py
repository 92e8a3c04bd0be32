"""Every service's Prometheus endpoint, scraped while matches are played: the values move.

Two orchestrators and the five domain services on loopback, each with its own metrics port
(StackConfig.ephemeral).  A match played by its seats, a match whose seats never answer
(every seat strikes out and the built-in bot plays it to the end), a refused command, and
the owner of a match killed so that the other orchestrator takes its lease over.
"""

from __future__ import annotations

import asyncio
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from frontier.ops.stack import DOMAINS, Stack, StackConfig
from frontier.play.remote_match import play_remote
from frontier.runtime.errors import reason_in
from frontier.v1 import match_pb2, match_pb2_grpc

pytestmark = pytest.mark.integration

MIRROR = "A=marquise;B=marquise"
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(stack: Stack, service: str) -> Samples:
    with urllib.request.urlopen(stack.config.metrics_url(service), timeout=5) as reply:
        text = reply.read().decode()
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = float(s.value)
    return out


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name`` over the samples whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    config = StackConfig.ephemeral(
        tmp_path_factory.mktemp("metrics"),
        orchestrators=2,
        sync="2m",
        extra_env={"FRONTIER_LEASE_TTL_S": "1.5"},
    )
    with Stack(config) as running:
        yield running


def test_every_service_serves_metrics(stack: Stack) -> None:
    for name in (*stack.config.orchestrator_names, *DOMAINS):
        samples = scrape(stack, name)
        # every service answers health checks: its own RPC histogram already counts them
        assert total(samples, "frontier_rpc_duration_seconds_count") > 0, name


def test_commands_rpcs_publishes_and_finished_matches_move(stack: Stack) -> None:
    before = scrape(stack, "orchestrator")
    before_map = scrape(stack, "map")
    result = play_remote(stack.config.address("orchestrator"), seed=8, lineup=MIRROR)
    assert result.verified
    after = scrape(stack, "orchestrator")
    commands = len(result.commands)

    def moved(samples_before: Samples, samples_after: Samples, name: str, **labels: str) -> float:
        return total(samples_after, name, **labels) - total(samples_before, name, **labels)

    assert moved(before, after, "frontier_commands_total", result="OK", answered_by="SEAT") == (
        commands
    )
    kinds = {c.kind.value for c in result.commands}
    for kind in kinds:
        assert moved(before, after, "frontier_commands_total", kind=kind) > 0, kind
    method = "/frontier.v1.MatchService/SubmitCommand"
    assert moved(
        before, after, "frontier_rpc_duration_seconds_count", method=method, code="OK"
    ) == (commands)
    assert moved(before, after, "frontier_jetstream_publish_seconds_count") == commands
    assert moved(before, after, "frontier_matches_finished_total") == 1
    after_map = scrape(stack, "map")
    decide = "/frontier.v1.MapService/DecideMapCommand"
    assert moved(before_map, after_map, "frontier_rpc_duration_seconds_count", method=decide) > 0
    # the map service started the new match's projection from its first request's start,
    # reading neither the match's record nor its stream
    starts = "frontier_projection_starts_total"
    assert moved(before_map, after_map, starts, source="request") == 1
    assert moved(before_map, after_map, starts, source="record") == 0
    assert moved(before_map, after_map, starts, source="stream") == 0


def test_a_refused_command_shows_its_code(stack: Stack) -> None:
    address = stack.config.address("orchestrator")
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        created = stub.CreateMatch(
            match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(seed=9, lineup=MIRROR))
        )
        before = scrape(stack, "orchestrator")
        with pytest.raises(grpc.RpcError) as refused:
            stub.SubmitCommand(
                match_pb2.SubmitCommandRequest(
                    match_id=created.match_id,
                    seat_token=created.seats[0].token,
                    legal_id="no such command",
                )
            )
        code = refused.value.code().name
        reason = reason_in(refused.value.trailing_metadata())
        assert reason  # what the client branches on
        after = scrape(stack, "orchestrator")
        method = "/frontier.v1.MatchService/SubmitCommand"
        count = "frontier_rpc_duration_seconds_count"
        assert (
            total(after, count, method=method, code=code)
            - total(before, count, method=method, code=code)
            == 1
        )
        # the error counter says why, with the reason the client read
        errors = "frontier_rpc_errors_total"
        labels = {"method": method, "code": code, "reason": reason}
        assert total(after, errors, **labels) - total(before, errors, **labels) == 1
        # the match waits for its first decision meanwhile
        assert total(after, "frontier_open_decisions") >= 1
        assert total(after, "frontier_matches_active") >= 1
        assert total(after, "frontier_matches_hosted") >= total(after, "frontier_matches_active")


async def test_lookups_of_unknown_matches_leave_nothing_loading(stack: Stack) -> None:
    """Anyone may ask for millions of ids that name no match: each is answered NOT_FOUND
    and nothing of it stays in the orchestrator (its loading table drains to empty)."""
    lookups, in_flight = 2000, 50
    async with grpc.aio.insecure_channel(stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        gate = asyncio.Semaphore(in_flight)

        async def look(n: int) -> grpc.StatusCode:
            async with gate:
                try:
                    await stub.GetView(match_pb2.GetViewRequest(match_id=f"{n:032x}"))
                except grpc.aio.AioRpcError as exc:
                    return exc.code()
            return grpc.StatusCode.OK

        codes = await asyncio.gather(*(look(n) for n in range(lookups)))
    assert set(codes) == {grpc.StatusCode.NOT_FOUND}
    assert total(scrape(stack, "orchestrator"), "frontier_match_loads_in_flight") == 0


async def test_an_ended_matchs_replay_is_computed_once(stack: Stack) -> None:
    """200 readers ask for one finished match's replay at once: it is read from the stream
    and filtered once, and every reader gets the same text."""
    address = stack.config.address("orchestrator")
    played = await asyncio.to_thread(play_remote, address, 12, MIRROR)
    assert played.verified
    before = scrape(stack, "orchestrator")
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        request = match_pb2.ExportReplayRequest(match_id=played.match_id)
        replies = await asyncio.gather(*(stub.ExportReplay(request) for _ in range(200)))
    assert len({reply.json for reply in replies}) == 1
    after = scrape(stack, "orchestrator")
    name = "frontier_replay_exports_total"

    def moved(source: str) -> float:
        return total(after, name, source=source) - total(before, name, source=source)

    assert moved("computed") == 1
    assert moved("joined") + moved("cache") == 199


def _wait(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_strikes_and_takeovers_count(stack: Stack) -> None:
    """Nobody answers: each seat misses its deadline once (strike limit 1), the built-in
    bot takes it over, and the match plays itself to the end."""
    before = scrape(stack, "orchestrator")
    with grpc.insecure_channel(stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        config = match_pb2.MatchConfig(
            seed=10, lineup=MIRROR, decision_budget_ms=50, reserve_ms=0, strike_limit=1
        )
        created = stub.CreateMatch(match_pb2.CreateMatchRequest(config=config))

        def over() -> bool:
            view = stub.GetView(match_pb2.GetViewRequest(match_id=created.match_id)).view
            return bool(view.winner)

        _wait(over, 120, "the built-in bots did not finish the match")
    after = scrape(stack, "orchestrator")
    seats = len(created.seats)
    assert total(after, "frontier_strikes_total") - total(before, "frontier_strikes_total") == seats
    assert (
        total(after, "frontier_takeovers_total") - total(before, "frontier_takeovers_total")
        == seats
    )
    timeouts = total(after, "frontier_commands_total", answered_by="TIMEOUT") - total(
        before, "frontier_commands_total", answered_by="TIMEOUT"
    )
    assert timeouts == seats
    assert total(after, "frontier_commands_total", answered_by="BUILT_IN_BOT") > total(
        before, "frontier_commands_total", answered_by="BUILT_IN_BOT"
    )


def test_a_lease_taken_over_from_a_killed_orchestrator_counts(stack: Stack, tmp_path: Path) -> None:
    """Last in this module: it kills one of the two orchestrators."""
    cfg = stack.config
    with grpc.insecure_channel(cfg.address("orchestrator")) as channel:
        created = match_pb2_grpc.MatchServiceStub(channel).CreateMatch(
            match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(seed=11, lineup=MIRROR))
        )
    before = scrape(stack, "orchestrator-2")
    stack.kill("orchestrator")  # the owner: it created the match
    with grpc.insecure_channel(cfg.address("orchestrator-2")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)

        def served() -> bool:
            try:
                stub.GetView(match_pb2.GetViewRequest(match_id=created.match_id), timeout=5)
            except grpc.RpcError as exc:  # forwarded to the dead owner until its lease expires
                assert exc.code() is grpc.StatusCode.UNAVAILABLE, exc
                return False
            return True

        _wait(served, 60, "orchestrator-2 never took the match over")
    after = scrape(stack, "orchestrator-2")
    name = "frontier_lease_takeovers_total"
    assert total(after, name) - total(before, name) >= 1
    assert total(after, "frontier_matches_hosted") >= 1
