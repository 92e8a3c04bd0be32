"""A small asyncio SDK for remote bots: connect, receive decisions, answer.

A remote bot is a separate process that plays one seat through ``BotService.Play``
(``proto/frontier/v1/bot.proto``).  With this SDK a bot is one object with a ``choose``
method::

    class MyBot:
        def choose(self, decision: Decision) -> str:
            return decision.legal[0].id          # the id of a legal command

    result = await BotClient("127.0.0.1:50051", match_id, token).play(MyBot())

The SDK does the protocol: it says Hello, answers each DecisionRequest with the strategy's
choice, answers a rejected answer with another choice (the decision stays open), counts
strikes, and reconnects when the stream breaks (the server then sends the open decision
again).  It returns once the server says MatchOver.

What a bot sees is exactly what its seat may see: ``decision.view`` (the seat's view as
JSON, as in ``GetView``), ``decision.typed_view`` (the same as a ``frontier.v1.View``) and
``decision.legal`` (ids, commands and labels, and each command's verb, cost and certain
VP: ``max(decision.legal, key=lambda c: c.vp or 0)`` is a command that surely scores most).
It never gets the match state, the seed or another seat's hand.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import grpc
from google.rpc.error_details_pb2 import ErrorInfo
from grpc_status import rpc_status

from frontier.engine import Command, Seat, rng
from frontier.runtime.tls import aio_channel
from frontier.v1 import bot_pb2, bot_pb2_grpc, command_facts_pb2, types_pb2
from frontier.wire.convert import command_from_proto, enum_from_proto

from .greedy import GreedyBot
from .halving import HalvingSearchBot
from .search import SearchBot, time_limit_ms

log = logging.getLogger("frontier.bot")

# Errors after which a new stream may succeed; any other status ends the bot (a bad token
# stays bad).
MAX_RECONNECTS = 20  # consecutive broken streams before the bot gives up
RECONNECT_WAIT_S = 0.2  # the first wait before reconnecting; it doubles up to 5 s
# The remote search bot: as many iterations as fit in this many milliseconds (or in the
# decision's clock, when shorter); the iteration cap only bounds an idle machine.
REMOTE_LIMIT_MS = 1000.0
REMOTE_ITERATIONS = 5000
RECONNECTABLE = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INTERNAL}
)


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal command of a decision, with the id to answer with."""

    id: str
    command: Command
    label: str = ""  # the server's English label ("March 2 warriors Hill → Creek")
    # what it does (move, build, craft...): a frontier.v1.CommandVerb number
    verb: command_facts_pb2.CommandVerb.ValueType = command_facts_pb2.COMMAND_VERB_UNSPECIFIED
    # what it takes from the seat (cards, supporters, items, warriors, wood); empty if nothing
    cost: types_pb2.CommandCost = field(default_factory=types_pb2.CommandCost)
    vp: int | None = None  # the VP it surely scores for the team; None when chance decides

    @classmethod
    def from_proto(cls, legal: types_pb2.LegalCommand) -> Choice:
        """One ``LegalCommand`` of a DecisionRequest, decoded."""
        return cls(
            legal.id,
            command_from_proto(legal.command),
            legal.label,
            legal.verb,
            legal.cost,
            legal.vp if legal.HasField("vp") else None,
        )


@dataclass(frozen=True, slots=True)
class Decision:
    """One DecisionRequest, decoded."""

    id: str
    kind: str  # the pending decision's kind, or "" for a step of the seat's own turn
    seat: Seat
    view: dict[str, Any]
    legal: list[Choice]
    deadline_unix_ms: int  # 0: no deadline
    budget_ms: int
    reserve_ms: int
    server_time_unix_ms: int
    typed_view: types_pb2.View = field(default_factory=types_pb2.View)  # the same, typed
    # the state version the decision opened at: SubmitCommandRequest.expected_version
    version: int = 0

    def time_left_ms(self) -> float | None:
        """Milliseconds until the deadline by the server's clock (None: no deadline)."""
        if not self.deadline_unix_ms:
            return None
        return float(self.deadline_unix_ms - self.server_time_unix_ms)

    @classmethod
    def from_proto(cls, seat: Seat, request: bot_pb2.DecisionRequest) -> Decision:
        return cls(
            id=request.decision_id,
            kind=request.kind,
            seat=seat,
            view=json.loads(request.view.json) if request.view.json else {},
            legal=[Choice.from_proto(c) for c in request.legal],
            deadline_unix_ms=request.deadline_unix_ms,
            budget_ms=request.budget_ms,
            reserve_ms=request.reserve_ms,
            server_time_unix_ms=request.server_time_unix_ms,
            typed_view=request.view,
            version=request.decision_version,
        )


class Strategy(Protocol):
    """What a bot author writes: pick the id of one of ``decision.legal``."""

    def choose(self, decision: Decision) -> str:
        """Return ``decision.legal[i].id`` for some i; never called with an empty list."""
        ...


