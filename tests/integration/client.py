"""Small helpers to drive a match through MatchService in tests."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from frontier.engine import Seat
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import enum_from_proto

MIRROR = "A=marquise;B=marquise"


@dataclass
class Match:
    stub: match_pb2_grpc.MatchServiceStub
    match_id: str
    tokens: dict[Seat, str]
    to_act: Seat | None
    version: int = 0
    submitted: list[str] = field(default_factory=list)  # command ids, in order
    sent: list[tuple[Seat, str]] = field(default_factory=list)  # (seat, legal id), in order

    @classmethod
    def create(
        cls, stub: match_pb2_grpc.MatchServiceStub, seed: int, lineup: str = MIRROR
    ) -> Match:
        created = stub.CreateMatch(
            match_pb2.CreateMatchRequest(config=match_pb2.MatchConfig(seed=seed, lineup=lineup))
        )
        tokens = {enum_from_proto(Seat, s.seat): s.token for s in created.seats}
        view = stub.GetView(match_pb2.GetViewRequest(match_id=created.match_id)).view
        to_act = enum_from_proto(Seat, view.to_act) if view.to_act else None
        return cls(stub, created.match_id, tokens, to_act)

    def legal(self, seat: Seat | None = None) -> list[types_pb2.LegalCommand]:
        seat = seat or self.to_act
        assert seat is not None
        reply = self.stub.ListLegalCommands(
            match_pb2.ListLegalCommandsRequest(match_id=self.match_id, seat_token=self.tokens[seat])
        )
        return list(reply.commands)

    def submit(self, legal_id: str, command_id: str = "") -> match_pb2.SubmitCommandResponse:
        assert self.to_act is not None
        command_id = command_id or uuid.uuid4().hex
        reply = self.stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(
                match_id=self.match_id,
                seat_token=self.tokens[self.to_act],
                command_id=command_id,
                expected_version=self.version,
                legal_id=legal_id,
            )
        )
        self.submitted.append(command_id)
        self.sent.append((self.to_act, legal_id))
        self.version = reply.version
        self.to_act = enum_from_proto(Seat, reply.to_act) if reply.to_act else None
        return reply

    def step(self, pick: int = 0) -> match_pb2.SubmitCommandResponse:
        options = self.legal()
        return self.submit(options[pick % len(options)].id)

    def play_out(self, pick: int = 0) -> None:
        n = 0
        while self.to_act is not None:
            self.step(pick + n)
            n += 1


def listed_matches(
    stub: match_pb2_grpc.MatchServiceStub,
    status: match_pb2.MatchStatus.ValueType = match_pb2.MATCH_STATUS_UNSPECIFIED,
) -> dict[str, match_pb2.MatchSummary]:
    """Every match ListMatches lists (with ``status``; unspecified: any), by id, page after
    page: the integration stack is shared by the whole session, so a match made by one test
    can sort beyond the first page."""
    found: dict[str, match_pb2.MatchSummary] = {}
    token = ""
    while True:
        page = stub.ListMatches(
            match_pb2.ListMatchesRequest(page_size=1000, page_token=token, status=status)
        )
        found.update((m.match_id, m) for m in page.matches)
        token = page.next_page_token
        if not token:
            return found


def summary_of(stub: match_pb2_grpc.MatchServiceStub, match_id: str) -> match_pb2.MatchSummary:
    """The ListMatches summary of one match."""
    return listed_matches(stub)[match_id]
