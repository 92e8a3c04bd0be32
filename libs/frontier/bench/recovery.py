"""How soon play resumes after NATS or a domain service comes back (``frontier bench recovery``).

A local stack (:mod:`frontier.ops.stack`) is started, :data:`PLAYERS` players play matches
through it without pause, retrying a failed call (UNAVAILABLE, DEADLINE_EXCEEDED) with the
same command id every :data:`RETRY_PAUSE_S`, and the target is SIGKILLed and started again
a few times:

* ``nats``: nats-server is stopped (SIGSTOP) for :data:`IN_FLIGHT_S`, so that the commands
  under way have their publishes sent and unanswered, as when it crashes under load, then
  killed and started again after :data:`NATS_DOWN_S` (a sub-second restart); it is *back*
  when its port accepts connections.
* a domain service (``map``, ``turn_order``...): killed and started again at once (or after
  ``down_s``); it is *back* when it answers its health check SERVING.

Recovery is the time from *back* until every player has had a command accepted after every
failure it saw within :data:`SETTLE_WINDOW_S` after *back*: a command that happens not to
need the restarted domain does not count as play resumed while the next one that does still
fails.  What each player saw -- accepted commands and failed calls, with times -- is kept;
the report is the median and the maximum over the restarts.
"""

from __future__ import annotations

import functools
import os
import signal
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import grpc

from frontier.ops.stack import DOMAINS, Stack, StackConfig
from frontier.v1 import match_pb2, match_pb2_grpc

T = TypeVar("T")

TARGETS = ("nats", *DOMAINS)
LINEUP = "A=marquise;B=marquise"
RETRY_PAUSE_S = 0.02  # the player's pause before it sends a failed call again
PLAYERS = 4  # matches played at once: some command is always between its steps
IN_FLIGHT_S = 0.1  # nats-server stopped this long before it is killed
NATS_DOWN_S = 0.3  # then down this long (a sub-second restart)
SETTLE_WINDOW_S = 6.0  # failures this long after "back" still count against recovery
CALL_DEADLINE_S = 30.0  # the player's deadline per call: far beyond any server timeout
# the health probe's own channel retries its connection this often, so that it sees the
# service come back at once rather than after its own reconnect back-off
PROBE = (("grpc.initial_reconnect_backoff_ms", 10), ("grpc.max_reconnect_backoff_ms", 20))
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


@dataclass
class Timeline:
    """What the player saw, in ``time.monotonic()`` seconds."""

    accepted: list[float] = field(default_factory=list)
    failed: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def accepted_after(self, when: float) -> bool:
        with self.lock:
            return bool(self.accepted) and self.accepted[-1] > when

    def recovery_s(self, back: float) -> float | None:
        """Seconds from ``back`` to the first accepted command after the last failure seen
        within the settle window (None: none yet)."""
        with self.lock:
            failures = [t for t in self.failed if back <= t <= back + SETTLE_WINDOW_S]
            anchor = max(failures, default=back)
            first = next((t for t in self.accepted if t > anchor), None)
        return None if first is None else first - back


