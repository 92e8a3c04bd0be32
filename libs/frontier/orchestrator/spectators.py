"""Watchers of a match through WatchEvents: how many may watch, and what spectators share.

Anyone may watch a match, so watching must never cost its players.  Three things see to it:

* **Caps.**  At most ``per_match`` spectators per match and ``per_address`` watch streams
  (spectators and seats alike) per client address; past either the stream is refused at once
  with RESOURCE_EXHAUSTED (``WATCHERS_LIMIT``).  Addresses and networks listed as ``trusted``
  (the web gateways, which serve many people through one connection each) are not counted
  per address.
* **One conversion per event.**  Every spectator sees the same events, so while a match has
  spectators its events are filtered and converted to replies once, into a window of the
  newest ``window`` replies (:class:`SpectatorFeed`) that every spectator reads.  A hosted
  match keeps only its last few events in memory; without the window each spectator that
  fell a little behind would read the match's stream back from NATS on its own.
* **A bounded lag.**  A spectator that has caught up and then falls more than ``max_lag``
  events behind the match (it reads more slowly than the match plays) is cut with
  RESOURCE_EXHAUSTED (``WATCHER_TOO_SLOW``) and a message naming the version to watch again
  from; a watch resumed from there misses nothing.  So a slow reader costs its own stream and
  never a replay from the stream per event.

A new spectator from an old version first catches up on its own (from memory, else from the
stream: once per watch), then joins the shared window.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field

import grpc

from frontier.engine.view import event_for
from frontier.runtime.bus import Bus
from frontier.runtime.errors import ServiceError
from frontier.runtime.peer_address import client_address
from frontier.runtime.tally import Tally
from frontier.v1 import events_pb2, match_pb2, types_pb2
from frontier.wire.convert import event_to_proto

from . import history, referee
from .hosted_match import HostedMatch
from .recent import Recent

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(spec: str) -> tuple[IPNetwork, ...]:
    """FRONTIER_WATCH_TRUSTED_ADDRESSES ("10.0.0.7, 172.16.0.0/12") as networks; ValueError
    names an entry that is neither an address nor a network."""
    out: list[IPNetwork] = []
    for entry in (e.strip() for e in spec.split(",")):
        if entry:
            out.append(ipaddress.ip_network(entry, strict=False))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class WatchLimits:
    """How many may watch, and how far behind a spectator may fall (see the module)."""

    per_match: int = 100  # direct streams cost the players' loop (docs/performance.md)
    per_address: int = 256
    max_lag: int = 512
    trusted: tuple[IPNetwork, ...] = ()  # addresses or networks not counted per address

    def is_trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False  # not an IP (a unix socket): counted
        return any(ip in network for network in self.trusted)

    @property
    def window(self) -> int:
        """Replies kept per watched match: a live spectator within ``max_lag`` finds its
        next reply there."""
        return self.max_lag + 64


def reply_for(
    match_id: str, seq: int, event: types_pb2.Event, record: events_pb2.DecisionRecord | None
) -> match_pb2.WatchEventsResponse:
    """One WatchEvents reply."""
    return match_pb2.WatchEventsResponse(
        envelope=events_pb2.EventEnvelope(
            match_id=match_id, seq=seq, state_version=seq, event=event
        ),
        decision=record,
    )


@dataclass(slots=True)
class SpectatorFeed:
    """A watched match's newest replies as spectators see them, built once, read by all."""

    replies: Recent[match_pb2.WatchEventsResponse]
    watchers: int = 0

    async def fill(self, bus: Bus, hosted: HostedMatch, first: int, last: int) -> None:
        """Build the replies ``first..last`` not built yet (from memory, else the stream).
        The window always holds one run of consecutive replies, as they are only ever built
        from its first missing one on, in order."""
        first = max(first, self.replies.start)
        while first <= last and first in self.replies:
            first += 1
        if first > last:
            return
        async for seq, event, noted in history.iter_events(bus, hosted, first, last):
            if seq in self.replies or seq < self.replies.start:
                continue  # another spectator built it meanwhile
            record = referee.record_for(noted[1], noted[0].value, None) if noted else None
            shown = event_to_proto(event_for(hosted.state, event, None))
            self.replies[seq] = reply_for(hosted.match_id, seq, shown, record)


