"""The SDK decodes each legal command's facts: verb, cost and the VP it surely scores."""

from __future__ import annotations

from frontier.bots.sdk import Decision
from frontier.engine import Command, CommandKind, Seat
from frontier.v1 import bot_pb2, command_facts_pb2, types_pb2
from frontier.wire.labels import legal_command_to_proto
from tests.engine_helpers import A, position, put

CREEK, MEADOW = "autumn.creek", "autumn.meadow"


def test_a_decision_decodes_verb_cost_and_certain_vp_of_each_choice() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 1, "wood": 2}}})
    put(state, MEADOW, A, "sawmill", 2)
    build = Command(CommandKind.BUILD, A, clearing=CREEK, piece="sawmill")
    end = Command(CommandKind.END_PHASE, A)
    request = bot_pb2.DecisionRequest(
        decision_id="d1",
        legal=[
            legal_command_to_proto(build, state=state),
            types_pb2.LegalCommand(id=end.key(), command=legal_command_to_proto(end).command),
        ],
    )
    decision = Decision.from_proto(Seat.A1, request)
    scoring, old = decision.legal
    assert scoring.command == build and scoring.vp == 2 and scoring.cost.wood == 2
    assert scoring.verb == command_facts_pb2.COMMAND_VERB_BUILD
    # a server that sends no facts: no vp (unknown), no verb
    assert old.vp is None and old.verb == command_facts_pb2.COMMAND_VERB_UNSPECIFIED
    assert max(decision.legal, key=lambda c: c.vp or 0) is scoring
