"""The scoring service's live scoreboard of all matches, fed only by NATS events.

It needs no game state: SCORED, ROUND_STARTED and GAME_ENDED events are enough, so it keeps
up with any number of matches cheaply and survives restarts of every other service.  It sees
every batch, so it reads only the events' kind numbers and the few fields it keeps, without
converting events to the engine's (a conversion would cost several times the reading).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from frontier.engine.model import EventKind
from frontier.v1 import events_pb2, scoring_pb2
from frontier.wire.convert import enum_to_proto

_SCORED = enum_to_proto(EventKind.SCORED)
_ROUND_STARTED = enum_to_proto(EventKind.ROUND_STARTED)
_GAME_ENDED = enum_to_proto(EventKind.GAME_ENDED)


@dataclass(slots=True)
class _Row:
    score_a: int = 0
    score_b: int = 0
    round: int = 0
    winner: str = ""
    last_seq: int = 0


class Scoreboard:
    def __init__(self) -> None:
        self._rows: dict[str, _Row] = {}
        # brings in the batches stored but not delivered yet (the stream follower's sync)
        self.catch_up: Callable[[], Awaitable[None]] | None = None

    async def current(self) -> list[scoring_pb2.MatchScore]:
        """The rows, once every batch stored before this call is counted."""
        if self.catch_up is not None:
            await self.catch_up()
        return self.rows()

    async def on_batch(self, stream_seq: int, batch: events_pb2.EventBatch) -> None:
        row = self._rows.setdefault(batch.match_id, _Row())
        for env in batch.envelopes:
            if env.seq <= row.last_seq:
                continue
            row.last_seq = env.seq
            event = env.event
            kind = event.kind
            if kind == _SCORED:
                if event.target == "A":
                    row.score_a += event.amount
                else:
                    row.score_b += event.amount
            elif kind == _ROUND_STARTED:
                row.round = event.count
            elif kind == _GAME_ENDED:
                row.winner = event.text

    def rows(self) -> list[scoring_pb2.MatchScore]:
        return [
            scoring_pb2.MatchScore(
                match_id=m,
                score_a=r.score_a,
                score_b=r.score_b,
                round=r.round,
                winner=r.winner,
                last_seq=r.last_seq,
            )
            for m, r in sorted(self._rows.items())
        ]
