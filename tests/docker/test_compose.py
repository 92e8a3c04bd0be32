"""The compose stack (docker-compose.yml) as a client sees it: matches through either
orchestrator, a container killed mid-match, the bots, the traces, the web gateway and the
arena on their published ports."""

from __future__ import annotations

import functools
import json
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import grpc
import pytest

from frontier.play.load import ROUND_ROBIN
from frontier.v1 import arena_pb2, arena_pb2_grpc, match_pb2, match_pb2_grpc, types_pb2
from tests.integration.client import Match
from tests.integration.stream_check import check_stream

from .support import MIRROR, ComposeStack

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]

T = TypeVar("T")


def _retry(call: Callable[[], T], deadline_s: float = 120) -> T:
    """What a client does while a service is down: the same call again (same command id)."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            return call()
        except grpc.RpcError as exc:
            retryable = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
            if exc.code() not in retryable or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _play(
    target: str, seed: int, midway: threading.Event | None = None, create_via: str = ""
) -> Match:
    """A whole match through ``target`` (round_robin over all of its addresses); created
    through ``create_via`` when given, which makes that orchestrator the match's owner."""
    with grpc.insecure_channel(create_via or target) as creator:
        stub = match_pb2_grpc.MatchServiceStub(creator)
        match = _retry(lambda: Match.create(stub, seed, MIRROR))
    with grpc.insecure_channel(target, options=ROUND_ROBIN) as channel:
        match.stub = match_pb2_grpc.MatchServiceStub(channel)
        n = 0
        while match.to_act is not None:
            options = _retry(match.legal)
            _retry(functools.partial(match.submit, options[n % len(options)].id, uuid.uuid4().hex))
            n += 1
            if n == 25 and midway is not None:
                midway.set()
        return match


def _final_view(address: str, match_id: str) -> types_pb2.View:
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        return stub.GetView(match_pb2.GetViewRequest(match_id=match_id), timeout=10).view


@pytest.mark.parametrize("orchestrator", ["orchestrator-1", "orchestrator-2"])
async def test_a_match_through_either_orchestrator(
    compose_stack: ComposeStack, orchestrator: str
) -> None:
    address = compose_stack.address(orchestrator)
    seed = 31 if orchestrator == "orchestrator-1" else 32
    match = _play(address, seed)
    # every committed event exactly once, in order, equal to the in-process engine's
    assert await check_stream(compose_stack.nats_url, match.match_id, seed, MIRROR) == match.version
    view = _final_view(address, match.match_id)
    assert view.version == match.version
    assert view.winner


async def _kill_mid_match(
    stack: ComposeStack, target: str, seed: int, victim: str, restart_before_end: bool
) -> Match:
    """Plays a match through ``target`` and SIGKILLs ``victim`` after 25 commands.  The player
    retries a failed call with the same command id; the victim is started again either at
    once or only after the match is over (then the match must have gone on without it)."""
    midway = threading.Event()
    result: dict[str, Match] = {}
    errors: list[BaseException] = []

    def player() -> None:
        try:
            result["match"] = _play(target, seed, midway, stack.address("orchestrator-1"))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=player)
    thread.start()
    try:
        assert midway.wait(120), errors
        stack.run("kill", "-s", "SIGKILL", victim)
        if restart_before_end:
            time.sleep(1)  # the player keeps trying, and failing, meanwhile
            stack.run("start", victim)
        thread.join(240)
    finally:
        if not restart_before_end:
            stack.run("start", victim)
        stack.wait_healthy(victim)  # the next test gets the whole stack
    assert not thread.is_alive()
    assert not errors, errors
    match = result["match"]
    assert await check_stream(stack.nats_url, match.match_id, seed, MIRROR) == match.version
    view = _final_view(stack.address("orchestrator-2"), match.match_id)
    assert view.version == match.version
    assert view.winner
    return match


@pytest.mark.parametrize("victim", ["turn-order", "orchestrator-1"])
async def test_a_match_survives_a_killed_and_restarted_container(
    compose_stack: ComposeStack, victim: str
) -> None:
    """SIGKILL a container mid-match, start it again: the client's retries (same command
    ids) finish the match, and the stream holds every command exactly once."""
    seed = 41 if victim == "turn-order" else 42
    await _kill_mid_match(
        compose_stack, compose_stack.address("orchestrator-1"), seed, victim, True
    )


async def test_the_other_orchestrator_takes_over_a_match_of_a_killed_one(
    compose_stack: ComposeStack,
) -> None:
    """The client knows both orchestrators; orchestrator-1 created the match, so it owns
    it, and stays dead until the match is over: orchestrator-2 finishes the match once
    orchestrator-1's lease has expired."""
    both = "ipv4:" + ",".join(
        compose_stack.address(o) for o in ("orchestrator-1", "orchestrator-2")
    )
    await _kill_mid_match(compose_stack, both, 43, "orchestrator-1", False)


