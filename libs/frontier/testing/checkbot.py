"""Play a bot under test through a running stack and report what the server saw of it.

One implementation for ``frontier check-bot`` and the pytest helper ``play_with``: create a
match that seats the bot in one faction's seat against the server's built-in bots
(``SEAT_MODE_BOT``), start the bot (:mod:`.players`), wait for it, then read the match's
result (``GetView``) and the bot's seat record (``GetMatchInfo`` with the bot's own token:
strikes, think times and, for the own seat only, the refused answers).

The match has a clock, so a bot that misses a deadline gets a strike instead of stalling the
check; a bot that crashes, or overruns the time limit, has its match abandoned (the host's
``AbandonMatch``) so that nothing keeps playing after the check.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from frontier.engine import Seat
from frontier.engine.lineup import R2_DEFAULT_LINEUP, parse_lineup
from frontier.runtime.settings import host_key_metadata
from frontier.runtime.tls import sync_channel
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import enum_from_proto, enum_to_proto

from .players import BotSpec, start_player
from .report import CheckReport, MatchReport, Rejected

# Each faction (and Vagabond character) once, in this order: the bot's seat in match i.
FACTIONS = ("marquise", "eyrie", "alliance", "thief", "tinker", "ranger")
# The built-in bots the server seats against the bot (MatchConfig.takeover_bot's names).
OPPONENTS = ("greedy", "random", "search")
RPC_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """How each match of a check is set up."""

    seed: int = 1  # match i uses seed + i (a fixed seed: the check is reproducible)
    max_rounds: int = 0  # 0: the full match (6 rounds)
    opponents: str = "greedy"
    budget_ms: int = 5_000  # each decision's time before the reserve is touched
    reserve_ms: int = 60_000  # each seat's reserve (covers the bot's start-up)
    timeout_s: float = 900.0  # per match; the bot is stopped past it
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="frontier-check-")))


@dataclass(frozen=True, slots=True)
class Target:
    """A running stack: its MatchService and BotService address, and its web gateway."""

    address: str
    web_url: str = ""  # "" when the stack runs no web gateway


def placement(where: str) -> tuple[str, Seat]:
    """The lineup and seat that put the bot in ``where``: a faction or character name
    ("eyrie", "ranger"), or a seat of the default lineup ("A2")."""
    lineup = R2_DEFAULT_LINEUP
    if where.lower() == "ranger":
        lineup = lineup.replace("thief", "ranger")
    seats = parse_lineup(lineup)
    if where.upper() in {s.value for s in seats}:
        return lineup, Seat(where.upper())
    for seat, spec in seats.items():
        name = spec.character.value if spec.character is not None else spec.faction.value
        if name == where.lower():
            return lineup, seat
    known = ", ".join((*FACTIONS, *(s.value for s in seats)))
    raise ValueError(f"no seat for {where!r}: name a faction or a seat ({known})")


def check_bot(
    target: Target, bot: BotSpec, matches: int = len(FACTIONS), options: CheckOptions | None = None
) -> CheckReport:
    """``matches`` matches, the bot's faction going round :data:`FACTIONS`."""
    options = options or CheckOptions()
    report = CheckReport()
    for i in range(matches):
        report.matches.append(play_match(target, bot, FACTIONS[i % len(FACTIONS)], options, i))
    return report


