"""The Node.js bot (bots/node, @grpc/grpc-js) plays whole matches through the stack.

It reads proto/ at run time, so this test also proves that bot.proto is all another
language needs.  `make test` installs its dependencies first (`make node-bot`, npm ci from
the lock file); without node the test is skipped and says why.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from frontier.bench.campaign_bots import NODE_BOT_DIR
from frontier.bots.sdk import BotClient, RandomStrategy
from frontier.engine import Seat
from frontier.ops.stack import Stack
from frontier.v1 import command_facts_pb2, match_pb2, match_pb2_grpc

from .bot_helpers import MIRROR, create, replay
from .stream_check import stored_batches

pytestmark = pytest.mark.integration


def _node_bot(
    node: str,
    address: str,
    match_id: str,
    seat: Seat,
    token: str,
    seed: int,
    policy: str = "random",
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            *(node, str(NODE_BOT_DIR / "bot.js"), "--url", address, "--match", match_id),
            *("--seat", seat.value, "--seed", str(seed)),
            *("--policy", policy),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "FRONTIER_BOT_TOKEN": token},  # never on the command line
    )


@pytest.mark.parametrize(
    ("lineup", "seed"),
    [(MIRROR, 61), ("A=marquise,eyrie;B=marquise,alliance", 62)],
)
async def test_node_bots_play_whole_matches(
    node: str,
    stack: Stack,
    match_stub: match_pb2_grpc.MatchServiceStub,
    lineup: str,
    seed: int,
) -> None:
    """Node bots play every team-A seat and B1; any other seat is a Python SDK bot."""
    match = create(match_stub, seed=seed, lineup=lineup, max_rounds=3)
    address = stack.config.address("orchestrator")
    node_seats = [s for s in match.tokens if s.team.value == "A" or s is Seat.B1]
    procs = {
        s: _node_bot(node, address, match.match_id, s, match.tokens[s], seed + i)
        for i, s in enumerate(node_seats)
    }
    python_seats = [s for s in match.tokens if s not in procs]

    async def python_bots() -> list[str]:
        results = await asyncio.gather(
            *(
                BotClient(address, match.match_id, match.tokens[s], seat=s).play(
                    RandomStrategy(seed)
                )
                for s in python_seats
            )
        )
        return [r.winner for r in results]

    python_winners = await python_bots()
    outputs = {}
    for seat, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outputs[seat] = json.loads(out)
    view = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    assert view.winner in {"A", "B", "draw"}
    assert set(python_winners) <= {view.winner}
    assert len(procs) >= 2
    for seat, out in outputs.items():
        assert out["seat"] == seat.value and out["winner"] == view.winner
        assert (out["score_a"], out["score_b"]) == (view.score_a, view.score_b)
        assert out["decisions"] > 0 and out["answers"] >= out["decisions"]
        assert out["strikes"] == 0
        assert sum(out["rejections"].values()) == out["rejected"]  # counted by reason_code
        # the legal commands' facts reach a Node client: verbs, sure VP, costs in cards
        verbs = set(command_facts_pb2.CommandVerb.keys())
        assert {f"COMMAND_VERB_{v}" for v in out["facts"]["verbs"]} <= verbs - {
            "COMMAND_VERB_UNSPECIFIED"
        }
    facts = [out["facts"] for out in outputs.values()]
    assert sum(f["scoring"] for f in facts) > 0  # a build or craft surely scoring was offered
    assert sum(f["costing_cards"] for f in facts) > 0
    stored = await stored_batches(stack.config.nats_url, match.match_id)
    states = [after for *_, after in replay(match.config, stored)]
    assert states[-1].over and states[-1].winner == view.winner
    played = {b.seat for b in stored}
    assert len(played) == len(match.tokens)  # every seat acted


def test_node_bot_decodes_the_error_details_of_a_refused_hello(node: str, stack: Stack) -> None:
    """bot.js decodes grpc-status-details-bin with proto/google/rpc alone: an unknown
    match's reason and metadata reach its stderr as data, not just as text."""
    unknown = "0" * 32
    proc = _node_bot(node, stack.config.address("orchestrator"), unknown, Seat.A1, "t", 1)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    details = json.loads(err.splitlines()[0])["error"]
    assert (details["code"], details["reason"]) == ("NOT_FOUND", "MATCH_NOT_FOUND")
    assert details["domain"] == "frontier.v1"
    assert details["metadata"] == {"field": "match_id", "match_id": unknown}


PLANNER_PARALLEL = 3  # matches at a time: each is two node processes and the stack's work


def _planner_match(
    node: str, address: str, stub: match_pb2_grpc.MatchServiceStub, n: int
) -> tuple[str, str]:
    """One MIRROR match, the planner on team A in even matches and on team B in odd ones
    (so the seat order cancels out); returns (the planner's team, the winner)."""
    match = create(stub, seed=1000 + n, lineup=MIRROR)
    planner_team = "A" if n % 2 == 0 else "B"
    procs = [
        _node_bot(
            node,
            address,
            match.match_id,
            seat,
            token,
            seed=n * 10 + i,
            policy="planner" if seat.team.value == planner_team else "random",
        )
        for i, (seat, token) in enumerate(match.tokens.items())
    ]
    winners = set()
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        result = json.loads(out)
        assert result["strikes"] == 0 and result["rejected"] == 0
        winners.add(result["winner"])
    assert len(winners) == 1
    return planner_team, winners.pop()


@pytest.mark.timeout(3000)
@pytest.mark.parametrize(
    "matches", [20, pytest.param(100, marks=pytest.mark.slow, id="100-slow")], ids=str
)
def test_node_planner_beats_node_random_through_the_server(
    node: str, stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub, matches: int
) -> None:
    """The planning policy (bots/node/planner.js: the typed view and GetGameData only) wins
    at least 70% of the matches against the Node random bot, teams swapped every other
    match.  The default suite plays 20 matches; ``-m slow`` the 100 of docs/bots.md's figure."""
    address = stack.config.address("orchestrator")
    with ThreadPoolExecutor(PLANNER_PARALLEL) as pool:
        results = list(
            pool.map(lambda n: _planner_match(node, address, match_stub, n), range(matches))
        )
    wins = sum(1 for team, winner in results if winner == team)
    print(f"node planner vs node random: {wins} / {len(results)} wins")
    assert wins >= 0.7 * len(results), f"the planner won only {wins} of {len(results)}"