@dataclass
class Watchers:
    """The watch streams open on this orchestrator, by match and by client address."""

    limits: WatchLimits = field(default_factory=WatchLimits)
    feeds: dict[str, SpectatorFeed] = field(default_factory=dict)
    per_address: Tally = field(default_factory=Tally)
    seat_streams: int = 0  # open watches of seats (spectators are counted in their feeds)

    def streams(self) -> dict[str, int]:
        """Open watch streams by kind, for the ``frontier_watch_streams`` gauge (read from
        the scrape thread: the feeds are copied in one call first)."""
        spectators = sum(feed.watchers for feed in list(self.feeds.values()))
        return {"spectator": spectators, "seat": self.seat_streams}

    def spectators_per_match(self) -> list[int]:
        """The spectator streams of each watched match, for the busiest-match gauge."""
        return [feed.watchers for feed in list(self.feeds.values())]

    @contextlib.contextmanager
    def admit(
        self, hosted: HostedMatch, peer: str, spectator: bool
    ) -> Iterator[SpectatorFeed | None]:
        """Count a watch stream for its lifetime; RESOURCE_EXHAUSTED past a cap.  Yields the
        match's spectator feed (None for a seat's watch)."""
        address = client_address(peer)
        counted = not self.limits.is_trusted(address)
        if counted and self.per_address[address] >= self.limits.per_address:
            raise _limit(
                f"this address watches {self.limits.per_address} streams already: close one"
            )
        feed = self.feeds.get(hosted.match_id) if spectator else None
        if spectator and feed is not None and feed.watchers >= self.limits.per_match:
            raise _limit(f"the match has {self.limits.per_match} spectators already")
        if spectator and feed is None:
            start = hosted.spectator_state().version + 1
            feed = self.feeds[hosted.match_id] = SpectatorFeed(
                Recent(self.limits.window, start=start)
            )
        if counted:
            self.per_address.take(address)
        if feed is not None:
            feed.watchers += 1
        elif not spectator:
            self.seat_streams += 1
        try:
            yield feed
        finally:
            if not spectator:
                self.seat_streams -= 1
            if counted:
                self.per_address.give(address)
            if feed is not None:
                feed.watchers -= 1
                if not feed.watchers and self.feeds.get(hosted.match_id) is feed:
                    del self.feeds[hosted.match_id]


def _limit(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, message, "WATCHERS_LIMIT")


async def spectate(
    bus: Bus,
    hosted: HostedMatch,
    feed: SpectatorFeed,
    from_version: int,
    max_lag: int,
    draining: Callable[[], bool],
    moved: Callable[[], bool],
) -> AsyncIterator[match_pb2.WatchEventsResponse]:
    """A spectator's replies with seq > from_version: its own catch-up to the feed's window,
    then the shared window; ends when the match is over (see the module for the lag cut)."""
    sent = max(from_version, 0)
    window_start = feed.replies.start
    if sent + 1 < window_start:  # the part before the window: this spectator's own
        async for seq, event, record in history.watch_range(
            bus, hosted, None, sent + 1, window_start - 1
        ):
            yield reply_for(hosted.match_id, seq, event_to_proto(event), record)
            sent = seq
    caught_up = False

    def newer() -> bool:  # an abandoned match ends with no event: its end wakes us too
        return hosted.spectator_state().version > sent or hosted.ended or draining() or moved()

    while True:
        version = hosted.spectator_state().version  # a delayed match's: as it stood then
        if caught_up and version - sent > max_lag:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this watcher fell {version - sent} events behind the match: watch again "
                f"from version {sent}",
                "WATCHER_TOO_SLOW",
            )
        if sent < version:
            await feed.fill(bus, hosted, sent + 1, version)
        while sent < version:
            reply = feed.replies.get(sent + 1)
            if reply is None:  # fell out of the window while catching up: cut, resumable
                raise ServiceError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"this watcher fell behind the match: watch again from version {sent}",
                    "WATCHER_TOO_SLOW",
                )
            yield reply
            sent += 1
        caught_up = True
        if hosted.ended and sent >= hosted.state.version:
            return
        history.check_still_served(sent, draining, moved)
        held = hosted.delay.next_release_s() if hosted.delay and not hosted.ended else None
        async with hosted.changed:
            if held is None:
                await hosted.changed.wait_for(newer)
            else:  # a delayed match: look again when its next state may be shown
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(hosted.changed.wait_for(newer), held)
