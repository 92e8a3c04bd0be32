"""The emitter every rule writes through: each event is applied at once with ``evolve``.

Rules code reads the state, decides, and calls ``ctx.emit``; because the event is applied
immediately, later reads in the same command see its effect, and the list of events is by
construction exactly what rebuilds the state when folded.  Helpers here wrap the few event
sequences that many rules share (drawing with reshuffle, scoring with the floor and the
90-point check).  Removing pieces sets off rules of its own (contraband drops, Hostility,
Outrage...), so it lives above this module, in :mod:`frontier.engine.removal`: ``Ctx``
imports nothing but ``evolve`` and plain data, so every rule module may import it.
"""

from __future__ import annotations

from .evolve import evolve
from .model import EMPTY, Command, Event, EventKind, Seat, Team
from .pieces import WARRIOR
from .state import State


class MatchEnded(Exception):
    """Raised inside a command once GAME_ENDED is emitted: nothing after it may happen."""


class Ctx:
    __slots__ = ("events", "next_legal", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Event] = []
        # The active seat's legal commands, when the turn machinery had to compute them to
        # see that the seat must choose: (seat, state version, commands).  A caller about to
        # ask for them again (the match runner) may reuse them while the version is equal.
        self.next_legal: tuple[Seat, int, list[Command]] | None = None

    def emit(
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
    ) -> Event:
        # The fields of :class:`Event` spelled out (not ``**fields``): every rule emits
        # through here, and passing them on positionally skips building a dict per event.
        event = Event(
            kind, seat, clearing, to, count, target, piece, cards, clearings, values, amount, text
        )
        evolve(self.state, event)
        self.events.append(event)
        return event

    # ----- cards -----------------------------------------------------------------------
    def draw(self, seat: Seat, n: int) -> None:
        """Draw from the top; reshuffle the discard pile when the deck runs out (R11)."""
        drawn: list[str] = []
        for _ in range(n):
            if len(drawn) == len(self.state.deck):  # every card left is already drawn
                if drawn:
                    self.emit(EventKind.CARDS_DRAWN, seat=seat.value, cards=tuple(drawn))
                    drawn = []
                if not self.state.discard:
                    return
                self.emit(EventKind.DECK_SHUFFLED, count=len(self.state.discard))
            drawn.append(self.state.deck[-1 - len(drawn)])
        if drawn:
            self.emit(EventKind.CARDS_DRAWN, seat=seat.value, cards=tuple(drawn))

    def discard(self, seat: Seat, cards: tuple[str, ...], reason: str) -> None:
        if cards:
            self.emit(EventKind.CARDS_DISCARDED, seat=seat.value, cards=cards, text=reason)

    def give(self, giver: Seat, receiver: Seat, cards: tuple[str, ...], reason: str) -> None:
        self.emit(
            EventKind.CARD_GIVEN, seat=giver.value, target=receiver.value, cards=cards, text=reason
        )

    # ----- score -----------------------------------------------------------------------
    def score(self, seat: Seat, amount: int, reason: str) -> None:
        """Score for ``seat``'s team (R32), never below 0 (R31), then check 90 VP (R30)."""
        team = seat.team
        if amount < 0:
            amount = max(amount, -self.state.scores[team])
        if amount == 0:
            return
        self.emit(EventKind.SCORED, seat=seat.value, target=team.value, amount=amount, text=reason)
        if self.state.scores[team] >= self.state.options.winning_score:
            self.end(team.value, "score")

    def end(self, winner: str, reason: str) -> None:
        a, b = self.state.scores[Team.A], self.state.scores[Team.B]
        self.emit(EventKind.GAME_ENDED, text=winner, piece=reason, values=(a, b))
        raise MatchEnded

    # ----- pieces ----------------------------------------------------------------------
    def place(self, seat: Seat, clearing: str, piece: str, n: int = 1, reason: str = "") -> None:
        if n > 0:
            self.emit(
                EventKind.PIECES_PLACED,
                seat=seat.value,
                clearing=clearing,
                piece=piece,
                count=n,
                text=reason,
            )

    def move(self, seat: Seat, origin: str, dest: str, n: int, piece: str = WARRIOR) -> None:
        self.emit(
            EventKind.PIECES_MOVED, seat=seat.value, clearing=origin, to=dest, piece=piece, count=n
        )

    # ----- flow ------------------------------------------------------------------------
    def ask(self, seat: Seat, kind: str, **fields: object) -> None:
        self.emit(EventKind.DECISION_REQUESTED, seat=seat.value, text=kind, **fields)  # type: ignore[arg-type]

    def close_decision(self) -> None:
        self.emit(EventKind.DECISION_CLOSED)

    def use(self, seat: Seat, key: str, n: int = 1) -> None:
        self.emit(EventKind.ONCE_USED, seat=seat.value, text=key, count=n)
