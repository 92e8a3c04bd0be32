"""The orchestrator: the public operations of MatchService and BotService on its matches.

:class:`Orchestrator` is what the gRPC servicers (:mod:`.servicer`, :mod:`.bot_service`)
call, free of gRPC plumbing.  Each operation finds the match (:mod:`.hosting`, which also
creates, loads, leases, unloads and recovers matches), authenticates the seat, and hands
the match to the part that holds the concern:

* :mod:`.commit`: the single-writer commit path of every command;
* :mod:`.decisions`: the open decision, bot answers and the referee's automatic answers;
* :mod:`.history`: watching, seat replays and the event history;
* :mod:`.hosted`: what is kept in memory for each match.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

import grpc

from frontier.bots.standing import StandingPolicy
from frontier.engine import Seat, to_act
from frontier.engine.model import Command, Event
from frontier.runtime.errors import ServiceError, shown
from frontier.store.matches import token_hash
from frontier.store.snapshot import CommandResult
from frontier.v1 import events_pb2

from . import history, referee
from .commit import check_not_taken_over, resolve
from .decisions import open_decision
from .hosted import Accepted, HostedMatch
from .legal_cache import Listed
from .seating import Seating


class Orchestrator(Seating):
    """The operations of MatchService and BotService on the hosted matches."""

    def seat_for(self, hosted: HostedMatch, token: str) -> Seat:
        if not token:
            raise ServiceError(
                grpc.StatusCode.UNAUTHENTICATED, "a seat token is required", "TOKEN_REQUIRED"
            )
        seat = hosted.seat_by_token_hash.get(token_hash(token))
        if seat is None and self.is_host(hosted, token):
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "the host token acts for no seat (it manages the match and sees what a "
                "spectator sees)",
                "HOST_CANNOT_ACT",
            )
        if seat is None:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "this token acts for no seat of this match",
                "UNKNOWN_TOKEN",
            )
        return Seat(seat)

    def viewer_for(self, hosted: HostedMatch, token: str) -> Seat | None:
        """The seat whose view ``token`` reads: None (the spectator) for no token and for
        the host token."""
        if not token or self.is_host(hosted, token):
            return None
        return self.seat_for(hosted, token)

    # ----- commands --------------------------------------------------------------------------
    async def submit(
        self,
        hosted: HostedMatch,
        seat: Seat,
        command_id: str,
        expected_version: int,
        command: Command | None,
        legal_id: str,
    ) -> Accepted:
        """``seat``'s command (the caller found the match and the token's seat: it reads
        both again for its reply, so they are looked up once per request)."""

        async def work() -> Accepted:
            done = hosted.command_ids.get((seat.value, command_id)) if command_id else None
            if done is not None:
                return await self._again(hosted, seat, command_id, done, command, legal_id)
            state = hosted.state
            if expected_version >= 0 and expected_version != state.version:
                raise ServiceError(
                    grpc.StatusCode.ABORTED,
                    f"stale version: you expected {expected_version}, the match is at "
                    f"{state.version}",
                    "STALE_VERSION",
                )
            check_not_taken_over(hosted, seat)
            cmd = resolve(hosted, seat, command, legal_id)
            committed = await self.commits.commit(hosted, seat, cmd, command_id, referee.SEAT)
            accepted = Accepted(
                committed.events,
                to_act(hosted.state),
                hosted.state.winner,
                _next_legal(hosted, seat),
                committed.envelopes,
            )
            if command_id:
                hosted.latest[seat] = (command_id, accepted.kept())
            return accepted

        return await self.commits.serialized(hosted, work)

    async def _again(
        self,
        hosted: HostedMatch,
        seat: Seat,
        command_id: str,
        done: CommandResult,
        command: Command | None,
        legal_id: str,
    ) -> Accepted:
        """A retry of an accepted command: the first result again, exactly.  The same id
        with another command is refused: it would otherwise be silently not applied."""
        asked = legal_id if command is None else command.key()
        if asked != done.command:
            raise ServiceError(
                grpc.StatusCode.ALREADY_EXISTS,
                f"seat {seat.value} already used command id {shown(command_id)} for another "
                f"command ({shown(done.command)}); a new command needs a new id",
                "COMMAND_ID_REUSED",
            )
        latest = hosted.latest.get(seat)
        if latest is not None and latest[0] == command_id:
            return latest[1]
        # An older command, or the first answer was given before a restart: the same events,
        # seat to act and winner; the legal commands only while the match has not moved
        # on (after that they would be stale).
        still = hosted.state.version == done.last
        return Accepted(
            await history.events_between(self.bus, hosted, done.first, done.last),
            Seat(done.to_act) if done.to_act else None,
            done.winner,
            _next_legal(hosted, seat) if still and done.to_act == seat.value else None,
        )

    # ----- bots and standing answers ---------------------------------------------------------
    def open_decision(self, hosted: HostedMatch, seat: Seat) -> str | None:
        """See :func:`.decisions.open_decision`."""
        return open_decision(hosted, seat)

    async def answer(self, hosted: HostedMatch, seat: Seat, decision_id: str, legal_id: str) -> str:
        """A bot's answer: see :meth:`.decisions.Decisions.answer`."""
        return await self.decisions.answer(hosted, seat, decision_id, legal_id)

    async def set_standing(
        self, match_id: str, token: str, answers: Mapping[str, StandingPolicy]
    ) -> dict[str, StandingPolicy]:
        hosted = await self.get(match_id)
        seat = self.seat_for(hosted, token)
        stored = dict(sorted(answers.items()))
        await self.bus.put_standing(match_id, seat.value, {k: v.value for k, v in stored.items()})
        if stored:
            hosted.standing[seat] = stored
        else:
            hosted.standing.pop(seat, None)
        self.decisions.ensure_referee(hosted)
        hosted.wake.set()
        for session in list(hosted.sessions.values()):
            session.poke()
        return stored

    async def get_standing(self, match_id: str, token: str) -> dict[str, StandingPolicy]:
        hosted = await self.get(match_id)
        return dict(hosted.standing.get(self.seat_for(hosted, token), {}))

    # ----- history -----------------------------------------------------------------------
    async def watch(
        self, match_id: str, token: str, from_version: int
    ) -> AsyncIterator[tuple[int, Event, events_pb2.DecisionRecord | None]]:
        """Events with seq > from_version as the caller may see them, then live ones."""
        hosted = await self.get(match_id)
        viewer = self.viewer_for(hosted, token)
        async for item in history.watch(
            self.bus, hosted, viewer, from_version, lambda: self.draining
        ):
            yield item

    async def export_replay(self, match_id: str, token: str) -> str:
        """The match's history as the caller may see it (see ExportReplayResponse)."""
        hosted = await self.get(match_id)
        return await history.export_replay(self.bus, hosted, self.viewer_for(hosted, token))


def _next_legal(hosted: HostedMatch, seat: Seat) -> Listed | None:
    """``seat``'s legal commands now if it is the seat to act, else none."""
    return hosted.legal(seat).listed() if to_act(hosted.state) is seat else None
