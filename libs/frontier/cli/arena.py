"""``frontier arena``: run the bot arena, register a bot, read the arena's state and board.

    frontier arena run [--orchestrator HOST:PORT] [--port N]
    frontier arena register --name NAME [--description TEXT] [--url HOST:PORT] [--json]
    frontier arena status [--url HOST:PORT] [--json]
    frontier arena leaderboard [--url HOST:PORT] [--json]
    frontier arena campaign [--matches N] [--max-rounds R] [--seed S] [--churn-every K]
                            [--capacity C] [--in-play M] [--builtins B,B,B] [--timeout-s T]
                            [--workdir DIR] [--json]

``run`` *is* the arena service (the same process as ``python -m services.arena``), in the
foreground, configured from the FRONTIER_* environment (docs/arena.md) with the flags on
top: one place seats the bots and writes the board.  The other commands are clients of a
running arena's ArenaService (``--url``, default FRONTIER_ARENA_URL or 127.0.0.1:50057).
``register`` sends FRONTIER_HOST_KEY as the owner's host key and prints the bot key once:
only its hash is kept, so a lost key means registering a new bot.  ``campaign`` is a long
unattended run on a local stack of its own (:mod:`frontier.bench.campaign`): bots join and
leave, and at the end it checks that no match was lost and prints the board; it exits 1
when a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict

from frontier.arena.main import DEFAULT_PORT, ArenaSettings
from frontier.arena.main import run as run_arena
from frontier.bench.campaign import CampaignConfig, run_campaign
from frontier.bench.campaign_audit import DEFAULT_BUILTINS
from frontier.bots.registry import BOTS, bot_names
from frontier.bots.sdk import error_details
from frontier.cli.usage import EXIT_FAILED, EXIT_OK, error, non_negative_int, positive_int
from frontier.runtime.server import configure_logging, run_service
from frontier.runtime.settings import host_key_metadata
from frontier.runtime.tls import sync_channel
from frontier.v1 import arena_pb2, arena_pb2_grpc

URL_ENV = "FRONTIER_ARENA_URL"
CALL_TIMEOUT_S = 10.0


def add_arena_commands(commands: Any) -> None:
    arena = commands.add_parser("arena", help="the bot arena: run it, register, read the board")
    sub = arena.add_subparsers(dest="arena_command", metavar="ACTION", required=True)
    run = sub.add_parser("run", help="run the arena service in the foreground")
    run.add_argument("--orchestrator", default="", help="the server's MatchService HOST:PORT")
    run.add_argument("--port", type=int, default=0, help=f"listen port (default {DEFAULT_PORT})")
    run.set_defaults(run=run_command)
    register = sub.add_parser("register", help="register a bot (its key is shown once)")
    register.add_argument("--name", required=True, help="the bot's name on the board")
    register.add_argument("--description", default="", help="what the bot is")
    for name, helped in (
        ("status", "the bots present and the matches in play"),
        ("leaderboard", "the ratings and the recent matches"),
    ):
        sub.add_parser(name, help=helped)
    for action in sub.choices.values():
        if action is run:
            continue
        action.add_argument("--url", default="", help=f"the arena (${URL_ENV})")
        action.add_argument("--json", action="store_true", help="print one JSON object")
        action.set_defaults(run=client_command)
    _add_campaign(sub)


def _add_campaign(sub: Any) -> None:
    campaign = sub.add_parser(
        "campaign", help="a long unattended run on a local stack: churn, checks, the board"
    )
    add = campaign.add_argument
    add("--matches", type=positive_int, default=200, help="rated matches to wait for (200)")
    add("--max-rounds", type=non_negative_int, default=0, help="rounds per match (0: all)")
    add("--seed", type=int, default=0, help="the arena's seed (0)")
    add("--churn-every", type=positive_int, default=10, help="seats a bot plays, then leaves")
    add("--capacity", type=positive_int, default=2, help="matches each bot plays at once (2)")
    add("--in-play", type=positive_int, default=2, help="matches in play at once (2)")
    add(
        "--builtins",
        type=builtin_names,
        default=DEFAULT_BUILTINS,
        help="the built-in bots standing on the board, comma-separated (random,greedy,search)",
    )
    add(
        "--timeout-s",
        type=float,
        default=0.0,
        help="stop waiting after this long, then check and report (0: never)",
    )
    add("--workdir", type=Path, default=None, help="the stack's files and the bots' logs")
    add("--json", action="store_true", help="print one JSON object")
    campaign.set_defaults(run=campaign_command)


def builtin_names(text: str) -> tuple[str, ...]:
    """``--builtins``: registered bot names, each once (argparse reports anything else)."""
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in BOTS]
    if unknown or not names or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"give distinct built-in bots out of {', '.join(bot_names())}"
        )
    return names


def campaign_command(args: argparse.Namespace) -> int:
    config = CampaignConfig(
        matches=args.matches,
        max_rounds=args.max_rounds,
        seed=args.seed,
        churn_every=args.churn_every,
        capacity=args.capacity,
        in_play=args.in_play,
        timeout_s=args.timeout_s,
        workdir=args.workdir,
        builtins=args.builtins,
    )
    try:
        report = run_campaign(config, say=lambda line: print(line, file=sys.stderr, flush=True))
    except FileNotFoundError as exc:
        error(str(exc))
        return EXIT_FAILED
    if args.json:
        print(json.dumps(report.to_json(), sort_keys=True))
    else:
        for line in report.lines():
            print(line)
    return EXIT_OK if report.audit.ok else EXIT_FAILED


def run_command(args: argparse.Namespace) -> int:
    overrides: dict[str, Any] = {}
    if args.orchestrator:
        overrides["orchestrator_url"] = args.orchestrator
    if args.port:
        overrides["port"] = args.port
    settings = ArenaSettings(**overrides)
    configure_logging(settings, "arena")
    run_service(run_arena(settings))
    return EXIT_OK


def client_command(args: argparse.Namespace) -> int:
    url = args.url or os.environ.get(URL_ENV, "") or f"127.0.0.1:{DEFAULT_PORT}"
    with sync_channel(url) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        try:
            if args.arena_command == "register":
                return _register(stub, args)
            if args.arena_command == "status":
                status = stub.GetArenaStatus(
                    arena_pb2.GetArenaStatusRequest(), timeout=CALL_TIMEOUT_S
                )
                _print(status, args.json, status_lines)
                return EXIT_OK
            board = stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(), timeout=CALL_TIMEOUT_S)
            _print(board, args.json, board_lines)
            return EXIT_OK
        except grpc.RpcError as exc:
            details = error_details(exc)
            why = " ".join(part for part in (details.code.name, details.reason) if part)
            error(f"{url}: {why}: {details.message}")
            return EXIT_FAILED


def _register(stub: arena_pb2_grpc.ArenaServiceStub, args: argparse.Namespace) -> int:
    request = arena_pb2.RegisterBotRequest(name=args.name, description=args.description)
    reply = stub.RegisterBot(request, timeout=CALL_TIMEOUT_S, metadata=host_key_metadata())
    if args.json:
        print(json.dumps({"bot_id": reply.bot_id, "bot_key": reply.bot_key}, sort_keys=True))
    else:
        print(f"bot id {reply.bot_id} ({args.name}); the bot key, shown only now:")
        print(reply.bot_key)
    return EXIT_OK


def _print(message: Any, as_json: bool, lines: Any) -> None:
    if as_json:
        shown = MessageToDict(message, preserving_proto_field_name=True)
        print(json.dumps(shown, sort_keys=True))
        return
    for line in lines(message):
        print(line)


def status_lines(status: arena_pb2.GetArenaStatusResponse) -> list[str]:
    lines = [f"{len(status.bots)} bots present, {len(status.matches_in_play)} matches in play"]
    for bot in status.bots:
        lines.append(
            f"  {bot.name} ({bot.bot_id}): {bot.seats_in_play} seats in play, "
            f"room for {bot.capacity} matches"
        )
    for match in status.matches_in_play:
        lines.append(f"  match {match.match_id}: {_lineup_of(match)}")
    return lines


def board_lines(board: arena_pb2.GetLeaderboardResponse) -> list[str]:
    lines = [f"{'#':>3}  {'name':24} {'ordinal':>8} {'mu':>7} {'sigma':>6} {'played':>6}  left"]
    for place, entry in enumerate(board.entries, 1):
        rank = f"{place:>3}" if entry.ranked else "  -"
        lines.append(
            f"{rank}  {entry.name:24} {entry.rating.ordinal:8.2f} {entry.rating.mu:7.2f} "
            f"{entry.rating.sigma:6.2f} {entry.matches_played:6}  {entry.matches_left}"
        )
    lines.append(f"(ranked after {board.ranked_after} rated matches; '-': not yet)")
    lines.append("recent matches:")
    for match in board.recent_matches:
        state = arena_pb2.ArenaMatchState.Name(match.state).removeprefix("ARENA_MATCH_STATE_")
        result = f"{match.winner} {match.score_a}-{match.score_b}" if match.winner else ""
        lines.append(f"  {match.match_id} {state.lower():6} {result:10} {_lineup_of(match)}")
    return lines


def _lineup_of(match: arena_pb2.ArenaMatch) -> str:
    return " ".join(
        f"{s.faction}:{s.name}{'(left)' if s.left else ''}"
        for s in sorted(match.seats, key=lambda s: s.seat)
    )
