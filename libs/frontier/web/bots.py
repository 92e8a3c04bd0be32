"""The lobby's bot seats: seats a match's creator marks "bot" are played by the gateway as
ordinary remote bots through ``BotService`` (the SDK), with a pause before each answer so
that people watching or playing alongside can follow the match.

The tokens of bot seats stay in this process's memory and never leave it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from frontier.bots.sdk import BotClient, BotError, BotResult, Decision, make_strategy
from frontier.v1 import bot_pb2

log = logging.getLogger(__name__)


class PacedBotClient(BotClient):
    """A ``BotClient`` whose answers leave ``delay_s`` after the decision arrives."""

    delay_s: float = 0.0

    def _answer(  # type: ignore[override]
        self,
        strategy: object,
        decision: Decision,
        refused: set[str],
        outgoing: asyncio.Queue[bot_pb2.PlayRequest | None],
        result: BotResult,
    ) -> None:
        delay = self.delay_s

        class Later:
            """Stands in for the outgoing queue: the answer is queued after the pause."""

            @staticmethod
            def put_nowait(request: bot_pb2.PlayRequest) -> None:
                asyncio.get_running_loop().call_later(delay, outgoing.put_nowait, request)

        target = Later() if delay > 0 else outgoing
        BotClient._answer(strategy, decision, refused, target, result)  # type: ignore[arg-type]


@dataclass
class BotSeats:
    """Runs the bots of every match the lobby created, one task per bot seat."""

    url: str
    kind: str
    delay_s: float
    seats: dict[str, list[str]] = field(default_factory=dict)  # match id -> bot seats ("A1")
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def start(self, match_id: str, seat: str, token: str, seed: int) -> None:
        self.seats.setdefault(match_id, []).append(seat)
        client = PacedBotClient(self.url, match_id, token)
        client.delay_s = self.delay_s
        task = asyncio.get_running_loop().create_task(self._play(client, seat, seed))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _play(self, client: PacedBotClient, seat: str, seed: int) -> None:
        try:
            result = await client.play(make_strategy(self.kind, seed))
            log.info("bot %s of %s done: %s", seat, client.match_id, result.winner)
        except (BotError, OSError) as exc:
            log.warning("bot %s of %s stopped: %s", seat, client.match_id, exc)

    def bot_seats(self, match_id: str) -> list[str]:
        return sorted(self.seats.get(match_id, []))

    async def stop(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
