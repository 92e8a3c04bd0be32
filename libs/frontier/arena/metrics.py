"""The arena's Prometheus metrics (prometheus-client), served on its ``/metrics`` port like
every service's (:mod:`frontier.runtime.metrics`).

Counters, bumped by one-line calls where things happen (:mod:`.runner`, :mod:`.service`):

* ``frontier_arena_matches_started_total``: matches the arena created;
* ``frontier_arena_matches_ended_total{outcome}``: matches counted on the board, ``rated``
  or ``void`` (a match a previous run had counted already is not counted again);
* ``frontier_arena_seats_left_total``: outside bots that left their match before its end
  (one per bot and match, whatever seats its team had there), counted when the match ends,
  as the board's ``matches_left`` counts them;
* ``frontier_arena_rating_updates_total``: overall ratings the board moved, one per entrant
  (outside or built-in; fillers are not rated) of each rated match;
* ``frontier_arena_enters_total{result}``: Enter streams ``welcomed`` or ``refused``;
* ``frontier_arena_enter_streams{state}``: Enter streams open now, ``hello`` (waiting for
  their EnterHello) or ``entered``.

Gauges read when scraped, from the arena's own tables (nothing keeps them up to date):
``frontier_arena_bots_present``, ``frontier_arena_seat_capacity`` (the matches they said
they play at once), ``frontier_arena_seats_in_play`` (the seats they play now, three a
match) and
``frontier_arena_matches_in_play``.

No label names a bot: the leaderboard already has every per-bot figure, and a label per bot
would add series with every bot registered.  Every label here has two or three values.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from prometheus_client import REGISTRY, Counter, Gauge
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from .lobby import Lobby
from .ratings import MatchResult

MATCHES_STARTED = Counter("frontier_arena_matches_started_total", "matches the arena created")
MATCHES_ENDED = Counter(
    "frontier_arena_matches_ended_total",
    "arena matches counted on the board, by outcome: rated, or void (abandoned, or no "
    "longer known to the server)",
    ["outcome"],
)
SEATS_LEFT = Counter(
    "frontier_arena_seats_left_total",
    "outside bots that left a match before its end (the stream broke and the bot did not "
    "come back, or a seat was taken over), one per bot and match, counted as the match ends",
)
RATING_UPDATES = Counter(
    "frontier_arena_rating_updates_total",
    "entrant ratings moved on the board: one per entrant of each rated match",
)
ENTERS = Counter(
    "frontier_arena_enters_total",
    "Enter streams by result: welcomed, or refused (no EnterHello, a bad capacity or key, "
    "no whole_teams)",
    ["result"],
)
ENTER_STREAMS = Gauge(
    "frontier_arena_enter_streams",
    "Enter streams open now, by state: hello (waiting for the EnterHello) or entered",
    ["state"],
)
for _outcome in ("rated", "void"):
    MATCHES_ENDED.labels(_outcome)
for _result in ("welcomed", "refused"):
    ENTERS.labels(_result)
for _state in ("hello", "entered"):
    ENTER_STREAMS.labels(_state)


def match_started() -> None:
    MATCHES_STARTED.inc()


def match_ended(record: MatchResult) -> None:
    """``record`` was just counted on the board."""
    MATCHES_ENDED.labels(record.state).inc()
    SEATS_LEFT.inc(len({s.bot_id for s in record.seats if s.left and s.bot_id and not s.builtin}))
    if record.state == "rated":
        RATING_UPDATES.inc(len({s.bot_id for s in record.seats if s.bot_id}))


def entered(welcomed: bool) -> None:
    """An Enter stream was welcomed, or refused."""
    ENTERS.labels("welcomed" if welcomed else "refused").inc()


@contextlib.contextmanager
def enter_stream(state: str) -> Iterator[None]:
    """Count an Enter stream in ``state`` ("hello" or "entered") while the block runs."""
    gauge = ENTER_STREAMS.labels(state)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


class InPlay(Protocol):
    """What the gauges read of the arena's loop: its matches in play and a bot's seats there."""

    @property
    def in_play(self) -> dict[str, MatchResult]: ...

    def seats_in_play(self, bot_id: str) -> int: ...


class ArenaGauges(Collector):
    """The gauges of the arenas of this process (one, except in tests), read when scraped.
    Copying a dict's values is one C call under the GIL, so the scrape thread never sees a
    table half-changed."""

    def __init__(self) -> None:
        self.sources: list[tuple[InPlay, Lobby]] = []

    def collect(self) -> Iterable[GaugeMetricFamily]:
        sources = list(self.sources)
        # one reading of each lobby, paired with its arena: every gauge counts the same bots
        present = [(arena, p) for arena, lobby in sources for p in lobby.present()]
        matches = sum(len(arena.in_play) for arena, _ in sources)
        yield GaugeMetricFamily(
            "frontier_arena_bots_present", "bots whose Enter stream is open", value=len(present)
        )
        yield GaugeMetricFamily(
            "frontier_arena_seat_capacity",
            "matches the bots present play at once, together (three seats each)",
            value=sum(p.capacity for _, p in present),
        )
        yield GaugeMetricFamily(
            "frontier_arena_seats_in_play",
            "seats the bots present play now",
            value=sum(arena.seats_in_play(p.bot_id) for arena, p in present),
        )
        yield GaugeMetricFamily(
            "frontier_arena_matches_in_play", "arena matches being played", value=matches
        )


GAUGES = ArenaGauges()
REGISTRY.register(GAUGES)


def watch_arena(arena: InPlay, lobby: Lobby) -> Callable[[], None]:
    """Export the gauges of ``arena`` and ``lobby`` until the returned function is called."""
    source = (arena, lobby)
    GAUGES.sources.append(source)

    def unwatch() -> None:
        GAUGES.sources.remove(source)

    return unwatch
