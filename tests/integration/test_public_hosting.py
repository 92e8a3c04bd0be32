"""What a public host's crowds cost, against real services: web watchers of a match share one
orchestrator stream, and the built-in bots think in worker processes, not the orchestrator's
(the figures are measured by ``frontier bench public``; these tests check the mechanisms)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from frontier.bench import canary
from frontier.bench.cpu import cpu_ms
from frontier.ops.stack import Stack, StackConfig, free_port
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2

from .sse import open_sse
from .test_metrics import scrape, total

pytestmark = pytest.mark.integration

MIRROR = "A=marquise;B=marquise"
WEB_WATCHERS = 50


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    room = str(WEB_WATCHERS + 10)
    config = StackConfig.ephemeral(
        tmp_path_factory.mktemp("public"),
        web_port=free_port(),
        web_env={"FRONTIER_WEB_SSE_PER_ADDRESS": room, "FRONTIER_WEB_SSE_PER_MATCH": room},
    )
    with Stack(config) as running:
        yield running


async def _sse(
    stack: Stack, match_id: str, writers: list[asyncio.StreamWriter]
) -> asyncio.StreamReader:
    """A watcher of the match through the gateway (:func:`.sse.open_sse`); its writer goes
    into ``writers`` so the connection stays open while the test reads."""
    reader, writer = await open_sse(stack, match_id)
    writers.append(writer)
    return reader


async def _ids_to_end(reader: asyncio.StreamReader) -> list[int]:
    """The event ids one watcher read until the stream's ``end``."""
    ids: list[int] = []
    while line := await reader.readline():
        if line.startswith(b"id: "):
            ids.append(int(line[4:]))
        elif line.startswith(b"event: "):
            assert line.startswith(b"event: end"), line
            return ids
    pytest.fail(f"the stream closed without its end after {len(ids)} events")


async def test_web_watchers_of_a_match_share_one_orchestrator_stream(public: Stack) -> None:
    streams = await _watch_to_the_end(public)
    assert streams == 1.0  # fifty watchers, one spectator stream on the orchestrator


@pytest.fixture(scope="module")
def two_gateways(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    room = str(WEB_WATCHERS + 10)
    config = StackConfig.ephemeral(
        tmp_path_factory.mktemp("two-gateways"),
        web_port=free_port(),
        web_env={
            "FRONTIER_WEB_PROCESSES": "2",
            "FRONTIER_WEB_SSE_PER_ADDRESS": room,
            "FRONTIER_WEB_SSE_PER_MATCH": room,
        },
    )
    with Stack(config) as running:
        yield running


async def test_several_gateway_processes_share_the_port_and_each_reads_a_match_once(
    two_gateways: Stack,
) -> None:
    """FRONTIER_WEB_PROCESSES=2: two processes serve the one port; each holds at most one
    orchestrator stream per watched match, whichever of them each watcher reached."""
    supervisor = two_gateways.procs["web"].pid
    assert len(_children(supervisor)) >= 2  # the two gateway processes (and no more streams)
    streams = await _watch_to_the_end(two_gateways)
    assert streams in (1.0, 2.0)


async def _watch_to_the_end(stack: Stack) -> float:
    """WEB_WATCHERS event-stream watchers of a match the canary plays to its end, opened after
    its first command: checks that each saw every event in order, and returns the spectator
    streams the orchestrator held for them meanwhile."""
    readers: list[asyncio.StreamReader] = []
    writers: list[asyncio.StreamWriter] = []
    gauges: list[float] = []

    async def watched(match_id: str, version: int) -> None:
        opened = [_sse(stack, match_id, writers) for _ in range(WEB_WATCHERS)]
        readers.extend(await asyncio.gather(*opened))
        samples = await asyncio.to_thread(scrape, stack, "orchestrator")
        gauges.append(total(samples, "frontier_watch_streams", kind="spectator"))

    async with grpc.aio.insecure_channel(stack.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        played = await canary.play(stub, 12, MIRROR, 0.0, 100_000, 600.0, watched)
    assert played.finished
    seen = await asyncio.wait_for(asyncio.gather(*(_ids_to_end(r) for r in readers)), 120)
    for writer in writers:
        writer.close()
    last = played.submits[-1][2]
    assert all(ids == list(range(1, last + 1)) for ids in seen)  # every event, in order
    assert len(gauges) == 1
    return gauges[0]


def _children(pid: int) -> set[int]:
    """The processes ``pid`` started."""
    children: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        children.update(int(c) for c in (task / "children").read_text().split())
    return children


def _children_cpu_ms(pid: int) -> float:
    """CPU used so far by the processes ``pid`` started (its bot workers)."""
    return sum(cpu_ms(child) for child in _children(pid))


def test_built_in_bots_think_in_processes_of_their_own(public: Stack) -> None:
    seats = (types_pb2.SEAT_A1, types_pb2.SEAT_B1)
    setup = [match_pb2.SeatSetup(seat=s, mode=match_pb2.SEAT_MODE_BOT, bot="search") for s in seats]
    orchestrator = public.procs["orchestrator"].pid
    before_bots = total(scrape(public, "orchestrator"), "frontier_bot_cpu_seconds_total")
    before_own = cpu_ms(orchestrator)
    with grpc.insecure_channel(public.config.address("orchestrator")) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        created = stub.CreateMatch(
            match_pb2.CreateMatchRequest(
                config=match_pb2.MatchConfig(seed=8, lineup=MIRROR, max_rounds=1),
                seat_setup=setup,
            )
        )
        watch = stub.WatchEvents(
            match_pb2.WatchEventsRequest(match_id=created.match_id), timeout=600
        )
        kinds = [reply.envelope.event.kind for reply in watch]
    assert kinds[-1] == types_pb2.EVENT_KIND_GAME_ENDED  # played to its end by the bots
    own_s = (cpu_ms(orchestrator) - before_own) / 1000
    bots_s = total(scrape(public, "orchestrator"), "frontier_bot_cpu_seconds_total") - before_bots
    assert bots_s > 0
    # the bots' CPU was spent in the orchestrator's worker processes, and outweighs what the
    # orchestrator itself spent on the whole match
    assert _children_cpu_ms(orchestrator) / 1000 >= bots_s
    assert own_s < bots_s
