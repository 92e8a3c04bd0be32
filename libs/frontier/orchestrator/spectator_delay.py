"""What spectators of a competitive match see: the match as it was ``delay_s`` seconds ago.

In a match with ``MatchConfig.spectator_delay_s`` a player cannot learn a rival's moves by
watching the broadcast of their own game: every reader without a seat (spectators, the host,
the web gateway's crowds) is shown the match as it stood that long ago -- its view, its
summary in ``ListMatches``, its events on ``WatchEvents`` and a replay asked for while it is
played.  The seats themselves play on the present.  Once the match has ended nothing is held
back any more.

The states committed within the delay are kept (a commit makes a new state object and never
edits an old one, so keeping one costs only its memory), with the time of their commit by
the orchestrator's monotonic clock, injected for the tests.  After a restart the loaded state
counts as committed at the match's last stored write, so each move is still shown no sooner
than ``delay_s`` after it was made.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from frontier.engine import State

MAX_DELAY_S = 3600  # an hour: a broadcast delay, not an archive


@dataclass
class SpectatorDelay:
    """The states of the last ``delay_s`` seconds, oldest first, each with its commit time."""

    delay_s: float
    clock: Callable[[], float] = time.monotonic
    states: deque[tuple[float, State]] = field(default_factory=deque)

    def committed(self, state: State, at: float | None = None) -> None:
        """``state`` became the match's present (at ``at``, else now)."""
        self.states.append((self.clock() if at is None else at, state))
        self._forget()

    def _forget(self) -> None:
        """Keep the newest state spectators may see and the ones still held back."""
        now = self.clock()
        while len(self.states) >= 2 and self.states[1][0] + self.delay_s <= now:
            self.states.popleft()

    def shown(self) -> State:
        """The state spectators see now (the oldest kept, when none is old enough yet: the
        match as it was created or loaded)."""
        self._forget()
        return self.states[0][1]

    def next_release_s(self) -> float | None:
        """Seconds until spectators may see a newer state (None: they see the newest)."""
        self._forget()
        if len(self.states) < 2:
            return None
        return max(0.0, self.states[1][0] + self.delay_s - self.clock())
