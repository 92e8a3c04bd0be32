"""Vocabulary shared by the engine and the wire: seats, teams, suits, commands and events.

Commands and events are *flat records*: one frozen dataclass each, a ``kind`` plus a fixed
set of optional, primitively-typed fields.  Every kind uses the subset of fields it needs.
Why flat rather than one class per kind: the proto mirror is then one message with the
same fields (bots in any language read one shape), conversion is lossless by construction,
and a command is trivially hashable, comparable and serialisable for replays and ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import StrEnum


class Team(StrEnum):
    A = "A"
    B = "B"


class Role(StrEnum):
    """The three seats of a team, in turn order (R1)."""

    MILITARY1 = "1"
    SECOND = "2"
    VAGABOND = "3"


class Seat(StrEnum):
    """A seat is a team plus a role; the turn order is the declaration order (R3)."""

    A1 = "A1"
    B1 = "B1"
    A2 = "A2"
    B2 = "B2"
    A3 = "A3"
    B3 = "B3"

    @property
    def team(self) -> Team:
        return Team(self.value[0])

    @property
    def role(self) -> Role:
        return Role(self.value[1])


TURN_ORDER: tuple[Seat, ...] = tuple(Seat)


def other_team(team: Team) -> Team:
    return Team.B if team is Team.A else Team.A


class Faction(StrEnum):
    MARQUISE = "marquise"
    EYRIE = "eyrie"
    ALLIANCE = "alliance"
    VAGABOND = "vagabond"


class Character(StrEnum):
    THIEF = "thief"
    TINKER = "tinker"
    RANGER = "ranger"


class Suit(StrEnum):
    BIRD = "bird"
    FOX = "fox"
    RABBIT = "rabbit"
    MOUSE = "mouse"


class Item(StrEnum):
    BOOTS = "boots"
    BAG = "bag"
    CROSSBOW = "crossbow"
    HAMMER = "hammer"
    SWORD = "sword"
    TEA = "tea"
    COINS = "coins"
    TORCH = "torch"


class Phase(StrEnum):
    SETUP = "setup"
    BIRDSONG = "birdsong"
    DAYLIGHT = "daylight"
    EVENING = "evening"
    OVER = "over"


class CommandKind(StrEnum):
    """Everything a seat can ask for.  Values are stable: they appear in replays and ids."""

    # setup (R12)
    PLACE_KEEP = "place_keep"
    PLACE_BUILDING = "place_building"
    # turn flow
    END_PHASE = "end_phase"  # finish the current optional step / phase
    DISCARD = "discard"  # hand limit: discard the listed cards
    # Marquise
    MARCH = "march"  # one move of a march (clearing -> to, count)
    RECRUIT = "recruit"
    BUILD = "build"  # clearing, piece = building type
    OVERWORK = "overwork"  # clearing, cards = (card,)
    EXTRA_ACTION = "extra_action"  # spend a bird card for one more action
    PLACE_WOOD = "place_wood"  # Birdsong wood when short: chosen clearing
    # shared actions
    BATTLE = "battle"  # clearing, target = defending seat
    CRAFT = "craft"  # cards = (card,), clearings = one per cost entry
    # battle decisions
    AMBUSH = "ambush"  # cards = (ambush card,)
    FOIL = "foil"  # cards = (ambush card,)
    USE_EFFECT = "use_effect"  # piece = armorers|sappers|brutal_tactics
    REMOVE_PIECE = "remove_piece"  # hit allocation: piece to lose next
    FIELD_HOSPITALS = "field_hospitals"  # cards = (card,)
    DECLINE = "decline"  # decline the pending optional decision
    # persistent cards
    ROYAL_CLAIM = "royal_claim"
    STAND_AND_DELIVER = "stand_and_deliver"  # target
    TAX_COLLECTOR = "tax_collector"  # clearing
    BETTER_BURROW_BANK = "better_burrow_bank"  # target
    CODEBREAKERS = "codebreakers"  # target
    COBBLER = "cobbler"  # clearing -> to, count
    COMMAND_WARREN = "command_warren"  # clearing, target


class EventKind(StrEnum):
    """Facts.  ``evolve`` is the only place that turns one into a state change."""

    MATCH_STARTED = "match_started"
    SUITS_ASSIGNED = "suits_assigned"  # clearings, values = suit indices (Winter markers, R5)
    DECK_SHUFFLED = "deck_shuffled"  # count = cards in new deck; order stays secret
    CARDS_DRAWN = "cards_drawn"  # seat, cards (hidden from others), count
    CARDS_DISCARDED = "cards_discarded"  # seat, cards (public)
    CARD_GIVEN = "card_given"  # seat -> target, cards (hidden unless public), text = reason
    KEEP_PLACED = "keep_placed"
    PIECES_PLACED = "pieces_placed"  # seat, clearing, piece, count
    PIECES_MOVED = "pieces_moved"  # seat, clearing -> to, piece, count
    PIECES_REMOVED = "pieces_removed"  # seat (owner), clearing, piece, count, target = remover
    WOOD_SPENT = "wood_spent"  # seat, clearings (one entry per wood token spent)
    ONCE_USED = "once_used"  # seat, text = per-turn counter key (recruit, tax_collector...)
    DECISION_REQUESTED = "decision_requested"  # seat must answer; text = decision kind
    DECISION_CLOSED = "decision_closed"  # the first open decision is answered
    BATTLE_STAGE = "battle_stage"  # text = next stage of the open battle
    BRIDGE_CROSSED = "bridge_crossed"  # seat, clearing -> to, cards = fee (may be empty)
    STEP_SET = "step_set"  # seat, text = step name (phase.step), count = actions
    ACTIONS_CHANGED = "actions_changed"  # seat, amount = delta, count = march moves left
    TURN_STARTED = "turn_started"  # seat, count = round
    ROUND_STARTED = "round_started"  # count
    BATTLE_STARTED = "battle_started"  # seat attacker, target defender, clearing
    AMBUSH_PLAYED = "ambush_played"  # seat, cards
    AMBUSH_FOILED = "ambush_foiled"  # seat, cards
    DICE_ROLLED = "dice_rolled"  # values = (high, low)
    HITS_SET = "hits_set"  # values = (attacker deals, defender deals)
    EFFECT_USED = "effect_used"  # seat, piece = effect name, cards
    BATTLE_ENDED = "battle_ended"
    DECISION_DECLINED = "decision_declined"  # seat, text = decision
    CARD_CRAFTED = "card_crafted"  # seat, cards, clearings, piece = item ('' for persistent)
    SCORED = "scored"  # seat, amount, target = team, text = reason
    HAND_REVEALED = "hand_revealed"  # seat revealed to target; cards
    GAME_ENDED = "game_ended"  # text = winner, values = (score A, score B), option = reason


EMPTY: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Command:
    """A request by ``seat``.  Unused fields stay at their empty defaults."""

    kind: CommandKind
    seat: Seat
    clearing: str = ""
    to: str = ""
    count: int = 0
    target: str = ""
    piece: str = ""
    cards: tuple[str, ...] = EMPTY
    clearings: tuple[str, ...] = EMPTY

    def key(self) -> str:
        """A stable, human-readable id: the same command always has the same key."""
        parts = [self.kind.value]
        for f in fields(self)[2:]:
            value = getattr(self, f.name)
            if value in ("", 0, EMPTY):
                continue
            if isinstance(value, tuple):
                value = ",".join(value)
            parts.append(f"{f.name}={value}")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Event:
    """A fact.  ``seat`` is the acting or owning seat ('' for the table)."""

    kind: EventKind
    seat: str = ""
    clearing: str = ""
    to: str = ""
    count: int = 0
    target: str = ""
    piece: str = ""
    cards: tuple[str, ...] = EMPTY
    clearings: tuple[str, ...] = EMPTY
    values: tuple[int, ...] = field(default=())
    amount: int = 0
    text: str = ""

    def redacted(self) -> Event:
        """The same event with its secret card names removed (count kept)."""
        return replace(self, cards=("hidden",) * len(self.cards))


COMMAND_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Command))
EVENT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Event))