class RandomStrategy:
    """Uniform choice among the legal commands (seeded, reproducible)."""

    def __init__(self, seed: int) -> None:
        self._rng = rng.seed_state(seed)

    def choose(self, decision: Decision) -> str:
        index, self._rng = rng.below(self._rng, len(decision.legal))
        return decision.legal[index].id


class GreedyStrategy:
    """The greedy bot (:class:`frontier.bots.greedy.GreedyBot`) as a remote bot: it plans
    each command's turn on a determinization of ``decision.view``, as the in-process bot
    does on its own view, so the same seed answers the same decisions either way."""

    def __init__(self, seed: int) -> None:
        self._bot = GreedyBot(seed)

    def choose(self, decision: Decision) -> str:
        by_command = {c.command: c.id for c in decision.legal}
        chosen = self._bot.choose_from_view(decision.view, [c.command for c in decision.legal])
        return by_command[chosen]


class _ViewSearch(Protocol):
    def choose_from_view(
        self, data: Any, legal: list[Command], time_limit_ms: float | None = None
    ) -> Command: ...


class SearchStrategy:
    """The search bot (:class:`frontier.bots.search.SearchBot`) as a remote bot: it rebuilds
    engine states from ``decision.view`` alone and thinks within the decision's clock."""

    def __init__(self, seed: int) -> None:
        self._bot: _ViewSearch = SearchBot(
            seed, iterations=REMOTE_ITERATIONS, time_limit_ms=REMOTE_LIMIT_MS
        )

    def choose(self, decision: Decision) -> str:
        by_command = {c.command: c.id for c in decision.legal}
        limit = time_limit_ms(decision.budget_ms, decision.reserve_ms, REMOTE_LIMIT_MS)
        chosen = self._bot.choose_from_view(
            decision.view, [c.command for c in decision.legal], limit
        )
        return by_command[chosen]


class HalvingStrategy(SearchStrategy):
    """The halving search (:class:`frontier.bots.halving.HalvingSearchBot`) as a remote bot:
    its whole playout budget, cut short only by a decision clock shorter than it needs."""

    def __init__(self, seed: int) -> None:
        self._bot = HalvingSearchBot(seed, time_limit_ms=REMOTE_LIMIT_MS)


