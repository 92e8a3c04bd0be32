"""Who is in the arena now: the bots whose Enter stream is open, their capacity, the seats
they play, and the messages waiting to be sent to each.

In memory only: presence is a live stream, and a bot that comes back after an arena restart
simply enters again.  A bot entering a second time replaces its older stream (the older
ends), as a newer BotService stream replaces an older one for a seat.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field

from frontier.v1 import arena_pb2

from .scheduler import Entrant


@dataclass(eq=False)
class Presence:
    """One open Enter stream: the bot, what it may play, what it plays, its outbox."""

    bot_id: str
    name: str
    capacity: int
    seats: set[str] = field(default_factory=set)  # the matches it plays a seat of
    outbox: deque[arena_pb2.EnterResponse] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    leaving: bool = False  # the bot said it takes no more seats

    @property
    def free(self) -> int:
        return 0 if self.leaving else max(0, self.capacity - len(self.seats))

    def push(self, message: arena_pb2.EnterResponse) -> None:
        self.outbox.append(message)
        self.wake.set()

    def close(self) -> None:
        self.closed = True
        self.wake.set()


class Lobby:
    """The bots present; ``changed`` is set whenever a seat may have become free."""

    def __init__(self) -> None:
        self._present: dict[str, Presence] = {}
        self.changed = asyncio.Event()

    def enter(
        self, bot_id: str, name: str, capacity: int, playing: set[str] | None = None
    ) -> Presence:
        """The bot's new presence; an older one of the same bot is closed.  ``playing``:
        the matches it still has a seat in (counted against its capacity: the same bot
        plays them on, through BotService)."""
        older = self._present.pop(bot_id, None)
        presence = Presence(bot_id, name, capacity, set(playing or ()))
        if older is not None:
            presence.seats |= older.seats
            older.close()
        self._present[bot_id] = presence
        self.changed.set()
        return presence

    def leave(self, presence: Presence) -> set[str]:
        """The stream ended: the bot is gone (unless a newer stream replaced it).  Returns
        the matches it left in play (empty when a newer stream took them over)."""
        presence.close()
        if self._present.get(presence.bot_id) is not presence:
            return set()
        del self._present[presence.bot_id]
        self.changed.set()
        return set(presence.seats)

    def free_entrants(self) -> list[Entrant]:
        """The present bots with a free seat: most free seats first, then by id."""
        ready = [p for p in self._present.values() if p.free > 0]
        ready.sort(key=lambda p: (-p.free, p.bot_id))
        return [Entrant(p.bot_id, p.name) for p in ready]

    def assign(self, bot_id: str, assignment: arena_pb2.SeatAssignment) -> bool:
        """Send ``assignment`` to the bot and count its seat; False if the bot is gone."""
        presence = self._present.get(bot_id)
        if presence is None:
            return False
        presence.seats.add(assignment.match_id)
        presence.push(arena_pb2.EnterResponse(assignment=assignment))
        return True

    def release(self, bot_id: str, match_id: str) -> None:
        """The bot's seat in ``match_id`` is over (the match ended, or the bot said so)."""
        presence = self._present.get(bot_id)
        if presence is not None and match_id in presence.seats:
            presence.seats.discard(match_id)
            self.changed.set()

    def present(self) -> list[Presence]:
        return sorted(self._present.values(), key=lambda p: p.name)

    def is_present(self, bot_id: str) -> bool:
        return bot_id in self._present
