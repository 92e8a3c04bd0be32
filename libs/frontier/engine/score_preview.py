"""What a legal command costs its seat and the points it scores for certain.

Why: a bot that wants "a command that scores" or a UI that shows "+2 VP, 1 wood" should not
have to re-implement the rules to find out.  The engine already knows: the command is
played on a private copy of the state (the owning domain's part, :func:`decide.apply_command`,
exactly what the real command would do) and its events are read.  Nothing is re-typed, so
the preview can never disagree with the rules.

What counts:

* the cost is what leaves the acting seat's hands: cards from its hand or from play (Royal
  Claim is discarded to score), Alliance supporters, Vagabond items exhausted, damaged or
  removed, its own warriors removed from the map, and Marquise wood spent;
* the score is the VP the command's own events give the seat's team (a building's track
  points, a craft's points, a quest, a seize, the buildings a Revolt destroys...).  What the
  turn then does on its own (the Eyrie's Evening roosts) is not a command's, and a later
  answer (a rival's Field Hospitals, an Outrage card) is a command of its own.

Why both are read only up to the first chance event, and why that is all it takes to keep
secrets: the copy holds everything, the deck order, every hand, the ruins and the seed, so a
result that read any of them would tell the seat more than it may know.  The events of one
command read secrets only in these ways: dice and random draws (the seed), a battle (whether
the defender is asked for an ambush depends on its hand, the rest on the dice), a reshuffle
(the seed), and the identities of cards drawn, ruin items found or quests revealed.  The
first three are the chance events (:func:`chance`): the VP is then None and the cost is what
the command takes before them.  The last never changes a cost or a score (a ruin item scores
1 VP whatever it is, a quest scores by the quests done, drawn cards are spent by later
commands).  Whether a chance event comes, and where, follows from the command and the public
state, so even a None says nothing secret; the cost is the seat's own hand, items and pieces,
which it knows.  tests/unit/engine/test_score_preview.py deals the hidden cards, ruins and
seed anew and checks that no preview changes.

One kind of command is read without playing it: a plain move (:func:`plain_move`), a march
step or a Decree or Alliance move that pays no bridge fee and takes no contraband along.
Moves are most of a Daylight's legal list (dozens per list), and playing each on a copy of
the state was most of what the facts of a list cost the orchestrator, while such a move's
events are only warriors moving, per-turn counters and a fee-less crossing on the Eyrie's
wings: nothing it costs, nothing it scores (a move into sympathy is never plain: an Outrage
the mover can answer with one card only takes that card at once).  A faction may also know
some of its commands' facts from the rules it plays them by (``FactionRules.known_facts``:
the Marquise's builds, from the wood they spend and the track they score on).
tests/property/test_known_facts.py plays every such command of thousands of random positions
and finds exactly the facts known without playing it.
"""

from __future__ import annotations

from .contraband import carried_by
from .ctx import Ctx
from .decide import apply_command
from .evolve import evolve
from .facts import NO_COST, NOTHING, Cost, Preview
from .model import Command, CommandKind, Event, EventKind, Item
from .pieces import SYMPATHY, WARRIOR
from .registry import rules_for
from .state import State

__all__ = [
    "NOTHING",
    "NO_COST",
    "STOLEN",
    "Cost",
    "Preview",
    "certain_vp",
    "chance",
    "plain_move",
    "played",
    "preview",
]

# Events after which chance (or a rival's hidden hand) decides what happens: a battle (the
# defender may be asked for an ambush only if it holds one), dice, and the events whose
# folding draws from the generator (evolve: a reshuffle, a card stolen at random).
_CHANCE = frozenset(
    {
        EventKind.BATTLE_STARTED,
        EventKind.DICE_ROLLED,
        EventKind.DIE_REROLLED,
        EventKind.DECK_SHUFFLED,
    }
)
STOLEN = "stolen"  # the text of a CARD_GIVEN taken at random (evolve draws its index)


def _item(key: str) -> Item:
    """The item of an item key such as ``"sword/exhausted/damaged"``."""
    return Item(key.split("/", 1)[0])


# The moves whose whole effect is the move itself (movement.do_move), after per-turn counters
_MOVES = frozenset({CommandKind.MARCH, CommandKind.MOVE, CommandKind.DECREE_MOVE})