def _finished_matches(stack: ComposeStack, bot: str) -> list[dict[str, Any]]:
    """The JSON lines of the bot's log: one per finished match."""
    return [json.loads(line) for line in stack.logs(bot).splitlines() if '"winner"' in line]


def test_the_bots_play_matches_and_every_service_is_healthy(compose_stack: ComposeStack) -> None:
    deadline = time.monotonic() + 180
    while True:
        finished = {bot: _finished_matches(compose_stack, bot) for bot in ("bot-1", "bot-2")}
        health = compose_stack.health()
        if all(finished.values()) and set(health.values()) == {"healthy"}:
            break
        assert time.monotonic() < deadline, (health, {b: len(m) for b, m in finished.items()})
        time.sleep(2)
    # NATS, the collector, 7 servers, 2 bots, the arena, the web gateway
    assert len(health) == 13, health
    for matches in finished.values():
        assert all(m["winner"] in {"A", "B", "draw"} and m["commands"] > 0 for m in matches)


def test_one_command_is_one_trace_in_the_collector(compose_stack: ComposeStack) -> None:
    """The services export with OTLP to the collector, which writes JSON lines."""
    wanted = {
        ("frontier-orchestrator", "/frontier.v1.MatchService/SubmitCommand"),
        ("frontier-turn_order", "/frontier.v1.TurnOrderService/AdvanceTurn"),
        ("frontier-scoring", "/frontier.v1.ScoringService/EvaluateMatch"),
    }
    deadline = time.monotonic() + 60
    while True:
        lines = compose_stack.run(
            "exec", "-T", "otel-collector", "tail", "-n", "3000", "/data/spans.jsonl"
        ).stdout.splitlines()
        spans = [json.loads(line) for line in lines if line.startswith("{")]
        by_trace: dict[str, set[tuple[str, str]]] = {}
        for span in spans:
            by_trace.setdefault(span["trace_id"], set()).add((span["service"], span["name"]))
        if any(wanted <= names for names in by_trace.values()):
            break
        assert time.monotonic() < deadline, f"no trace with {wanted} in {len(spans)} spans"
        time.sleep(2)
    assert not [s for s in spans if s["name"].startswith("/grpc.health.v1.Health/")]


def _web(stack: ComposeStack, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://{stack.address('web')}{path}",
        data,
        {"Content-Type": "application/json", "X-Frontier-Client": "tests"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def test_the_web_gateway_is_published_and_its_lobby_seats_are_the_orchestrators(
    compose_stack: ComposeStack,
) -> None:
    """A lobby match with built-in bot seats and one open seat, claimed by its invite code:
    the statuses come back from the orchestrators through the published gateway port."""
    assert _web(compose_stack, "/healthz") == {"status": "ok"}
    bots = ["B1", "A2", "B2", "A3", "B3"]
    created = _web(compose_stack, "/api/matches", {"max_rounds": 1, "bots": bots})
    match_id = created["match_id"]
    code = created["invites"][0]["invite_code"]
    claimed = _web(compose_stack, f"/api/matches/{match_id}/claim", {"invite_code": code})
    assert claimed["seat"] == "A1" and claimed["token"]
    listed = [
        m for m in _web(compose_stack, "/api/matches")["matches"] if m["match_id"] == match_id
    ]
    statuses = {s["seat"]: s["status"] for s in listed[0]["seats"]}
    assert statuses == {"A1": "claimed", **dict.fromkeys(bots, "bot")}


def test_the_arena_is_published_and_welcomes_a_registered_bot(
    compose_stack: ComposeStack,
) -> None:
    """Registered (the stack's access is local) and entered through the published port: the
    arena welcomes the bot and lists it as present until its stream closes."""
    with grpc.insecure_channel(compose_stack.address("arena")) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        name = f"compose-{uuid.uuid4().hex[:8]}"
        bot = stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name), timeout=30)
        leave = threading.Event()

        def requests() -> Iterator[arena_pb2.EnterRequest]:
            hello = arena_pb2.EnterHello(bot_key=bot.bot_key, capacity=1, whole_teams=True)
            yield arena_pb2.EnterRequest(hello=hello)
            leave.wait(60)

        stream = stub.Enter(requests(), timeout=90)
        try:
            welcome = next(stream).welcome
            assert (welcome.bot_id, welcome.name) == (bot.bot_id, name)
            status = stub.GetArenaStatus(arena_pb2.GetArenaStatusRequest(), timeout=30)
            assert bot.bot_id in {b.bot_id for b in status.bots}
        finally:
            leave.set()
            stream.cancel()