STRATEGIES: dict[str, Callable[[int], Strategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "search": SearchStrategy,
    "search-halving": HalvingStrategy,
}


@dataclass
class BotResult:
    """How the bot's match went, from its own point of view."""

    seat: Seat | None = None
    winner: str = ""
    score_a: int = 0
    score_b: int = 0
    decisions: int = 0
    answers: int = 0
    rejected: int = 0
    strikes: int = 0
    taken_over: bool = False
    reconnects: int = 0
    rejections: list[str] = field(default_factory=list)  # the first few reasons


@dataclass(frozen=True, slots=True)
class ErrorDetails:
    """What an error status says for programs: its ErrorInfo (errors.proto)."""

    code: grpc.StatusCode
    message: str
    reason: str  # ErrorInfo.reason, an ErrorReason name ("" when the status carries none)
    metadata: dict[str, str]  # ErrorInfo.metadata: "field", "current_version", "match_id"
    domain: str = ""  # "frontier.v1" for the server's own errors


def error_details(error: grpc.RpcError) -> ErrorDetails:
    """Decode a failed call's ``grpc-status-details-bin`` trailer (a google.rpc.Status)
    with grpcio-status: the reason and metadata of its ErrorInfo.  Takes the exception of
    a blocking call or an ``AioRpcError``.  A status without ErrorInfo (gRPC's own, a lost
    connection say) has reason "" and no metadata."""
    code, message = error.code(), error.details() or ""
    try:
        # from_call reads only what every RpcError of a call has: code, details, trailer
        status = rpc_status.from_call(cast(grpc.Call, error))
    except ValueError:  # a trailer that contradicts the call's own code or message
        status = None
    for detail in status.details if status is not None else ():
        info = ErrorInfo()
        if detail.Unpack(info):
            return ErrorDetails(code, message, info.reason, dict(info.metadata), info.domain)
    return ErrorDetails(code, message, "", {})


class BotError(RuntimeError):
    """The bot cannot play: a bad token or match, or the server kept refusing the stream.
    ``details``: the server's refusal, when there was one."""

    def __init__(self, message: str, details: ErrorDetails | None = None) -> None:
        super().__init__(message)
        self.details = details

    @classmethod
    def refused(cls, exc: grpc.aio.AioRpcError) -> BotError:
        """The server's refusal of a stream that trying again would not change (a status
        not in :data:`RECONNECTABLE`), with its reason."""
        details = error_details(exc)
        return cls(f"{exc.code().name} {details.reason}: {exc.details()}", details)


class BotClient:
    """Plays one seat of one match over ``BotService.Play``; see the module docstring."""

    def __init__(
        self,
        url: str,
        match_id: str,
        seat_token: str,
        *,
        seat: Seat | None = None,
        max_reconnects: int | None = None,
        reconnect_wait_s: float | None = None,
    ) -> None:
        self.url = url
        self.match_id = match_id
        self.seat_token = seat_token
        self.seat = seat  # when given, a token of another seat is an error
        self.max_reconnects = MAX_RECONNECTS if max_reconnects is None else max_reconnects
        self.reconnect_wait_s = RECONNECT_WAIT_S if reconnect_wait_s is None else reconnect_wait_s

    async def play(self, strategy: Strategy) -> BotResult:
        """Play until MatchOver; reconnects on a broken stream (bounded)."""
        result = BotResult()
        failures = 0
        async with aio_channel(self.url) as channel:
            stub = bot_pb2_grpc.BotServiceStub(channel)
            while True:
                try:
                    if await self._stream(stub, strategy, result):
                        return result
                    failure = "the server ended the stream"
                except grpc.aio.AioRpcError as exc:
                    if exc.code() not in RECONNECTABLE:
                        raise BotError.refused(exc) from None
                    failure = f"{exc.code().name}: {exc.details()}"
                failures += 1
                if failures > self.max_reconnects:
                    raise BotError(f"gave up after {self.max_reconnects} reconnects: {failure}")
                result.reconnects += 1
                log.info("stream lost (%s); reconnecting", failure)
                await asyncio.sleep(min(self.reconnect_wait_s * 2 ** (failures - 1), 5.0))

    async def _stream(
        self, stub: bot_pb2_grpc.BotServiceAsyncStub, strategy: Strategy, result: BotResult
    ) -> bool:
        """One stream; True once the match is over."""
        outgoing: asyncio.Queue[bot_pb2.PlayRequest | None] = asyncio.Queue()
        outgoing.put_nowait(
            bot_pb2.PlayRequest(
                hello=bot_pb2.Hello(match_id=self.match_id, seat_token=self.seat_token)
            )
        )

        async def requests() -> AsyncIterator[bot_pb2.PlayRequest]:
            while (request := await outgoing.get()) is not None:
                yield request

        call = stub.Play(requests())
        open_decision: Decision | None = None
        refused: set[str] = set()
        try:
            async for response in call:
                which = response.WhichOneof("message")
                if which == "welcome":
                    result.seat = enum_from_proto(Seat, response.welcome.seat)
                    result.taken_over = response.welcome.taken_over
                    if self.seat is not None and result.seat is not self.seat:
                        raise BotError(
                            f"the token plays seat {result.seat.value}, not {self.seat.value}"
                        )
                elif which == "decision":
                    assert result.seat is not None, "the server sends Welcome first"
                    open_decision = Decision.from_proto(result.seat, response.decision)
                    refused = set()
                    result.decisions += 1
                    self._answer(strategy, open_decision, refused, outgoing, result)
                elif which == "rejected":
                    rejected = response.rejected
                    result.rejected += 1
                    if len(result.rejections) < 5:
                        result.rejections.append(rejected.reason)
                    if open_decision is not None and rejected.decision_id == open_decision.id:
                        refused.add(rejected.command_id)
                        self._answer(strategy, open_decision, refused, outgoing, result)
                elif which == "strike":
                    result.strikes = response.strike.strikes
                    result.taken_over = result.taken_over or response.strike.taken_over
                elif which == "match_over":
                    over = response.match_over
                    result.winner, result.score_a, result.score_b = (
                        over.winner,
                        over.score_a,
                        over.score_b,
                    )
                    return True
        finally:
            outgoing.put_nowait(None)
            call.cancel()
        return False

    @staticmethod
    def _answer(
        strategy: Strategy,
        decision: Decision,
        refused: set[str],
        outgoing: asyncio.Queue[bot_pb2.PlayRequest | None],
        result: BotResult,
    ) -> None:
        """Ask the strategy; after a rejection, fall back to a choice not yet refused."""
        options = [c for c in decision.legal if c.id not in refused]
        if not options:
            return  # every choice was refused: the server's deadline will decide
        chosen = strategy.choose(decision)
        if chosen in refused or all(c.id != chosen for c in options):
            chosen = options[0].id
        outgoing.put_nowait(
            bot_pb2.PlayRequest(answer=bot_pb2.Answer(decision_id=decision.id, legal_id=chosen))
        )
        result.answers += 1


def make_strategy(kind: str, seed: int) -> Strategy:
    try:
        factory = STRATEGIES[kind]
    except KeyError:
        raise BotError(
            f"unknown bot kind {kind!r}; known: {', '.join(sorted(STRATEGIES))}"
        ) from None
    return factory(seed)


async def run_bot(
    url: str, match_id: str, token: str, kind: str, seed: int, seat: Seat | None = None
) -> BotResult:
    """Play one seat with a built-in strategy ("random", "greedy" or "search")."""
    strategy = make_strategy(kind, seed)
    started = time.monotonic()
    result = await BotClient(url, match_id, token, seat=seat).play(strategy)
    log.info("match over after %.1fs: %s", time.monotonic() - started, result)
    return result
