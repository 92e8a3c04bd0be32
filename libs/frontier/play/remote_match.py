"""Play a whole match through a running server's MatchService, with built-in bots.

The client only ever sees what a seat or a spectator may see: it asks the seat to act for
its legal commands (each with a stable id), lets a bot pick one and submits that id.  At the
end it checks the server against the in-process engine: the commands are public, and the
match seed is the client's own, so re-running them in-process must give exactly the events
a spectator watched (``WatchEvents``).  That check makes every ``make run`` an end-to-end
equivalence test, and yields a standard replay file.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from frontier.bots.sdk import Choice, Decision, make_strategy
from frontier.engine import Command, Seat, decide, evolve, initial_state, make_config
from frontier.engine.hashing import state_hash
from frontier.engine.model import EventKind
from frontier.engine.pieces import BUILDINGS, WARRIOR
from frontier.engine.view import event_for
from frontier.play.replay import REPLAY_FORMAT, Replay
from frontier.runtime.settings import host_key_metadata
from frontier.runtime.tls import sync_channel
from frontier.v1 import match_pb2, match_pb2_grpc
from frontier.wire.convert import command_from_proto, enum_from_proto, event_from_proto

RoundHook = Callable[[dict[str, Any]], None]


@dataclass
class RemoteResult:
    match_id: str
    winner: str
    scores: dict[str, int]
    rounds: int
    commands: list[Command] = field(default_factory=list)
    replay: Replay | None = None
    verified: bool = False
    message: str = ""


def summary_of(view: dict[str, Any]) -> dict[str, Any]:
    """Scores, warriors and buildings per team, from a spectator view."""
    warriors = {"A": 0, "B": 0}
    buildings = {"A": 0, "B": 0}
    for clearing in view["clearings"]:
        for seat, kinds in clearing["pieces"].items():
            team = seat[0]
            warriors[team] += kinds.get(WARRIOR, 0)
            buildings[team] += sum(n for k, n in kinds.items() if k in BUILDINGS)
    return {
        "round": view["round"],
        "scores": dict(view["scores"]),
        "warriors": warriors,
        "buildings": buildings,
    }


def play_remote(
    address: str,
    seed: int,
    lineup: str = "",
    on_round: RoundHook | None = None,
    timeout: float = 10.0,
    on_created: Callable[[str], None] | None = None,
    bot: str = "random",
) -> RemoteResult:
    """Create a match, play every seat with the built-in ``bot`` (a remote bot's strategy,
    :data:`frontier.bots.sdk.STRATEGIES`, seeded from ``seed`` and the seat), then check it
    against the engine (:attr:`RemoteResult.verified`)."""
    with sync_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        created = stub.CreateMatch(
            match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(seed=seed, lineup=lineup)),
            timeout=timeout,
            metadata=host_key_metadata(),
        )
        match_id = created.match_id
        if on_created is not None:
            on_created(match_id)
        tokens = {enum_from_proto(Seat, s.seat): s.token for s in created.seats}
        players = {seat: make_strategy(bot, seed * 31 + i) for i, seat in enumerate(sorted(tokens))}
        spectator = stub.GetView(match_pb2.GetViewRequest(match_id=match_id), timeout=timeout)
        to_act = spectator.view.to_act
        commands: list[Command] = []
        winner = ""
        while to_act:
            seat = enum_from_proto(Seat, to_act)
            token = tokens[seat]
            legal = stub.ListLegalCommands(
                match_pb2.ListLegalCommandsRequest(match_id=match_id, seat_token=token),
                timeout=timeout,
            )
            by_id = {c.id: c.command for c in legal.commands}
            view = json.loads(
                stub.GetView(
                    match_pb2.GetViewRequest(match_id=match_id, seat_token=token),
                    timeout=timeout,
                ).view.json
            )
            chosen = players[seat].choose(_decision(seat, view, legal.commands))
            reply = stub.SubmitCommand(
                match_pb2.SubmitCommandRequest(
                    match_id=match_id,
                    seat_token=token,
                    command_id=uuid.uuid4().hex,
                    expected_version=legal.version,
                    legal_id=chosen,
                ),
                timeout=timeout,
            )
            commands.append(command_from_proto(by_id[chosen]))
            started = any(
                enum_from_proto(EventKind, e.event.kind) is EventKind.ROUND_STARTED
                for e in reply.events
            )
            if started and on_round is not None:
                on_round(_spectator_summary(stub, match_id, timeout))
            to_act = reply.to_act
            winner = reply.winner
        final = _spectator_summary(stub, match_id, timeout)
        if on_round is not None:
            on_round({**final, "final": True})
        watched = [
            event_from_proto(r.envelope.event)
            for r in stub.WatchEvents(
                match_pb2.WatchEventsRequest(match_id=match_id), timeout=timeout * 10
            )
        ]
    result = RemoteResult(match_id, winner, final["scores"], final["round"], commands)
    _verify(result, seed, lineup, watched)
    return result


def _decision(seat: Seat, view: dict[str, Any], legal: Any) -> Decision:
    """The seat's turn as a remote bot's strategy reads it (no clock: a match of its own)."""
    pending = view.get("decision") or {}
    return Decision(
        id="",
        kind=pending.get("kind", "") if pending.get("seat") == seat.value else "",
        seat=seat,
        view=view,
        legal=[Choice(c.id, command_from_proto(c.command), c.label) for c in legal],
        deadline_unix_ms=0,
        budget_ms=0,
        reserve_ms=0,
        server_time_unix_ms=0,
    )


def _spectator_summary(
    stub: match_pb2_grpc.MatchServiceStub, match_id: str, timeout: float
) -> dict[str, Any]:
    view = stub.GetView(match_pb2.GetViewRequest(match_id=match_id), timeout=timeout).view
    return summary_of(json.loads(view.json))


def _verify(result: RemoteResult, seed: int, lineup: str, watched: list[Any]) -> None:
    """Re-run the commands in-process; the spectator's events must match exactly."""
    values: dict[str, object] = {"seed": seed}
    if lineup:
        values["lineup"] = lineup
    config = make_config(**values)
    state = initial_state(config)
    events = []
    for cmd in result.commands:
        for event in decide(state, cmd):
            evolve(state, event)
            events.append(event)
    public = [event_for(state, e, None) for e in events]
    if public != watched:
        first = next(
            (i for i, (a, b) in enumerate(zip(public, watched, strict=False)) if a != b),
            min(len(public), len(watched)),
        )
        result.message = f"server and engine differ at event {first}"
        return
    result.verified = state.winner == result.winner
    result.message = (
        f"server events match the in-process engine ({len(events)} events)"
        if result.verified
        else f"winner differs: engine {state.winner}, server {result.winner}"
    )
    result.replay = Replay.model_construct(
        format=REPLAY_FORMAT,
        config=config,
        commands=list(result.commands),
        events=events,
        state_hash=state_hash(state),
    )
