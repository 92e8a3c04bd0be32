"""The Python arena player's leaving: with ``--seats N`` it says it is leaving on its N-th
SeatDone, and stays in the arena (its Enter stream open) until its other seats in play
are over too, so that no seat it plays to the end counts as left."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from frontier.arena import player as player_module
from frontier.arena.player import Player, PlayerOptions
from frontier.v1 import arena_pb2, types_pb2


class Gated:
    """A BotClient whose seat is played when the test opens its match's gate."""

    gates: ClassVar[dict[str, asyncio.Event]] = {}

    def __init__(self, where: str, match_id: str, token: str, seat: Any) -> None:
        self.match_id = match_id

    async def play(self, strategy: Any) -> SimpleNamespace:
        await self.gates[self.match_id].wait()
        return SimpleNamespace(winner="A")


def seat_dones(player: Player) -> list[tuple[str, bool]]:
    found = []
    while not player.outgoing.empty():
        request = player.outgoing.get_nowait()
        assert request is not None
        found.append((request.seat_done.match_id, request.seat_done.leaving))
    return found


async def test_a_leaving_player_stays_until_its_other_seats_are_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(player_module, "BotClient", Gated)
    Gated.gates = {"m1": asyncio.Event(), "m2": asyncio.Event()}
    player = Player(PlayerOptions(arena="arena:1", bot_key="k", capacity=2, seats=1))
    tasks = {}
    for match_id, seat in (("m1", types_pb2.SEAT_A1), ("m2", types_pb2.SEAT_B1)):
        assignment = arena_pb2.SeatAssignment(match_id=match_id, seat=seat, seat_token="t")
        tasks[match_id] = task = asyncio.create_task(player._seat(assignment))
        player.tasks.add(task)
        task.add_done_callback(player.tasks.discard)

    Gated.gates["m1"].set()
    await tasks["m1"]
    assert seat_dones(player) == [("m1", True)]  # the arena seats it nowhere again
    assert not player.finished.is_set()  # but its seat of m2 is still being played

    Gated.gates["m2"].set()
    await tasks["m2"]
    assert seat_dones(player) == [("m2", True)]
    assert player.finished.is_set() and player.played == 2