class Player:
    """Plays matches one after another until stopped, each failed call sent again as it was
    (same command id) after :data:`RETRY_PAUSE_S`; records every outcome in a Timeline."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.timeline = Timeline()
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.commands = 0
        self._thread = threading.Thread(target=self._run, name="recovery-player", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        self.stop.set()
        self._thread.join(CALL_DEADLINE_S * 2)

    def _run(self) -> None:
        try:
            with grpc.insecure_channel(self.address) as channel:
                stub = match_pb2_grpc.MatchServiceStub(channel)
                seed = 0
                while not self.stop.is_set():
                    self._play(stub, seed)
                    seed += 1
        except BaseException as exc:  # reported by the run, which stops
            self.error = exc

    def _play(self, stub: match_pb2_grpc.MatchServiceStub, seed: int) -> None:
        config = match_pb2.MatchConfig(seed=seed, lineup=LINEUP)
        created = self._retry(
            lambda: stub.CreateMatch(
                match_pb2.CreateMatchRequest(config=config), timeout=CALL_DEADLINE_S
            )
        )
        tokens = {s.seat: s.token for s in created.seats}
        view = self._retry(
            lambda: stub.GetView(
                match_pb2.GetViewRequest(match_id=created.match_id), timeout=CALL_DEADLINE_S
            )
        ).view
        to_act, version, n = view.to_act, 0, 0
        while to_act and not self.stop.is_set():
            listing = match_pb2.ListLegalCommandsRequest(
                match_id=created.match_id, seat_token=tokens[to_act]
            )
            options = self._retry(
                functools.partial(stub.ListLegalCommands, listing, timeout=CALL_DEADLINE_S)
            ).commands
            submit = match_pb2.SubmitCommandRequest(
                match_id=created.match_id,
                seat_token=tokens[to_act],
                command_id=uuid.uuid4().hex,
                expected_version=version,
                legal_id=options[n % len(options)].id,
            )
            reply = self._retry(
                functools.partial(stub.SubmitCommand, submit, timeout=CALL_DEADLINE_S)
            )
            with self.timeline.lock:
                self.timeline.accepted.append(time.monotonic())
            self.commands += 1
            to_act, version, n = reply.to_act, reply.version, n + 1

    def _retry(self, call: Callable[[], T]) -> T:
        while True:
            try:
                return call()
            except grpc.RpcError as exc:
                if exc.code() not in RETRYABLE:
                    raise
                with self.timeline.lock:
                    self.timeline.failed.append(time.monotonic())
                if self.stop.is_set():
                    raise
                time.sleep(RETRY_PAUSE_S)


@dataclass
class RecoveryResult:
    target: str
    restarts: int
    recovery_s: list[float]
    median_s: float
    max_s: float
    commands: int


def run(
    target: str, restarts: int = 5, down_s: float | None = None, workdir: Path | None = None
) -> RecoveryResult:
    """Restart ``target`` ``restarts`` times under play, each time down for ``down_s``
    (default: :data:`NATS_DOWN_S` for nats, 0 for a domain service); the recovery times."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}: one of {', '.join(TARGETS)}")
    if restarts < 1:
        raise ValueError("restarts must be at least 1")
    if down_s is None:
        down_s = NATS_DOWN_S if target == "nats" else 0.0
    if down_s < 0:
        raise ValueError("down_s must be at least 0")
    with tempfile.TemporaryDirectory(prefix="frontier-recovery-") as tmp:
        config = StackConfig.ephemeral(workdir or Path(tmp), sync="always")
        with Stack(config) as stack:
            players = [Player(config.address("orchestrator")) for _ in range(PLAYERS)]
            for player in players:
                player.start()
            try:
                times = [_one_restart(stack, target, players, down_s) for _ in range(restarts)]
            finally:
                for player in players:
                    player.join()
    return RecoveryResult(
        target,
        restarts,
        [round(t, 3) for t in times],
        round(statistics.median(times), 3),
        round(max(times), 3),
        sum(player.commands for player in players),
    )


def _one_restart(
    stack: Stack, target: str, players: list[Player], down_s: float, bound_s: float = 120.0
) -> float:
    """Kill ``target`` once play is under way, start it again, and measure the recovery."""
    for player in players:
        _wait_for(functools.partial(_playing, player), players, bound_s)
    if target == "nats":
        os.kill(stack.procs["nats"].pid, signal.SIGSTOP)
        time.sleep(IN_FLIGHT_S)
        stack.kill(target)
        time.sleep(down_s)
        stack.start_nats()
    else:
        stack.kill(target)
        time.sleep(down_s)
        stack.start_service(target)
        _wait_serving(stack, target, bound_s)
    back = time.monotonic()
    _wait_for(lambda: time.monotonic() > back + SETTLE_WINDOW_S, players, bound_s)
    recovery: dict[int, float] = {}

    def recovered() -> bool:
        for n, player in enumerate(players):
            measured = player.timeline.recovery_s(back)
            if measured is not None:
                recovery.setdefault(n, measured)
        return len(recovery) == len(players)

    _wait_for(recovered, players, bound_s)
    return max(recovery.values())


def _playing(player: Player) -> bool:
    """Whether ``player`` had a command accepted in the last half second."""
    return player.timeline.accepted_after(time.monotonic() - 0.5)


def _wait_for(condition: Callable[[], bool], players: list[Player], bound_s: float) -> None:
    deadline = time.monotonic() + bound_s
    while not condition():
        for player in players:
            if player.error is not None:
                raise RuntimeError(f"a player stopped: {player.error!r}") from player.error
        if time.monotonic() > deadline:
            raise TimeoutError(f"play did not resume within {bound_s:g} s")
        time.sleep(0.01)


def _wait_serving(stack: Stack, name: str, bound_s: float) -> None:
    """The stack's own wait, polling finely on a channel that reconnects at once (its
    defaults, a poll every 0.1 s on gRPC's back-off, would hide part of the recovery)."""
    stack.wait_serving(name, bound_s, poll_s=0.005, options=PROBE)