def plain_move(state: State, cmd: Command) -> bool:
    """Whether ``cmd`` is a move that pays no bridge fee (``cards``), moves no contraband
    (none carried by the mover in its origin) and cannot outrage an Alliance (no sympathy in
    the destination: with one matching card the mover gives it at once): it then costs and
    scores nothing."""
    if cmd.kind not in _MOVES or cmd.cards or cmd.clearings:
        return False
    if carried_by(state, cmd.clearing, cmd.seat):
        return False
    return not any(kinds.get(SYMPATHY, 0) for kinds in state.pieces[cmd.to].values())


def preview(state: State, cmd: Command) -> Preview:
    """The cost and certain VP of ``cmd``, a legal command of ``state`` (left unchanged):
    nothing for a plain move, what its faction knows of it (``FactionRules.known_facts``),
    else what :func:`played` reads (see the module)."""
    if plain_move(state, cmd):
        return NOTHING
    known = rules_for(state.lineup[cmd.seat].faction).known_facts
    if known is not None:
        found = known(state, cmd)
        if found is not None:
            return found
    return played(state, cmd)


def played(state: State, cmd: Command) -> Preview:
    """The cost and certain VP of ``cmd`` read from its events, played on a copy of ``state``.

    Both are read from the command's events up to the first chance event (:func:`chance`):
    what follows may depend on the dice or on what the seat may not see, so the VP is None
    and the cost is what the command takes before it."""
    ctx = Ctx(state.clone())
    apply_command(ctx, cmd)
    events = ctx.events
    cut = next((i for i, e in enumerate(events) if chance(e)), len(events))
    after = ctx.state
    if cut < len(events):
        after = state.clone()  # the seat's hand and play area just before the chance event
        for e in events[:cut]:
            evolve(after, e)
    cards = _left(state.seats[cmd.seat].hand, after.seats[cmd.seat].hand)
    cards += _left(state.seats[cmd.seat].play_area, after.seats[cmd.seat].play_area)
    vp, cost = _read(events[:cut], cmd, cards)
    # An answer inside a battle: the hits were rolled, or are still to roll, or whether a
    # rival is asked next (a foil) depends on its hand: no score is certain.
    certain = cut == len(events) and state.battle is None
    return Preview(cost, vp if certain else None)


def chance(event: Event) -> bool:
    """Whether what follows ``event`` may depend on chance or on a rival's hidden hand."""
    return event.kind in _CHANCE or (event.kind is EventKind.CARD_GIVEN and event.text == STOLEN)


def _left(before: list[str], after: list[str]) -> tuple[str, ...]:
    """The cards of ``before`` that are not in ``after``, in order."""
    if not before:
        return ()
    kept = set(after)
    return tuple(c for c in before if c not in kept)


def _read(events: list[Event], cmd: Command, cards: tuple[str, ...]) -> tuple[int, Cost]:
    """The team's VP and the seat's cost in ``events`` (none of them a chance event)."""
    seat = cmd.seat.value
    team = cmd.seat.team.value
    vp = 0
    supporters: list[str] = []
    exhausted: list[Item] = []
    lost: list[Item] = []
    warriors = 0
    wood = 0
    for e in events:
        kind = e.kind
        if kind is EventKind.SCORED:
            if e.target == team:
                vp += e.amount
        elif e.seat != seat:
            continue
        elif kind is EventKind.SUPPORTERS_DISCARDED:
            supporters.extend(e.cards)
        elif kind is EventKind.ITEMS_EXHAUSTED:
            exhausted.extend([Item(e.piece)] * e.count)
        elif kind is EventKind.ITEM_DAMAGED or kind is EventKind.ITEM_REMOVED:
            lost.append(_item(e.piece))
        elif kind is EventKind.PIECES_REMOVED and e.piece == WARRIOR:
            warriors += e.count
        elif kind is EventKind.WOOD_SPENT:
            wood += len(e.clearings)
    if not (cards or supporters or exhausted or lost or warriors or wood):
        return vp, NO_COST
    cost = Cost(cards, tuple(supporters), tuple(exhausted), tuple(lost), warriors, wood)
    return vp, cost


def certain_vp(state: State, cmd: Command) -> int | None:
    """The VP ``cmd`` surely scores for its seat's team, or None when chance decides."""
    return preview(state, cmd).vp
