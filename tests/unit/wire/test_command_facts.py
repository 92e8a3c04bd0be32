"""A legal command's facts on the wire: a verb for every kind, the cost and the certain VP."""

from __future__ import annotations

from frontier.engine import Command, CommandKind, legal_commands
from frontier.engine.score_preview import preview
from frontier.v1 import command_facts_pb2
from frontier.wire.command_facts import VERBS
from frontier.wire.labels import legal_command_to_proto
from tests.engine_helpers import A, B, dice_seed, position, put

CREEK, MEADOW = "autumn.creek", "autumn.meadow"


def test_every_command_kind_has_a_verb() -> None:
    assert set(VERBS) == set(CommandKind)
    assert command_facts_pb2.CommandVerb.COMMAND_VERB_UNSPECIFIED not in VERBS.values()


def test_every_verb_groups_at_least_one_kind() -> None:
    assert set(VERBS.values()) == set(command_facts_pb2.CommandVerb.values()) - {0}


def test_a_build_on_the_wire_says_build_its_wood_and_its_track_points() -> None:
    state = position(pieces={CREEK: {A: {"warrior": 1, "wood": 2}}})
    put(state, MEADOW, A, "sawmill", 2)
    cmd = Command(CommandKind.BUILD, A, clearing=CREEK, piece="sawmill")
    msg = legal_command_to_proto(cmd, state=state)
    assert msg.verb == command_facts_pb2.CommandVerb.COMMAND_VERB_BUILD
    assert msg.HasField("vp") and msg.vp == preview(state, cmd).vp == 2
    assert msg.cost.wood == 2 and not msg.cost.card_ids


def test_a_battle_on_the_wire_has_no_vp_and_no_cost() -> None:
    state = position(seed=dice_seed(3, 3), pieces={CREEK: {A: {"warrior": 3}, B: {"sawmill": 1}}})
    cmd = Command(CommandKind.BATTLE, A, clearing=CREEK, target=B.value)
    assert cmd in legal_commands(state, A)
    msg = legal_command_to_proto(cmd, state=state)
    assert msg.verb == command_facts_pb2.CommandVerb.COMMAND_VERB_BATTLE
    assert not msg.HasField("vp") and not msg.HasField("cost")


def test_without_a_state_only_the_state_free_facts_are_set() -> None:
    cmd = Command(CommandKind.END_PHASE, A)
    msg = legal_command_to_proto(cmd)
    assert msg.verb == command_facts_pb2.CommandVerb.COMMAND_VERB_END_PHASE
    assert not msg.HasField("vp")
