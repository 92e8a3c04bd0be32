"""The seat's routes as the play page uses them: a command's reply carries all the page needs
next (the seat's view after it, its next legal commands and the seat's own events), so a
command costs one request; legal commands come without their unset fields."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from frontier.v1 import command_facts_pb2, events_pb2, match_pb2, types_pb2
from frontier.web.app import create_app
from frontier.web.inputs import CLIENT_HEADER, TOKEN_HEADER
from tests.web.fakes import SECRET, FakeHealth, FakeMatch

PROGRAM = {CLIENT_HEADER: "tests", "Content-Type": "application/json"}
MARCH = types_pb2.LegalCommand(
    id="march clearing=autumn.hill to=autumn.creek count=2",
    command=types_pb2.Command(
        kind=types_pb2.COMMAND_KIND_MARCH,
        seat=types_pb2.SEAT_A1,
        clearing="autumn.hill",
        to="autumn.creek",
        count=2,
    ),
    label="March 2 warriors Hill → Creek",
    verb=command_facts_pb2.COMMAND_VERB_MOVE,
)


class PlayingMatch(FakeMatch):
    """A match where A1's command is accepted at version 4 and A1 acts again."""

    async def SubmitCommand(self, request: Any, timeout: float) -> Any:
        self._record("SubmitCommand", request)
        drawn = types_pb2.Event(
            kind=types_pb2.EVENT_KIND_CARDS_DRAWN, seat="A1", cards=["anvil"], count=1
        )
        return match_pb2.SubmitCommandResponse(
            version=4,
            to_act=types_pb2.SEAT_A1,
            events=[events_pb2.EventEnvelope(match_id="m-1", seq=4, state_version=4, event=drawn)],
            next_legal=[MARCH],
        )

    async def ListLegalCommands(self, request: Any, timeout: float) -> Any:
        self._record("ListLegalCommands", request)
        return match_pb2.ListLegalCommandsResponse(commands=[MARCH], version=3)


@pytest.fixture
def gateway() -> Any:
    match = PlayingMatch()
    app = create_app("unused:0", bot_kind="random", stubs=(match, FakeHealth()))
    with TestClient(app, headers=dict(PROGRAM)) as client:
        yield client, match


def test_a_commands_reply_brings_the_view_the_next_choices_and_the_seats_own_events(
    gateway: Any,
) -> None:
    client, match = gateway
    reply = client.post(
        "/api/matches/m-1/commands",
        json={"legal_id": "end_phase", "expected_version": 3},
        headers={TOKEN_HEADER: SECRET},
    )
    assert reply.status_code == 200
    body = reply.json()
    assert body["version"] == "4" and body["to_act"] == "SEAT_A1" and body["winner"] == ""
    # the seat's own view, read with its own token, without the engine's debugging form
    assert body["view"]["viewer"] == "SEAT_A1" and body["view"]["json"] == ""
    view_calls = [r for name, r in match.calls if name == "GetView"]
    assert [r.seat_token for r in view_calls] == [SECRET]
    assert body["events"][0]["event"]["cards"] == ["anvil"]
    assert body["next_legal"][0]["command"] == {
        "kind": "COMMAND_KIND_MARCH",
        "seat": "SEAT_A1",
        "clearing": "autumn.hill",
        "to": "autumn.creek",
        "count": 2,
    }
    assert body["next_legal"][0]["verb"] == "COMMAND_VERB_MOVE"


def test_legal_commands_come_without_their_unset_fields(gateway: Any) -> None:
    client, _ = gateway
    body = client.get("/api/matches/m-1/legal", headers={TOKEN_HEADER: SECRET}).json()
    assert body["version"] == "3"
    command = body["commands"][0]["command"]
    assert "target" not in command and "cards" not in command and command["count"] == 2


def test_a_refused_command_reads_no_view(gateway: Any) -> None:
    client, match = gateway
    reply = client.post("/api/matches/m-1/commands", json={"legal_id": ""}, headers={})
    assert reply.status_code in (400, 401)
    assert not [name for name, _ in match.calls if name in ("GetView", "SubmitCommand")]
