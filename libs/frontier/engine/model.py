"""Vocabulary shared by the engine and the wire: seats, teams, suits, commands and events.

Commands and events are *flat records*: one frozen dataclass each, a ``kind`` plus a fixed
set of optional, primitively-typed fields.  Every kind uses the subset of fields it needs.
Why flat rather than one class per kind: the proto mirror is then one message with the
same fields (bots in any language read one shape), conversion is lossless by construction,
and a command is trivially hashable, comparable and serialisable for replays and ids.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields, replace
from enum import StrEnum
from types import FunctionType
from typing import Any, cast


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
        # A table lookup: rules code asks for a seat's team in every inner loop.
        return TEAM_OF[self]

    @property
    def role(self) -> Role:
        return Role(self.value[1])


# The team of each seat; hot loops index this table directly (no property call).
TEAM_OF: dict[Seat, Team] = {seat: Team(seat.value[0]) for seat in Seat}
TURN_ORDER: tuple[Seat, ...] = tuple(Seat)


def seat_named(value: str) -> Seat:
    """``Seat(value)`` through a table: events carry seats as strings and the rules turn them
    back constantly, and an enum call is several times slower than a dict lookup."""
    seat = _SEAT_BY_VALUE.get(value)
    return seat if seat is not None else Seat(value)  # Seat() raises the usual ValueError


_SEAT_BY_VALUE: dict[str, Seat] = {seat.value: seat for seat in Seat}


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


def suit_named(value: str) -> Suit:
    """``Suit(value)`` through a table (see :func:`seat_named`)."""
    suit = _SUIT_BY_VALUE.get(value)
    return suit if suit is not None else Suit(value)


_SUIT_BY_VALUE: dict[str, Suit] = {suit.value: suit for suit in Suit}


class Item(StrEnum):
    BOOTS = "boots"
    BAG = "bag"
    CROSSBOW = "crossbow"
    HAMMER = "hammer"
    SWORD = "sword"
    TEA = "tea"
    COINS = "coins"
    TORCH = "torch"


class CommandKind(StrEnum):
    """Everything a seat can ask for.  Values are stable: they appear in replays and ids."""

    # setup (R12)
    PLACE_KEEP = "place_keep"
    PLACE_BUILDING = "place_building"
    # turn flow
    END_PHASE = "end_phase"  # finish the current optional step / phase
    DISCARD = "discard"  # hand limit: discard the listed cards
    # Marquise
    # Every warrior move (MARCH, DECREE_MOVE, MOVE, COBBLER) and VAGABOND_MOVE with an ally
    # (Vanguard Leader) takes ``clearings = (origin,)`` when the mover's contraband carried in
    # the origin goes along (R17); without it the contraband stays with the warriors left.
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
    # Eyrie (piece = the suit of the Decree card a DECREE_* command resolves)
    PLACE_ROOST = "place_roost"  # setup corner (R12) or A New Roost: clearing
    CHOOSE_LEADER = "choose_leader"  # piece = leader (setup, or after Turmoil)
    ADD_TO_DECREE = "add_to_decree"  # cards = (card,), piece = column
    DECREE_RECRUIT = "decree_recruit"  # clearing, piece = suit
    DECREE_MOVE = "decree_move"  # clearing -> to, count, cards = bridge fee, piece = suit
    DECREE_BATTLE = "decree_battle"  # clearing, target = defending seat, piece = suit
    DECREE_BUILD = "decree_build"  # clearing, piece = suit
    SKIP_DECREE_CARD = "skip_decree_card"  # Imperial Isolation (R24): piece = suit
    # Wings of the Alliance (R23): the card a teammate owes its Eyrie
    FEED_EYRIE = "feed_eyrie"  # cards = (card,)
    # Vagabond (piece = an item kind, or an item key such as "sword/exhausted/damaged")
    PLACE_PAWN = "place_pawn"  # setup (R12): clearing = a forest of the home map
    REFRESH = "refresh"  # Birdsong, when the refresh allowance is short: piece = item key
    SLIP = "slip"  # Birdsong: to = adjacent clearing or forest, cards = bridge fee
    VAGABOND_MOVE = "vagabond_move"  # to, cards = bridge fee, target = ally (Vanguard Leader)
    EXPLORE = "explore"  # clearing (the ruin)
    AID = "aid"  # target, cards = (card,), piece = item exhausted
    QUEST = "quest"  # piece = quest id, target = "vp" | "draw"
    STRIKE = "strike"  # target = seat, piece = warrior / building / token kind
    REPAIR = "repair"  # piece = key of the damaged item (also Hideout's choice)
    STEAL = "steal"  # Thief: target
    DAY_LABOR = "day_labor"  # Tinker: cards = (card taken from the discard pile,)
    HIDEOUT = "hideout"  # Ranger
    PICK_UP = "pick_up"  # R20 torch pick-up: clearing, piece = dropped item
    DAMAGE_ITEM = "damage_item"  # a hit taken: piece = key of the item damaged
    INTERVENE = "intervene"  # R15: piece = sword | boots
    TAKE_ITEM = "take_item"  # Aid / Looting (R28): piece = crafted item taken
    REROLL = "reroll"  # War Veteran (R29): reroll the Vagabond's die of a looting battle
    CHOOSE_LEGENDARY = "choose_legendary"  # R29: piece = ability
    REMOVE_ITEM = "remove_item"  # Evening item limit: piece = item key
    # Woodland Alliance (cards = the supporters or hand cards spent)
    REVOLT = "revolt"  # Birdsong: clearing, cards = 2 supporters of its suit
    SPREAD_SYMPATHY = "spread_sympathy"  # Birdsong: clearing, cards = supporters spent
    MOBILIZE = "mobilize"  # Daylight: cards = (hand card put on the supporters,)
    TRAIN = "train"  # Daylight: cards = (card matching a base on the map,)
    MOVE = "move"  # Evening operation, one move: clearing -> to, count, cards = bridge fee
    ORGANIZE = "organize"  # Evening operation: clearing
    OUTRAGE = "outrage"  # R25: cards = (card given to the Alliance,) or () = show the hand
    # Contraband (R18, R19): clearing, piece = the dropped item, target = its crafter seat
    COLLECT = "collect"  # R18: a warrior spends 1 move to take a dropped item
    SEIZE = "seize"  # R19: a warrior spends 1 battle action to send a rival's item to the crate


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
    BATTLE_STARTED = "battle_started"  # seat attacker, target defender, clearing, piece=looting
    AMBUSH_PLAYED = "ambush_played"  # seat, cards
    AMBUSH_FOILED = "ambush_foiled"  # seat, cards
    DICE_ROLLED = "dice_rolled"  # values = (high, low)
    HITS_SET = "hits_set"  # values = (attacker deals, defender deals)
    EFFECT_USED = "effect_used"  # seat, piece = effect name, cards
    BATTLE_ENDED = "battle_ended"
    DECISION_DECLINED = "decision_declined"  # seat, text = decision
    # seat, cards, clearings, piece = item ('' for persistent), to = the clearing of the
    # contraband when crafted on the rival map (R16), '' when it goes to the crafter; target =
    # the carrier seat (the crafter) when a warrior carries it, '' when it is dropped (R21)
    CARD_CRAFTED = "card_crafted"
    SCORED = "scored"  # seat, amount, target = team, text = reason
    HAND_REVEALED = "hand_revealed"  # seat revealed to target; cards
    GAME_ENDED = "game_ended"  # text = winner, piece = reason, values = (score A, score B)
    ROUND_LIMIT_REACHED = "round_limit_reached"  # the last turn of the last round is over
    # Eyrie
    LEADER_CHOSEN = "leader_chosen"  # seat, piece = leader (the viziers are re-tucked)
    LEADER_DEPOSED = "leader_deposed"  # seat, piece = leader
    DECREE_ADDED = "decree_added"  # seat, cards = (card,), piece = column
    DECREE_CARD_SKIPPED = "decree_card_skipped"  # seat, piece = suit, text = column (R24)
    DECREE_PURGED = "decree_purged"  # seat, cards = the Decree cards discarded (Turmoil)
    TURMOIL = "turmoil"  # seat, count = bird cards on the Decree (viziers included)
    # Vagabond (piece = item kind or item key, see CommandKind)
    PAWN_PLACED = "pawn_placed"  # seat, to = forest; relationship markers set (R27)
    PAWN_MOVED = "pawn_moved"  # seat, clearing -> to, text = slip | move
    ITEMS_EXHAUSTED = "items_exhausted"  # seat, piece = item kind, count
    ITEM_REFRESHED = "item_refreshed"  # seat, piece = item key
    ITEM_DAMAGED = "item_damaged"  # seat, piece = item key
    ITEM_REPAIRED = "item_repaired"  # seat, piece = item key
    ITEM_GAINED = "item_gained"  # seat, piece = item, clearing, target = from seat, text = how
    ITEM_REMOVED = "item_removed"  # seat, piece = item key, text = reason
    RELATIONSHIP_CHANGED = "relationship_changed"  # seat, target = other seat, text = level
    QUEST_COMPLETED = "quest_completed"  # seat, piece = quest, to = quest revealed ('' none)
    LEGENDARY_GAINED = "legendary_gained"  # seat, piece = ability (R29)
    INTERVENED = "intervened"  # seat, piece = sword | boots (R15)
    DIE_REROLLED = "die_rerolled"  # seat, values = (new die,) (War Veteran, R29)
    DISCARD_CARD_TAKEN = "discard_card_taken"  # seat, cards (Day Labor)
    # Woodland Alliance
    SUPPORTERS_ADDED = "supporters_added"  # seat, cards, target = giver ('' = deck top), text
    SUPPORTERS_DISCARDED = "supporters_discarded"  # seat, cards (public), text = reason
    OFFICERS_CHANGED = "officers_changed"  # seat, amount = delta (warriors <-> supply), text
    # Contraband (R16-R21): piece = item, target = its crafter seat
    CONTRABAND_MOVED = "contraband_moved"  # seat = carrier, clearing -> to, count = items
    CONTRABAND_DROPPED = "contraband_dropped"  # seat = carrier, clearing, count = items (R18)
    CONTRABAND_COLLECTED = "contraband_collected"  # seat = collector, clearing, piece, target
    CONTRABAND_SEIZED = "contraband_seized"  # seat = seizer, clearing, piece, target (R19)
    # seat = carrier (or Vagabond), clearing -> to = the bridge crossed home, piece, target
    CONTRABAND_VALIDATED = "contraband_validated"


EMPTY: tuple[str, ...] = ()


@dataclass(frozen=True, init=False)
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

    def __init__(
        self,
        kind: CommandKind,
        seat: Seat,
        clearing: str = "",
        to: str = "",
        count: int = 0,
        target: str = "",
        piece: str = "",
        cards: tuple[str, ...] = EMPTY,
        clearings: tuple[str, ...] = EMPTY,
    ) -> None:
        # Compiled (setup.py), these are direct writes to the native object's fields: the
        # frozen ``__setattr__`` the dataclass adds guards other code, not this constructor,
        # and a rule building a legal list calls it without leaving C.  Interpreted, the
        # frozen ``__setattr__`` would refuse them: :func:`_interpreted_init` swaps in an
        # ``__init__`` that writes around it.
        self.kind = kind  # type: ignore[misc]
        self.seat = seat  # type: ignore[misc]
        self.clearing = clearing  # type: ignore[misc]
        self.to = to  # type: ignore[misc]
        self.count = count  # type: ignore[misc]
        self.target = target  # type: ignore[misc]
        self.piece = piece  # type: ignore[misc]
        self.cards = cards  # type: ignore[misc]
        self.clearings = clearings  # type: ignore[misc]

    def __reduce__(self) -> tuple[type[Command], tuple[object, ...]]:
        # Pickled as a constructor call: the same bytes from both builds (a native object
        # has no instance dict for pickle's default protocol to restore).
        return (Command, _field_values(self, COMMAND_FIELDS))

    def key(self) -> str:
        """A stable, human-readable id: the same command always has the same key.

        The kind, then ``name=value`` for each field after the seat that is not at its
        empty default, in field order (tuples joined by commas).  Spelled out field by field
        rather than looping over ``dataclasses.fields``: the orchestrator keys every legal
        command it lists."""
        parts = [self.kind.value]
        if self.clearing:
            parts.append("clearing=" + self.clearing)
        if self.to:
            parts.append("to=" + self.to)
        if self.count:
            parts.append(f"count={self.count}")
        if self.target:
            parts.append("target=" + self.target)
        if self.piece:
            parts.append("piece=" + self.piece)
        if self.cards:
            parts.append("cards=" + ",".join(self.cards))
        if self.clearings:
            parts.append("clearings=" + ",".join(self.clearings))
        return " ".join(parts)


@dataclass(frozen=True, init=False)
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

    def __init__(
        self,
        kind: EventKind,
        seat: str = "",
        clearing: str = "",
        to: str = "",
        count: int = 0,
        target: str = "",
        piece: str = "",
        cards: tuple[str, ...] = EMPTY,
        clearings: tuple[str, ...] = EMPTY,
        values: tuple[int, ...] = (),
        amount: int = 0,
        text: str = "",
    ) -> None:
        # Direct field writes like Command's: every rule emits its events through here.
        self.kind = kind  # type: ignore[misc]
        self.seat = seat  # type: ignore[misc]
        self.clearing = clearing  # type: ignore[misc]
        self.to = to  # type: ignore[misc]
        self.count = count  # type: ignore[misc]
        self.target = target  # type: ignore[misc]
        self.piece = piece  # type: ignore[misc]
        self.cards = cards  # type: ignore[misc]
        self.clearings = clearings  # type: ignore[misc]
        self.values = values  # type: ignore[misc]
        self.amount = amount  # type: ignore[misc]
        self.text = text  # type: ignore[misc]

    def __reduce__(self) -> tuple[type[Event], tuple[object, ...]]:
        return (Event, _field_values(self, EVENT_FIELDS))

    def redacted(self) -> Event:
        """The same event with its secret card names removed (count kept)."""
        return replace(self, cards=("hidden",) * len(self.cards))


# Compiled, mypyc leaves the records erased annotations (``tuple`` for ``tuple[str, ...]``);
# what reads the hints (the wire codec, the replay files' validation) needs the item types.
# (Through ``Any``: mypyc refuses a class's ``__annotations__`` as an attribute.)
cast(Any, Command).__annotations__.update(cards=tuple[str, ...], clearings=tuple[str, ...])
cast(Any, Event).__annotations__.update(
    cards=tuple[str, ...], clearings=tuple[str, ...], values=tuple[int, ...]
)

COMMAND_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Command))
EVENT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Event))


def _field_values(record: object, names: tuple[str, ...]) -> tuple[object, ...]:
    """The record's field values in field order: its constructor's arguments."""
    return tuple(getattr(record, name) for name in names)


def _interpreted_init(cls: type, names: tuple[str, ...]) -> Callable[..., None]:
    """The ``__init__`` of a record class when this module runs as plain Python.

    There the frozen dataclass's ``__setattr__`` refuses the plain writes of the class's own
    ``__init__``, so this one writes the instance dict directly: same signature, defaults
    and result (the dataclass's field defaults fill what the caller leaves out).  The
    defaults are read once here: ``dataclasses.fields`` on every record built took a third
    of an interpreted search's time.
    """
    count = len(names)
    defaults = tuple((f.name, f.default) for f in fields(cls))

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > count:
            raise TypeError(f"{type(self).__name__}() takes at most {count} arguments")
        values = dict(zip(names, args, strict=False))
        for name, value in kwargs.items():
            if name not in names or name in values:
                raise TypeError(f"{type(self).__name__}() got a bad argument {name!r}")
            values[name] = value
        slots = self.__dict__
        for name, default in defaults:
            if name in values:
                slots[name] = values[name]
            elif default is MISSING:
                raise TypeError(f"{type(self).__name__}() missing argument {name!r}")
            else:
                slots[name] = default

    return __init__


# Compiled, ``__init__`` is a C slot wrapper; interpreted, a Python function to replace.
if isinstance(Command.__init__, FunctionType):
    Command.__init__ = _interpreted_init(Command, COMMAND_FIELDS)  # type: ignore[method-assign]
    Event.__init__ = _interpreted_init(Event, EVENT_FIELDS)  # type: ignore[method-assign]
