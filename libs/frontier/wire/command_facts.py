"""A legal command's facts for the wire: its verb, its cost and the VP it surely scores.

Why here: the verb is a grouping for clients (``CommandVerb`` in command_facts.proto), not a
rule, so the engine does not know it; the table below gives every engine ``CommandKind`` one
verb (tests/unit/wire/test_command_facts.py fails when a kind has none).  Cost and VP come
from the engine's :func:`frontier.engine.score_preview.preview`, which plays the command on a
private copy of the state.
"""

from __future__ import annotations

from frontier.engine.model import Command, CommandKind
from frontier.engine.score_preview import NO_COST, Cost, Preview, preview
from frontier.engine.state import State
from frontier.v1 import command_facts_pb2, types_pb2
from frontier.wire.enums import item_number

__all__ = ["VERBS", "cost_to_proto", "facts_message", "facts_to_proto", "verb_of"]

_K = CommandKind
_V = command_facts_pb2.CommandVerb

VERBS: dict[CommandKind, command_facts_pb2.CommandVerb.ValueType] = {
    _K.PLACE_KEEP: _V.COMMAND_VERB_PLACE,
    _K.PLACE_BUILDING: _V.COMMAND_VERB_PLACE,
    _K.PLACE_ROOST: _V.COMMAND_VERB_PLACE,
    _K.PLACE_PAWN: _V.COMMAND_VERB_PLACE,
    _K.PLACE_WOOD: _V.COMMAND_VERB_PLACE,
    _K.MARCH: _V.COMMAND_VERB_MOVE,
    _K.COBBLER: _V.COMMAND_VERB_MOVE,
    _K.DECREE_MOVE: _V.COMMAND_VERB_MOVE,
    _K.SLIP: _V.COMMAND_VERB_MOVE,
    _K.VAGABOND_MOVE: _V.COMMAND_VERB_MOVE,
    _K.MOVE: _V.COMMAND_VERB_MOVE,
    _K.COLLECT: _V.COMMAND_VERB_MOVE,
    _K.BATTLE: _V.COMMAND_VERB_BATTLE,
    _K.COMMAND_WARREN: _V.COMMAND_VERB_BATTLE,
    _K.DECREE_BATTLE: _V.COMMAND_VERB_BATTLE,
    _K.STRIKE: _V.COMMAND_VERB_BATTLE,
    _K.SEIZE: _V.COMMAND_VERB_BATTLE,
    _K.BUILD: _V.COMMAND_VERB_BUILD,
    _K.DECREE_BUILD: _V.COMMAND_VERB_BUILD,
    _K.RECRUIT: _V.COMMAND_VERB_RECRUIT,
    _K.DECREE_RECRUIT: _V.COMMAND_VERB_RECRUIT,
    _K.CRAFT: _V.COMMAND_VERB_CRAFT,
    _K.ROYAL_CLAIM: _V.COMMAND_VERB_CARD_EFFECT,
    _K.STAND_AND_DELIVER: _V.COMMAND_VERB_CARD_EFFECT,
    _K.TAX_COLLECTOR: _V.COMMAND_VERB_CARD_EFFECT,
    _K.BETTER_BURROW_BANK: _V.COMMAND_VERB_CARD_EFFECT,
    _K.CODEBREAKERS: _V.COMMAND_VERB_CARD_EFFECT,
    _K.OVERWORK: _V.COMMAND_VERB_FACTION_ACTION,
    _K.EXTRA_ACTION: _V.COMMAND_VERB_FACTION_ACTION,
    _K.ADD_TO_DECREE: _V.COMMAND_VERB_FACTION_ACTION,
    _K.SKIP_DECREE_CARD: _V.COMMAND_VERB_FACTION_ACTION,
    _K.REFRESH: _V.COMMAND_VERB_FACTION_ACTION,
    _K.EXPLORE: _V.COMMAND_VERB_FACTION_ACTION,
    _K.AID: _V.COMMAND_VERB_FACTION_ACTION,
    _K.QUEST: _V.COMMAND_VERB_FACTION_ACTION,
    _K.REPAIR: _V.COMMAND_VERB_FACTION_ACTION,
    _K.STEAL: _V.COMMAND_VERB_FACTION_ACTION,
    _K.DAY_LABOR: _V.COMMAND_VERB_FACTION_ACTION,
    _K.HIDEOUT: _V.COMMAND_VERB_FACTION_ACTION,
    _K.PICK_UP: _V.COMMAND_VERB_FACTION_ACTION,
    _K.REVOLT: _V.COMMAND_VERB_FACTION_ACTION,
    _K.SPREAD_SYMPATHY: _V.COMMAND_VERB_FACTION_ACTION,
    _K.MOBILIZE: _V.COMMAND_VERB_FACTION_ACTION,
    _K.TRAIN: _V.COMMAND_VERB_FACTION_ACTION,
    _K.ORGANIZE: _V.COMMAND_VERB_FACTION_ACTION,
    _K.AMBUSH: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.FOIL: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.USE_EFFECT: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.REMOVE_PIECE: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.FIELD_HOSPITALS: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.DECLINE: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.CHOOSE_LEADER: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.FEED_EYRIE: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.DAMAGE_ITEM: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.INTERVENE: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.TAKE_ITEM: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.REROLL: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.CHOOSE_LEGENDARY: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.OUTRAGE: _V.COMMAND_VERB_DECISION_ANSWER,
    _K.DISCARD: _V.COMMAND_VERB_DISCARD,
    _K.REMOVE_ITEM: _V.COMMAND_VERB_DISCARD,
    _K.END_PHASE: _V.COMMAND_VERB_END_PHASE,
}


def verb_of(cmd: Command) -> command_facts_pb2.CommandVerb.ValueType:
    """The verb of a command (every kind has one: see the test named in the docstring)."""
    return VERBS[cmd.kind]


def cost_to_proto(cost: Cost) -> types_pb2.CommandCost:
    """The engine's cost of a command as a ``CommandCost``."""
    return types_pb2.CommandCost(
        card_ids=cost.cards,
        supporter_ids=cost.supporters,
        items_exhausted=[item_number(i) for i in cost.items_exhausted],
        items_lost=[item_number(i) for i in cost.items_lost],
        warriors=cost.warriors,
        wood=cost.wood,
    )


def facts_message(state: State, cmd: Command) -> types_pb2.LegalCommand:
    """A ``LegalCommand`` holding only what depends on the state: the cost and the vp.

    Merged into (or its bytes joined to) the command's state-free message, the one that
    holds its id, command, label and verb."""
    return facts_to_proto(preview(state, cmd))


def facts_to_proto(found: Preview) -> types_pb2.LegalCommand:
    """The ``LegalCommand`` fields of one preview (cost when not empty, vp when certain)."""
    message = types_pb2.LegalCommand()
    if found.cost is not NO_COST:
        message.cost.CopyFrom(cost_to_proto(found.cost))
    if found.vp is not None:
        message.vp = found.vp
    return message