def play_match(
    target: Target, bot: BotSpec, where: str, options: CheckOptions, index: int = 0
) -> MatchReport:
    """One match with ``bot`` in ``where`` (see :func:`placement`); its report, judged."""
    if options.opponents not in OPPONENTS:
        raise ValueError(f"opponents must be one of {', '.join(OPPONENTS)}")
    lineup, seat = placement(where)
    with sync_channel(target.address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        created = stub.CreateMatch(
            _create_request(lineup, seat, options, index),
            RPC_TIMEOUT_S,
            metadata=host_key_metadata(),
        )
        match_id = created.match_id
        token = next(t.token for t in created.seats if enum_from_proto(Seat, t.seat) is seat)
        report = MatchReport(match_id, seat.value, where, lineup)
        report.replay = _replay_link(target, match_id)
        try:
            player = start_player(bot, target.address, match_id, seat, token, options.workdir)
        except BaseException:
            _abandon(stub, match_id, created.host_token)
            raise
        report.bot_log = str(player.log or "")
        report.bot_exit = player.wait(options.timeout_s)
        report.bot_error = player.error
        _read_result(stub, match_id, report)
        if not report.finished:
            _abandon(stub, match_id, created.host_token)
        player.stop()
        _read_seat_record(stub, match_id, token, seat, report)
        report.replay_file = _save_replay(stub, match_id, options.workdir)
    report.judge()
    return report


def _create_request(
    lineup: str, seat: Seat, options: CheckOptions, index: int
) -> match_pb2.CreateMatchRequest:
    """The bot's seat held (its token comes back), every other seat a built-in bot."""
    setup = [
        match_pb2.SeatSetup(
            seat=types_pb2.Seat.ValueType(enum_to_proto(other)),
            mode=match_pb2.SEAT_MODE_BOT,
            bot=options.opponents,
        )
        for other in parse_lineup(lineup)
        if other is not seat
    ]
    config = match_pb2.MatchConfig(
        seed=options.seed + index,
        lineup=lineup,
        max_rounds=options.max_rounds,
        decision_budget_ms=options.budget_ms,
        reserve_ms=options.reserve_ms,
    )
    return match_pb2.CreateMatchRequest(config=config, seat_setup=setup)


def _read_result(stub: match_pb2_grpc.MatchServiceStub, match_id: str, report: MatchReport) -> None:
    """Winner, scores and round from the spectator's view."""
    view = json.loads(
        stub.GetView(match_pb2.GetViewRequest(match_id=match_id), RPC_TIMEOUT_S).view.json
    )
    report.winner = view.get("winner") or ""
    report.finished = bool(report.winner)
    report.scores = {team: int(n) for team, n in view.get("scores", {}).items()}
    report.rounds = int(view.get("round", 0))


def _read_seat_record(
    stub: match_pb2_grpc.MatchServiceStub,
    match_id: str,
    token: str,
    seat: Seat,
    report: MatchReport,
) -> None:
    """The bot's own seat record: strikes, think times, refused answers."""
    info = stub.GetMatchInfo(
        match_pb2.GetMatchInfoRequest(match_id=match_id, seat_token=token), RPC_TIMEOUT_S
    )
    for record in info.seat_records:
        if enum_from_proto(Seat, record.seat) is not seat:
            continue
        report.strikes = record.strikes
        report.taken_over = record.taken_over
        report.answered = record.answered
        report.rejected_count = record.rejected_count
        report.rejected = [
            Rejected(r.decision_id, r.command_id, r.reason, r.message) for r in record.rejected
        ]
        report.think_p50_ms = record.think_time.p50_ms
        report.think_p99_ms = record.think_time.p99_ms
        report.think_max_ms = record.think_time.max_ms


def _save_replay(stub: match_pb2_grpc.MatchServiceStub, match_id: str, folder: Path) -> str:
    """The spectator's history of the match (ExportReplay), kept after the stack stops."""
    text = stub.ExportReplay(match_pb2.ExportReplayRequest(match_id=match_id), RPC_TIMEOUT_S).json
    path = folder / f"{match_id}.replay.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _abandon(stub: match_pb2_grpc.MatchServiceStub, match_id: str, host_token: str) -> None:
    """End the match, so that no built-in bot or clock keeps playing it after the check."""
    request = match_pb2.AbandonMatchRequest(match_id=match_id, host_token=host_token)
    try:
        stub.AbandonMatch(request, RPC_TIMEOUT_S, metadata=host_key_metadata())
    except grpc.RpcError as exc:  # FAILED_PRECONDITION: already over, nothing left to stop
        if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
            raise


def _replay_link(target: Target, match_id: str) -> str:
    """The web gateway's page of the match, else the ExportReplay call that fetches it."""
    if target.web_url:
        return f"{target.web_url}match?match={match_id}"
    body = json.dumps({"match_id": match_id})
    return f"grpcurl -plaintext -d '{body}' {target.address} frontier.v1.MatchService/ExportReplay"
