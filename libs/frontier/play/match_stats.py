"""What a finished match's events say beyond its winner: how often each variant mechanic
happened, and the score of each team at the end of every round.

A tournament compares bots, and a win rate alone does not say *how* a bot wins: whether it
ever carries contraband home, loots, flies on the Eyrie's wings...  The engine's events are
the record of everything that happened, so the counts here are read from them, never from a
bot's own bookkeeping, and the same counting serves any bot in any lineup.

Each mechanic is one kind of event, sometimes narrowed by a field (see :data:`MECHANICS`),
counted for the team of the seat the event names: the acting seat (carrier, collector,
seizer, Looting attacker, mover on the Eyrie's wings, paying Marquise, intervening
Vagabond), and for Outrage the Alliance that gains the supporter.  A count is a number of
events: one contraband move of a carrier is one "carried" however many items go along.

Pure functions over plain data: a match's statistics are computed once, in the process that
played it, and travel back as small dictionaries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from frontier.engine import Event, EventKind, Team
from frontier.engine.model import Role


@dataclass(frozen=True, slots=True)
class Mechanic:
    """A variant mechanic and the events that mark it."""

    key: str  # the JSON key, stable
    label: str  # the text report's row name
    kind: EventKind
    when: Callable[[Event], bool] | None = None  # narrows ``kind``; None: every such event

    def marks(self, event: Event) -> bool:
        return event.kind is self.kind and (self.when is None or self.when(event))


# The engine's markers.  Field values are the engine's own strings: crafting names the
# contraband's clearing in ``to`` (R16); Looting is declared as the battle's ``piece`` (R28);
# a warrior validates contraband as its own seat, a Vagabond from its Satchel as the Vagabond's
# seat (R17, R20), so "by warriors" is every validation by a seat that is not a Vagabond;
# each move flown on the Eyrie's wings uses the per-turn counter "wings_r23" (R23); Outrage
# puts supporters with the reason "outrage" (R25); Field Hospitals discards the card paid
# with the reason "field hospitals" (R22).
MECHANICS: tuple[Mechanic, ...] = (
    Mechanic(
        "contraband_crafted", "contraband crafted", EventKind.CARD_CRAFTED, lambda e: e.to != ""
    ),
    Mechanic("contraband_carried", "contraband carried", EventKind.CONTRABAND_MOVED),
    Mechanic("contraband_scored", "contraband scored", EventKind.CONTRABAND_VALIDATED),
    Mechanic(
        "contraband_scored_warriors",
        "  by warriors",
        EventKind.CONTRABAND_VALIDATED,
        lambda e: e.seat[1:] != Role.VAGABOND.value,
    ),
    Mechanic("contraband_dropped", "contraband dropped", EventKind.CONTRABAND_DROPPED),
    Mechanic("contraband_collected", "contraband collected", EventKind.CONTRABAND_COLLECTED),
    Mechanic("contraband_seized", "contraband seized", EventKind.CONTRABAND_SEIZED),
    Mechanic("looting", "looting", EventKind.BATTLE_STARTED, lambda e: e.piece == "looting"),
    Mechanic("legendary", "legendary ability", EventKind.LEGENDARY_GAINED),
    Mechanic(
        "wings", "wings of the alliance", EventKind.ONCE_USED, lambda e: e.text == "wings_r23"
    ),
    Mechanic("outrage", "outrage", EventKind.SUPPORTERS_ADDED, lambda e: e.text == "outrage"),
    Mechanic(
        "field_hospitals",
        "field hospitals",
        EventKind.CARDS_DISCARDED,
        lambda e: e.text == "field hospitals",
    ),
    Mechanic("intervention", "vagabond intervention", EventKind.INTERVENED),
)
MECHANIC_KEYS: tuple[str, ...] = tuple(m.key for m in MECHANICS)
_BY_KIND: dict[EventKind, tuple[Mechanic, ...]] = {
    kind: tuple(m for m in MECHANICS if m.kind is kind) for kind in {m.kind for m in MECHANICS}
}


def _team_of(seat: str) -> Team | None:
    return Team(seat[0]) if seat[:1] in ("A", "B") else None


def count_mechanics(events: Iterable[Event]) -> dict[Team, dict[str, int]]:
    """Per team, how many events of each mechanic (every key of :data:`MECHANICS`)."""
    counts = {team: dict.fromkeys(MECHANIC_KEYS, 0) for team in Team}
    for event in events:
        candidates = _BY_KIND.get(event.kind)
        if not candidates:
            continue
        team = _team_of(event.seat)
        if team is None:
            continue
        for mechanic in candidates:
            if mechanic.marks(event):
                counts[team][mechanic.key] += 1
    return counts


def scores_by_round(events: Iterable[Event]) -> list[dict[Team, int]]:
    """Each team's score at the end of every round played, the last one at the match's end
    (a match won before its last round has fewer entries).  Scores change only by
    ``SCORED`` events (``amount`` to the team ``target``)."""
    scores = dict.fromkeys(Team, 0)
    out: list[dict[Team, int]] = []
    started = False
    for event in events:
        if event.kind is EventKind.SCORED:
            scores[Team(event.target)] += event.amount
        elif event.kind is EventKind.ROUND_STARTED:
            if started:
                out.append(dict(scores))
            started = True
    if started:
        out.append(dict(scores))
    return out


@dataclass(frozen=True, slots=True)
class MatchStats:
    """What a tournament keeps of one match besides its winner (picklable, small)."""

    mechanics: dict[Team, dict[str, int]] = field(default_factory=dict)
    rounds: list[dict[Team, int]] = field(default_factory=list)
    contribution: dict[str, int] = field(default_factory=dict)  # seat -> its own VP (R32)


def match_stats(events: Iterable[Event], contribution: dict[str, int]) -> MatchStats:
    """The statistics of one match from its events and each seat's recorded contribution."""
    recorded = list(events)
    return MatchStats(count_mechanics(recorded), scores_by_round(recorded), dict(contribution))
