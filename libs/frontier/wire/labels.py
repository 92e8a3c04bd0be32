"""Short English labels for legal commands ("Move 2 warriors Hill → Creek, paying Fox").

Why on the server: a label is text for people (the web client, logs, a developer watching a
bot); every client showing the same words for the same choice needs them computed once,
next to the command's id.  A label is built from the command alone plus public static data
(printed clearing, card and quest names), so it can never say more than the command already
does to the seat it is offered to.  Clients must keep answering with the id: labels may be
reworded at any time.

Each command kind has one template; tests/unit/wire/test_labels.py fails when a new kind has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from frontier.engine.board import board
from frontier.engine.cards import catalog
from frontier.engine.model import Command, CommandKind
from frontier.engine.state import State
from frontier.engine.vagabond_state import quests
from frontier.v1 import types_pb2
from frontier.wire.command_facts import facts_message, verb_of
from frontier.wire.convert import command_to_proto

__all__ = ["TEMPLATES", "label", "legal_command_to_proto"]

_K = CommandKind

# {place}/{to}: clearing or forest names; {n}/{warriors}: the count; {card}/{cards}: card
# names; {fee}: ", paying <card>" for a bridge fee or ""; {target}, {piece}, {places}.
TEMPLATES: dict[CommandKind, str] = {
    _K.PLACE_KEEP: "Place the keep in {place}",
    _K.PLACE_BUILDING: "Place a {piece} in {place}",
    _K.END_PHASE: "End this step",
    _K.DISCARD: "Discard {cards}",
    _K.MARCH: "March {warriors} {place} → {to}{fee}",
    _K.RECRUIT: "Recruit{at}",
    _K.BUILD: "Build a {piece} in {place}",
    _K.OVERWORK: "Overwork in {place}, spending {cards}",
    _K.EXTRA_ACTION: "Spend {cards} for an extra action",
    _K.PLACE_WOOD: "Place wood in {place}",
    _K.BATTLE: "Battle {target} in {place}",
    _K.CRAFT: "Craft {cards}{with_places}",
    _K.AMBUSH: "Ambush with {cards}",
    _K.FOIL: "Foil the ambush with {cards}",
    _K.USE_EFFECT: "Use {piece}",
    _K.REMOVE_PIECE: "Lose a {piece}",
    _K.FIELD_HOSPITALS: "Field Hospitals, spending {cards}",
    _K.DECLINE: "Decline",
    _K.ROYAL_CLAIM: "Royal Claim: score the clearings ruled",
    _K.STAND_AND_DELIVER: "Stand and Deliver! on {target}",
    _K.TAX_COLLECTOR: "Tax Collector in {place}",
    _K.BETTER_BURROW_BANK: "Better Burrow Bank with {target}",
    _K.CODEBREAKERS: "Codebreakers: look at {target}'s hand",
    _K.COBBLER: "Cobbler: move {warriors} {place} → {to}{fee}",
    _K.COMMAND_WARREN: "Command Warren: battle {target} in {place}",
    _K.PLACE_ROOST: "Place a roost in {place}",
    _K.CHOOSE_LEADER: "Choose the {piece} leader",
    _K.ADD_TO_DECREE: "Add {cards} to the Decree ({piece})",
    _K.DECREE_RECRUIT: "Decree ({piece}): recruit in {place}",
    _K.DECREE_MOVE: "Decree ({piece}): move {warriors} {place} → {to}{fee}",
    _K.DECREE_BATTLE: "Decree ({piece}): battle {target} in {place}",
    _K.DECREE_BUILD: "Decree ({piece}): build a roost in {place}",
    _K.SKIP_DECREE_CARD: "Skip a {piece} Decree card (Imperial Isolation)",
    _K.FEED_EYRIE: "Give {cards} to the Eyrie",
    _K.PLACE_PAWN: "Place the pawn in {place}",
    _K.REFRESH: "Refresh {piece}",
    _K.SLIP: "Slip to {to}{fee}",
    _K.VAGABOND_MOVE: "Move to {to}{fee}{along}",
    _K.EXPLORE: "Explore the ruin in {place}",
    _K.AID: "Aid {target} with {cards}, exhausting {piece}",
    _K.QUEST: "Quest {piece}, taking {target}",
    _K.STRIKE: "Strike {target}'s {piece}",
    _K.REPAIR: "Repair {piece}",
    _K.STEAL: "Steal a card from {target}",
    _K.DAY_LABOR: "Day Labor: take {cards} from the discard pile",
    _K.HIDEOUT: "Hideout: repair 3 items and end Daylight",
    _K.PICK_UP: "Pick up the {piece} in {place}",
    _K.DAMAGE_ITEM: "Damage {piece}",
    _K.INTERVENE: "Intervene with {piece}",
    _K.TAKE_ITEM: "Take the {piece}",
    _K.REROLL: "Reroll the die (War Veteran)",
    _K.CHOOSE_LEGENDARY: "Gain the Legendary Ability {piece}",
    _K.REMOVE_ITEM: "Remove {piece} from the game",
    _K.REVOLT: "Revolt in {place}, spending {cards}",
    _K.SPREAD_SYMPATHY: "Spread sympathy to {place}{spending}",
    _K.MOBILIZE: "Mobilize {cards}",
    _K.TRAIN: "Train an officer with {cards}",
    _K.MOVE: "Move {warriors} {place} → {to}{fee}",
    _K.ORGANIZE: "Organize in {place}",
    _K.OUTRAGE: "Outrage: give {cards_or_show}",
    _K.COLLECT: "Collect {target}'s {piece} in {place}",
    _K.SEIZE: "Seize {target}'s {piece} in {place}",
}

_FEE_KINDS = frozenset({_K.MARCH, _K.COBBLER, _K.DECREE_MOVE, _K.SLIP, _K.VAGABOND_MOVE, _K.MOVE})


def _place(place: str) -> str:
    """A clearing's printed name ("Hill"), a forest's ("forest N"), or the id as it is."""
    info = board().clearings.get(place)
    if info is not None:
        return info.name
    if ".forest." in place:
        return "forest " + place.rsplit(".", 1)[1].upper()
    return place


def _card(card_id: str) -> str:
    card = catalog().get(card_id)
    if card is None:
        return _words(card_id)
    return f"{card.name} ({card.suit.value})"


def _cards(card_ids: Sequence[str]) -> str:
    return ", ".join(_card(c) for c in card_ids) if card_ids else "no card"


def _words(text: str) -> str:
    """A piece, item key or other engine word for people: "base_fox" -> "base fox"."""
    quest = quests().get(text)
    if quest is not None:
        return quest.name
    return text.replace("_", " ").replace("/", " ")


@lru_cache(maxsize=1 << 16)
def label(cmd: Command) -> str:
    """The label of one command, e.g. ``Move 2 warriors Hill → Creek, paying Fox (fox)``.

    Cached: a label depends on the command alone, and the same commands (a march between
    two clearings, a card to craft) are offered again and again, in every match; the legal
    lists of the hot path (``next_legal`` after each command) then cost a lookup each.
    """
    template = TEMPLATES[cmd.kind]  # every kind has one: tests/unit/wire/test_labels.py
    fee = f", paying {_cards(cmd.cards)}" if cmd.kind in _FEE_KINDS and cmd.cards else ""
    values = {
        "place": _place(cmd.clearing),
        "to": _place(cmd.to),
        "n": str(cmd.count),
        "warriors": f"{cmd.count} warrior{'' if cmd.count == 1 else 's'}",
        "cards": _cards(cmd.cards),
        "fee": fee,
        "target": _words(cmd.target),
        "piece": _words(cmd.piece),
        "with_places": (
            " with " + ", ".join(_place(c) for c in cmd.clearings) if cmd.clearings else ""
        ),
        "along": _along(cmd),
        "at": f": a warrior at {_place(cmd.clearing)}" if cmd.clearing else "",
        "spending": f", spending {_cards(cmd.cards)}" if cmd.cards else "",
        "cards_or_show": _cards(cmd.cards) if cmd.cards else "nothing: show the hand",
    }
    return template.format(**values)


def _along(cmd: Command) -> str:
    """The warriors a Vagabond's move takes along: 1 of an ally (Vanguard Leader, count 0) or
    ``count`` of an Allied rival (R34)."""
    if not cmd.target:
        return ""
    if cmd.count:
        return f", taking {cmd.count} warrior{'' if cmd.count == 1 else 's'} of {cmd.target} along"
    return f", taking {cmd.target} along"


def legal_command_to_proto(
    cmd: Command, key: str | None = None, state: State | None = None
) -> types_pb2.LegalCommand:
    """One legal command for the wire: its id (``key``, when the caller has it already), the
    command, its label and verb, and, given the ``state`` it is legal in, its cost and the VP
    it surely scores (what depends on the state; without it those fields stay unset)."""
    message = types_pb2.LegalCommand(
        id=key if key is not None else cmd.key(),
        command=command_to_proto(cmd),
        label=label(cmd),
        verb=verb_of(cmd),
    )
    if state is not None:
        message.MergeFrom(facts_message(state, cmd))
    return message
