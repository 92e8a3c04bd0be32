"""BotService: bots in any language play a seat over one bidirectional gRPC stream.

The protocol is documented in ``proto/frontier/v1/bot.proto``.  This module only moves
messages: every answer goes through :meth:`Orchestrator.answer_decision`, the same single-writer
pipeline as SubmitCommand, so a stream can never do more than the seat's token could do
through MatchService.

Why one writer task per stream plus a reader task: a bot may answer at any time (also
wrongly, or twice), while the server must push decision requests as soon as the match waits
for the seat.  The reader handles answers one at a time and queues any reply; the writer
sends queued replies and, whenever the match changed, the open decision if it has not sent
it yet.  A reconnect is simply a new stream: its writer has sent nothing, so it sends the
open decision again, with the same decision id.

Bad input never takes the server down: a malformed or unexpected message is ignored or
rejected, an exception in a stream ends that stream only, with a status code.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator

import grpc

from frontier.engine import Seat
from frontier.engine.model import Command
from frontier.runtime.errors import (
    REASON_PREFIX,
    GrpcContext,
    ServiceError,
    abort,
    about,
    classify,
    metadata_of,
)
from frontier.v1 import bot_pb2, bot_pb2_grpc, errors_pb2, events_pb2, types_pb2
from frontier.wire.convert import enum_to_proto
from frontier.wire.kinds import DECISIONS

from . import referee
from .core import Orchestrator
from .hosted_match import HostedMatch, NotOwner, unix_ms
from .peers import FORWARDED, Peers, peer_failure, refuse_second_hop
from .replies import view_message
from .seat_records import Rejection

log = logging.getLogger("frontier.bots")

HELLO_TIMEOUT_S = 10.0  # a stream that does not say Hello in time is closed
HEARTBEAT_S = 15.0  # the server sends a Heartbeat after this long without a message
MAX_OUTBOX = 256  # replies queued for a bot that does not read (oldest dropped)


class _Session:
    """One stream's link to its match: the writer's queue and alarm."""

    def __init__(self, seat: Seat, strike_limit: int) -> None:
        self.seat = seat
        self.strike_limit = strike_limit
        self.outbox: deque[bot_pb2.PlayResponse] = deque(maxlen=MAX_OUTBOX)
        self.wake = asyncio.Event()
        self.closed = ""  # why the server ended this stream (a newer stream, draining)
        self.closed_code = grpc.StatusCode.ABORTED
        self.reader_done = False

    def push(self, message: bot_pb2.PlayResponse) -> None:
        self.outbox.append(message)
        self.wake.set()

    # --- SessionListener ----------------------------------------------------------------
    def on_commit(self, seat: Seat, command: Command, record: events_pb2.DecisionRecord) -> None:
        if seat is self.seat and record.answered_by == referee.TIMEOUT:
            self.push(
                bot_pb2.PlayResponse(
                    strike=bot_pb2.Strike(
                        decision_id=record.decision_id,
                        command_id=command.key(),
                        legal_id=command.key(),
                        strikes=record.strikes,
                        strike_limit=self.strike_limit,
                        taken_over=record.taken_over,
                    )
                )
            )
        self.wake.set()

    def poke(self) -> None:
        self.wake.set()

    def close(self, code: grpc.StatusCode, reason: str) -> None:
        self.closed_code = code
        self.closed = reason
        self.wake.set()


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    def __init__(self, core: Orchestrator, peers: Peers) -> None:
        self.core = core
        self.peers = peers

    async def Play(
        self, request_iterator: AsyncIterator[bot_pb2.PlayRequest], context: GrpcContext
    ) -> AsyncIterator[bot_pb2.PlayResponse]:
        try:
            if self.core.draining:
                raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
            hello = await asyncio.wait_for(_first(request_iterator), HELLO_TIMEOUT_S)
            if not hello.match_id:
                raise ServiceError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "hello.match_id is required",
                    "MALFORMED",
                    about("hello.match_id"),
                )
            try:
                hosted = await self.core.get(hello.match_id)
            except NotOwner as exc:
                refuse_second_hop(context)
                async for reply in self._relay(exc.address, hello, request_iterator):
                    yield reply
                return
            seat = self.core.seat_for(hosted, hello.seat_token)
        except TimeoutError:
            await abort(
                context,
                ServiceError(
                    grpc.StatusCode.DEADLINE_EXCEEDED, "no Hello within 10 s", "HELLO_TIMEOUT"
                ),
            )
        except Exception as exc:
            await abort(context, exc)
        session = _Session(seat, hosted.clock.strike_limit)
        previous = hosted.attach(seat, session)
        if previous is not None:
            previous.close(
                grpc.StatusCode.ABORTED, "a newer stream for this seat replaced this one"
            )
        reader = asyncio.ensure_future(self._read(request_iterator, hosted, session))
        try:
            yield self._welcome(hosted, seat)
            async for reply in self._write(hosted, session):
                yield reply
            if session.closed:
                replaced = session.closed_code is grpc.StatusCode.ABORTED
                reason = "STREAM_REPLACED" if replaced else ""
                await abort(context, ServiceError(session.closed_code, session.closed, reason))
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
            hosted.detach(seat, session)

    async def _relay(
        self,
        address: str,
        hello: bot_pb2.Hello,
        requests: AsyncIterator[bot_pb2.PlayRequest],
    ) -> AsyncIterator[bot_pb2.PlayResponse]:
        """Pass a bot's stream through to the orchestrator that owns its match."""
        call = self.peers.bot_stub(address).Play(metadata=((FORWARDED, "1"),))

        async def upstream() -> None:
            await call.write(bot_pb2.PlayRequest(hello=hello))
            async for request in requests:
                await call.write(request)
            await call.done_writing()

        pump = asyncio.ensure_future(upstream())
        try:
            async for reply in call:
                yield reply
        except grpc.aio.AioRpcError as exc:
            raise peer_failure(exc) from None
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump
            call.cancel()

    def _welcome(self, hosted: HostedMatch, seat: Seat) -> bot_pb2.PlayResponse:
        clock = hosted.clock_of(seat)
        return bot_pb2.PlayResponse(
            welcome=bot_pb2.Welcome(
                seat=types_pb2.Seat.ValueType(enum_to_proto(seat)),
                match_id=hosted.match_id,
                lineup=hosted.config.lineup,
                decision_budget_ms=hosted.clock.budget_ms,
                reserve_ms=clock.reserve_ms,
                strikes=clock.strikes,
                strike_limit=hosted.clock.strike_limit if hosted.clock.enabled else 0,
                taken_over=clock.taken_over,
            )
        )

    async def _write(
        self, hosted: HostedMatch, session: _Session
    ) -> AsyncIterator[bot_pb2.PlayResponse]:
        """Queued replies, then the open decision once, until the match ends."""
        sent = ""
        while not session.closed:
            session.wake.clear()
            while session.outbox:
                yield session.outbox.popleft()
            if hosted.ended:  # played to its end, or abandoned (winner "")
                state = hosted.state
                yield bot_pb2.PlayResponse(
                    match_over=bot_pb2.MatchOver(
                        winner=state.winner,
                        score_a=state.scores[Seat.A1.team],
                        score_b=state.scores[Seat.B1.team],
                    )
                )
                return
            if session.reader_done:
                return  # the bot closed its side: nothing more can be answered
            decision = self.core.open_decision(hosted, session.seat)
            if decision is not None and decision != sent:
                sent = decision
                yield self._decision(hosted, session.seat, decision)
                continue
            try:
                await asyncio.wait_for(session.wake.wait(), HEARTBEAT_S)
            except TimeoutError:
                yield bot_pb2.PlayResponse(heartbeat=bot_pb2.Heartbeat())

    def _decision(self, hosted: HostedMatch, seat: Seat, decision: str) -> bot_pb2.PlayResponse:
        state = hosted.state
        pending = state.decisions[0] if state.decisions else None
        clock = hosted.clock_of(seat)
        kind = pending.kind if pending is not None and pending.seat is seat else ""
        return bot_pb2.PlayResponse(
            decision=bot_pb2.DecisionRequest(
                decision_id=decision,
                decision_version=int(decision),  # the id is the version it opened at
                decision_kind=DECISIONS[kind],
                view=view_message(hosted, seat),
                legal=hosted.legal(seat).wire(),
                kind=kind,
                deadline_unix_ms=hosted.deadline_unix_ms(seat),
                reserve_ms=clock.reserve_ms if hosted.clock.enabled else 0,
                budget_ms=hosted.clock.budget_ms,
                server_time_unix_ms=unix_ms(),
            )
        )

    async def _read(
        self,
        requests: AsyncIterator[bot_pb2.PlayRequest],
        hosted: HostedMatch,
        session: _Session,
    ) -> None:
        try:
            async for request in requests:
                which = request.WhichOneof("message")
                if which == "heartbeat":
                    session.push(bot_pb2.PlayResponse(heartbeat=bot_pb2.Heartbeat()))
                elif which == "answer":
                    await self._answer(hosted, session, request.answer)
                # a later Hello or an empty message: ignored (see bot.proto)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a broken or malformed stream ends this stream only
            log.debug("bot stream of %s ended: %s", session.seat.value, exc)
        finally:
            session.reader_done = True
            session.wake.set()

    async def _answer(self, hosted: HostedMatch, session: _Session, answer: bot_pb2.Answer) -> None:
        """Apply ``answer``; a refused one is told as AnswerRejected, with the reason and
        metadata a MatchService call would fail with (an accepted answer shows as the next
        decision request)."""
        # legal_id is the clear name of the same id; command_id is what older bots send
        legal_id = answer.legal_id or answer.command_id
        try:
            if answer.legal_id and answer.command_id and answer.legal_id != answer.command_id:
                raise ServiceError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "Answer.legal_id and Answer.command_id name different legal commands",
                    "MALFORMED",
                    about("legal_id"),
                )
            await self.core.answer_decision(hosted, session.seat, answer.decision_id, legal_id)
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            code, message, reason = classify(exc)
            if code is grpc.StatusCode.INTERNAL:
                log.exception("internal error answering for %s", session.seat.value)
            rejected = bot_pb2.AnswerRejected(
                decision_id=answer.decision_id[:64],
                command_id=legal_id[:256],
                legal_id=legal_id[:256],
                reason=f"{code.name}: {message}",
                reason_code=errors_pb2.ErrorReason.Value(REASON_PREFIX + reason),
                metadata=metadata_of(exc),
            )
            # kept for GetMatchInfo's seat records (check-bot reads them)
            hosted.play_of(session.seat).refused(
                answer.decision_id, legal_id, Rejection(reason, rejected.reason)
            )
        session.push(bot_pb2.PlayResponse(rejected=rejected))


async def _first(requests: AsyncIterator[bot_pb2.PlayRequest]) -> bot_pb2.Hello:
    async for request in requests:
        if request.WhichOneof("message") != "hello":
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "the first message of a stream must be a Hello",
                "MALFORMED",
                about("hello"),
            )
        return request.hello
    raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "the stream ended before a Hello")
