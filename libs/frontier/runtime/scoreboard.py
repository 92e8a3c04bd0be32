"""The scoring service's live scoreboard of all matches, fed only by NATS events.

It needs no game state: SCORED, ROUND_STARTED and GAME_ENDED events are enough, so it keeps
up with any number of matches cheaply and survives restarts of every other service.
"""

from __future__ import annotations

from dataclasses import dataclass

from frontier.engine.model import EventKind
from frontier.v1 import events_pb2, scoring_pb2
from frontier.wire.convert import enum_from_proto


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

    async def on_batch(self, stream_seq: int, batch: events_pb2.EventBatch) -> None:
        row = self._rows.setdefault(batch.match_id, _Row())
        for env in batch.envelopes:
            if env.seq <= row.last_seq:
                continue
            row.last_seq = env.seq
            kind = enum_from_proto(EventKind, env.event.kind)
            if kind is EventKind.SCORED:
                if env.event.target == "A":
                    row.score_a += env.event.amount
                else:
                    row.score_b += env.event.amount
            elif kind is EventKind.ROUND_STARTED:
                row.round = env.event.count
            elif kind is EventKind.GAME_ENDED:
                row.winner = env.event.text

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
