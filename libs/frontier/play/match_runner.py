"""Play a whole match in-process: one bot per seat, the engine's ``execute`` in a loop.

This is the fastest way to run a match (no server, no wire, no copies of the state), so the
CLI, the benchmark and the tests all go through it.  It records what a replay needs (the
commands, and the events they caused) and, optionally, a small round-by-round summary.

Round summaries are exact: a command may start a new round and then keep going (the first
seat's automatic Birdsong steps run in the same command), so the runner keeps a copy of the
state from before the command and folds the command's events onto it only up to
``ROUND_STARTED``.  That copy is only made when summaries are asked for (a few per cent of
the cost of a command), which is why the benchmark turns them off.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from frontier.bots import Bot
from frontier.engine import (
    Command,
    Event,
    EventKind,
    MatchConfig,
    Seat,
    State,
    Team,
    evolve,
    initial_state,
    legal_commands,
    to_act,
)
from frontier.engine.decide import execute_chosen
from frontier.engine.hashing import state_hash
from frontier.engine.pieces import BUILDINGS, WARRIOR

# A runaway guard, not a rule: a 6-round match takes a few thousand commands at most, so a
# match still running after this many has hit an engine bug (a loop that never ends).
MAX_COMMANDS = 1_000_000


class MatchAborted(RuntimeError):
    """The match could not be played to its end (an engine or bot bug, never a user error)."""


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """Scores and board presence per team at one moment of the match.

    ``at`` is ``"start"`` for the moment round ``round`` began (so the summary of round 2's
    start is the picture at the end of round 1) and ``"end"`` for the end of the match.
    """

    round: int
    at: str
    scores: dict[Team, int]
    warriors: dict[Team, int]
    buildings: dict[Team, int]


def summarize(state: State, at: str) -> RoundSummary:
    """Count warriors and buildings per team from ``state.pieces`` (clearing->seat->kind->n)."""
    warriors = dict.fromkeys(Team, 0)
    buildings = dict.fromkeys(Team, 0)
    for per_seat in state.pieces.values():
        for seat, kinds in per_seat.items():
            for kind, n in kinds.items():
                if kind == WARRIOR:
                    warriors[seat.team] += n
                elif kind in BUILDINGS:
                    buildings[seat.team] += n
    return RoundSummary(
        round=state.round,
        at=at,
        scores={team: state.scores[team] for team in Team},
        warriors=warriors,
        buildings=buildings,
    )


@dataclass
class MatchResult:
    """Everything a caller may want after a match; ``state`` is the final state itself.

    ``commands`` and ``events`` are empty when the match was played with ``record=False``;
    ``command_count`` and ``event_count`` are always right.
    """

    config: MatchConfig | None
    state: State
    command_count: int
    event_count: int
    commands: list[Command] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    summaries: list[RoundSummary] = field(default_factory=list)

    @property
    def winner(self) -> str:
        return self.state.winner

    @property
    def reason(self) -> str:
        return self.state.end_reason

    @property
    def scores(self) -> dict[Team, int]:
        return {team: self.state.scores[team] for team in Team}

    @property
    def rounds(self) -> int:
        return self.state.round

    @cached_property
    def state_hash(self) -> str:
        """Computed on first use: hashing serialises the whole state, which a benchmark
        playing many matches does not need."""
        return state_hash(self.state)


RoundHook = Callable[[RoundSummary], None]


def play(
    state: State,
    bots: Mapping[Seat, Bot],
    *,
    config: MatchConfig | None = None,
    record: bool = True,
    summaries: bool = True,
    on_round: RoundHook | None = None,
    max_commands: int = MAX_COMMANDS,
) -> MatchResult:
    """Play ``state`` (modified in place) until the match is over.

    ``record`` keeps the commands and events (needed for a replay); ``summaries`` collects a
    :class:`RoundSummary` at each round start and at the end, and ``on_round`` is called
    with each one as soon as it is known (the CLI prints them as the match goes).
    """
    missing = [seat.value for seat in state.order if seat not in bots]
    if missing:
        raise ValueError(f"no bot for seat(s) {', '.join(missing)}")
    want_summaries = summaries or on_round is not None
    result = MatchResult(config=config, state=state, command_count=0, event_count=0)

    def note(summary: RoundSummary) -> None:
        if summaries:
            result.summaries.append(summary)
        if on_round is not None:
            on_round(summary)

    legal: list[Command] | None = None  # the next seat's commands, when already known
    while (seat := to_act(state)) is not None:
        if result.command_count >= max_commands:
            raise MatchAborted(
                f"the match did not end within {max_commands} commands "
                f"(round {state.round}, step {state.step})"
            )
        if legal is None:
            legal = legal_commands(state, seat)
        if not legal:
            raise MatchAborted(
                f"seat {seat.value} must act but has no legal command "
                f"(round {state.round}, step {state.step}, "
                f"decision {state.decisions[0].kind if state.decisions else 'none'})"
            )
        cmd = bots[seat].choose(state, seat, legal)
        before = state.clone() if want_summaries else None
        try:
            events, legal = execute_chosen(state, cmd, legal)
        except Exception as exc:
            # Keep the original traceback, but say which command of which match broke.
            exc.add_note(
                f"while applying command #{result.command_count} ({cmd.key()}) by "
                f"{seat.value}; seed={config.seed if config else '?'}"
            )
            raise
        result.command_count += 1
        result.event_count += len(events)
        if record:
            result.commands.append(cmd)
            result.events.extend(events)
        if before is not None:
            _round_starts(before, events, note)
    if want_summaries:
        note(summarize(state, "end"))
    return result


def _round_starts(before: State, events: list[Event], note: RoundHook) -> None:
    """Fold ``events`` onto the pre-command copy and summarise it at each ROUND_STARTED."""
    if not any(e.kind is EventKind.ROUND_STARTED for e in events):
        return
    for event in events:
        evolve(before, event)
        if event.kind is EventKind.ROUND_STARTED:
            note(summarize(before, "start"))


def play_match(
    config: MatchConfig,
    bots: Mapping[Seat, Bot],
    *,
    record: bool = True,
    summaries: bool = True,
    on_round: RoundHook | None = None,
    max_commands: int = MAX_COMMANDS,
) -> MatchResult:
    """Play a fresh match of ``config`` to its end (see :func:`play`)."""
    return play(
        initial_state(config),
        bots,
        config=config,
        record=record,
        summaries=summaries,
        on_round=on_round,
        max_commands=max_commands,
    )


def bot_seed(match_seed: int, seat: Seat) -> int:
    """Each seat's bot seed: the match seed plus the seat's index in the turn order.

    Using the fixed turn order (not the filled seats) keeps a seat's seed the same whatever
    the lineup, so adding a seat to a lineup does not change how the others play.
    """
    return match_seed + list(Seat).index(seat)


def seat_bots(config: MatchConfig, make: Callable[[int], Bot]) -> dict[Seat, Bot]:
    """One fresh bot per filled seat of ``config``, seeded with :func:`bot_seed`."""
    return {seat: make(bot_seed(config.seed, seat)) for seat in config.seats()}
