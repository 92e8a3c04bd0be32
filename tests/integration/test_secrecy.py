"""Nothing a viewer may not see ever leaves the server (R4, R33), checked on real payloads.

A property test: hypothesis picks the match (seed, lineup, R4's team_hands_visible, one
seat's standing answers); bots play it through BotService; then every payload each viewer
(every seat and a spectator) got is checked against the true state, rebuilt in-process from
the committed stream:

* decision requests (the seat's view, JSON and typed, and legal commands with their labels),
  GetView and GetMatchInfo's initial view (every typed field as well as the JSON): no card
  that is in the
  deck, in the hand of a seat the viewer may not see (R4), or among another Alliance's face
  down supporters, unless the viewer was shown it (Codebreakers, ``known_hands``); ruins
  show only counts; never the seed or the generator state;
* WatchEvents and ExportReplay: each event exactly as the engine's ``event_for`` shows it to
  that viewer, no card still in the deck, other seats' commands reduced to their kind, no
  seed in the config;
* error messages (a refused command, a rejected bot answer) under the same rule;
* standing answers: another seat's never show, neither through GetStandingAnswers nor as
  ANSWERED_BY_STANDING_ANSWER in anyone else's stream or replay;
* the decisions that only a hidden card makes possible (an ambush, its foil, Field
  Hospitals) open on public facts alone (R4): never for a seat without a card, and the
  ambush and the foil whenever the seat holds one, usable or not.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.bots.sdk import BotClient, Decision, RandomStrategy
from frontier.bots.standing import StandingPolicy
from frontier.engine import Event, EventKind, Seat, State, evolve, initial_state, make_config
from frontier.engine.cards import SCOUTING_PARTY, catalog, in_play
from frontier.engine.lineup import R2_DEFAULT_LINEUP
from frontier.engine.model import Item
from frontier.engine.view import can_see_hand, event_for, view
from frontier.ops.stack import Stack
from frontier.orchestrator import referee
from frontier.v1 import events_pb2, match_pb2, match_pb2_grpc, types_pb2
from frontier.wire.convert import command_from_proto, enum_from_proto, event_from_proto
from frontier.wire.labels import label
from frontier.wire.view import view_to_proto

from .bot_helpers import MIRROR, Created, RawStream, create, watch
from .stream_check import stored_batches

pytestmark = pytest.mark.integration

LINEUPS = [MIRROR, "A=marquise,eyrie;B=marquise,alliance", R2_DEFAULT_LINEUP]
KINDS = ["ambush", "field_hospitals", "battle_effects", "allocate_hits", "outrage", "feed_eyrie"]
# card ids that are also public words (the "sword" card and the sword item) cannot be told
# apart in a text, so the text checks skip them; the structural checks still cover them
AMBIGUOUS = {i.value for i in Item}
CARDS = frozenset(catalog()) - AMBIGUOUS
SPECTATOR = "spectator"


def strings(obj: Any) -> set[str]:
    """Every string in a JSON-like value, keys included."""
    out: set[str] = set()
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            out |= strings(key) | strings(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            out |= strings(value)
    return out


HIDDEN_CARD_DECISIONS = frozenset({"ambush", "foil", "field_hospitals"})


def assert_hidden_card_decisions_open_on_public_facts(
    states: list[State], events: list[Event]
) -> None:
    """R4: ``states[i]`` is the state before ``events[i]``."""
    for i, e in enumerate(events):
        before = states[i]
        if e.kind is EventKind.DECISION_REQUESTED and e.text in HIDDEN_CARD_DECISIONS:
            assert before.seats[Seat(e.seat)].hand, f"{e.text} opened for an empty hand"
        b = before.battle
        if e.kind is not EventKind.BATTLE_STAGE or b is None:
            continue
        if b.stage == "start":  # the defender's ambush: any card, unless Scouting Party
            scouting = in_play(before, b.attacker, SCOUTING_PARTY) is not None
            opens = bool(before.seats[b.defender].hand) and not scouting
            assert e.text == ("ambush" if opens else "roll"), (i, e)
        elif i > 0 and events[i - 1].kind is EventKind.AMBUSH_PLAYED:  # the attacker's foil
            opens = bool(before.seats[b.attacker].hand)
            assert e.text == ("foil" if opens else "ambush_hits"), (i, e)


def secrets(state: State, viewer: Seat | None) -> set[str]:
    """Card ids ``viewer`` must not find in a view of ``state``."""
    known: set[str] = set()
    if viewer is not None:
        for cards in state.known_hands.get(viewer, {}).values():
            known |= set(cards)
    hidden = set(state.deck)
    for seat in state.order:
        if can_see_hand(state, viewer, seat):
            continue
        hidden |= set(state.seats[seat].hand)
    for seat in state.order:  # R4: a teammate sees hands, never the supporters
        extra = state.seats[seat].extra
        if extra is not None and seat is not viewer:
            hidden |= strings(extra.private_view()) & CARDS
    return (hidden - known) & CARDS


def typed(msg: types_pb2.View) -> dict[str, Any]:
    """Every typed field of a view (the JSON twin left out: it is checked on its own)."""
    data = MessageToDict(msg)
    data.pop("json", None)
    return data


class Recorder:
    """A random bot that keeps every decision request it was sent."""

    def __init__(self, seed: int) -> None:
        self.inner = RandomStrategy(seed)
        self.seen: list[Decision] = []

    def choose(self, decision: Decision) -> str:
        self.seen.append(decision)
        return self.inner.choose(decision)


def states_by_version(config: dict[str, Any], stored: list[Any]) -> Iterator[State]:
    """The true state after every event of the match (index = version)."""
    state = initial_state(make_config(**config))
    yield state.clone()
    for batch in stored:
        for envelope in batch.envelopes:
            evolve(state, event_from_proto(envelope.event))
            yield state.clone()


@dataclass
class Secrecy:
    """What no payload of one match may show: the seed and generator states anywhere, and
    to each viewer the cards hidden from it (:func:`secrets`)."""

    forbidden_numbers: set[str]

    def clean(self, text: str, state: State, viewer: Seat | None, where: str) -> None:
        found = {s for s in self.forbidden_numbers if s in text}
        assert not found, f"{where}: the seed or generator state leaked"
        try:
            values = strings(json.loads(text))
        except ValueError:
            values = {w.strip("'\",.:;()[]") for w in text.split()}
        leaked = values & secrets(state, viewer)
        assert not leaked, f"{where} shows {viewer or SPECTATOR} hidden cards {leaked}"

    def shows_no_number(self, text: str) -> bool:
        return not {s for s in self.forbidden_numbers if s in text}


@dataclass
class Played:
    """A match played by recording bots, and the truth rebuilt from its committed stream."""

    match: Created
    secret_holder: Seat  # the seat with standing answers
    standing: dict[str, StandingPolicy]
    recorders: dict[Seat, Recorder]
    rejections: dict[Seat, list[str]]
    stored: list[events_pb2.EventBatch]
    states: list[State]  # index = version
    true_events: list[Event]
    secrecy: Secrecy

    @property
    def final(self) -> State:
        return self.states[-1]


def _set_standing_answers(
    match_stub: match_pb2_grpc.MatchServiceStub,
    match: Created,
    seat: Seat,
    standing: dict[str, StandingPolicy],
) -> None:
    match_stub.SetStandingAnswers(
        match_pb2.SetStandingAnswersRequest(
            match_id=match.match_id,
            seat_token=match.tokens[seat],
            answers=[
                match_pb2.StandingAnswer(
                    decision_kind=kind,
                    policy=match_pb2.StandingPolicy.Value(f"STANDING_POLICY_{policy.name}"),
                )
                for kind, policy in standing.items()
            ],
        )
    )


async def _rejected_answers(address: str, match: Created) -> dict[Seat, list[str]]:
    """Before play: every seat sends an answer the server must reject; the reasons given."""
    rejections: dict[Seat, list[str]] = {}
    for seat, token in match.tokens.items():
        async with RawStream(address) as bot:
            bot.hello(match.match_id, token)
            await bot.expect("welcome")
            bot.answer("0", "no such command")
            reply = await bot.next()
            if reply.WhichOneof("message") == "decision":  # the seat to act first
                reply = await bot.expect("rejected")
            rejections[seat] = [reply.rejected.reason]
    return rejections


async def _play(
    stack: Stack,
    match_stub: match_pb2_grpc.MatchServiceStub,
    match: Created,
    standing: dict[str, StandingPolicy],
) -> Played:
    """Standing answers for the first seat, one rejected answer per seat, then recording
    random bots play the match to its end."""
    address = stack.config.address("orchestrator")
    secret_holder = next(iter(match.tokens))
    _set_standing_answers(match_stub, match, secret_holder, standing)
    seed = match.config["seed"]
    recorders = {seat: Recorder(seed + i) for i, seat in enumerate(match.tokens)}
    rejections = await _rejected_answers(address, match)
    await asyncio.gather(
        *(
            BotClient(address, match.match_id, token).play(recorders[seat])
            for seat, token in match.tokens.items()
        )
    )
    stored = await stored_batches(stack.config.nats_url, match.match_id)
    states = list(states_by_version(match.config, stored))
    forbidden = {str(seed), str(states[0].rng), str(states[-1].rng)}
    return Played(
        match,
        secret_holder,
        standing,
        recorders,
        rejections,
        stored,
        states,
        [event_from_proto(e.event) for b in stored for e in b.envelopes],
        Secrecy(forbidden),
    )


def _check_decision_requests(played: Played) -> None:
    """Each decision request: the seat's view at that version, and its legal commands."""
    for seat, recorder in played.recorders.items():
        for decision in recorder.seen:
            state = played.states[int(decision.id)]
            payload = json.dumps(
                {
                    "view": decision.view,
                    "typed": typed(decision.typed_view),
                    "legal": [c.id for c in decision.legal],
                }
            )
            where = f"decision request {decision.id} to {seat.value}"
            played.secrecy.clean(payload, state, seat, where)
            expected = view_to_proto(view(state, seat))
            expected.seed_fixed = decision.typed_view.seed_fixed  # set by the server (test_seats)
            assert decision.typed_view == expected
            assert all(c.label == label(c.command) for c in decision.legal)
            assert all(isinstance(c["ruin_items"], int) for c in decision.view["clearings"])
            if seat is played.secret_holder:  # its standing answers are applied, never asked
                assert decision.kind not in played.standing


def _check_views(
    match_stub: match_pb2_grpc.MatchServiceStub, played: Played, viewer: Seat | None, token: str
) -> None:
    """GetView and GetMatchInfo's opening view."""
    name, match_id, clean = (
        viewer.value if viewer else SPECTATOR,
        played.match.match_id,
        played.secrecy.clean,
    )
    shown = match_stub.GetView(match_pb2.GetViewRequest(match_id=match_id, seat_token=token)).view
    clean(shown.json, played.final, viewer, f"GetView for {name}")
    clean(json.dumps(typed(shown)), played.final, viewer, f"typed GetView for {name}")
    opening = match_stub.GetMatchInfo(
        match_pb2.GetMatchInfoRequest(match_id=match_id, seat_token=token)
    )
    clean(json.dumps(typed(opening.initial_view)), played.states[0], viewer, f"opening for {name}")
    assert played.secrecy.shows_no_number(str(opening))
    assert all(isinstance(c["ruin_items"], int) for c in json.loads(shown.json)["clearings"])


def _check_watch(
    match_stub: match_pb2_grpc.MatchServiceStub, played: Played, viewer: Seat | None, token: str
) -> None:
    """WatchEvents: each event as the engine shows it to the viewer, no card of the deck."""
    name, final = viewer.value if viewer else SPECTATOR, played.final
    replies = watch(match_stub, played.match.match_id, token)
    assert [r.envelope.seq for r in replies] == list(range(1, final.version + 1))
    for reply in replies:
        seq = reply.envelope.seq
        got = event_from_proto(reply.envelope.event)
        assert got == event_for(final, played.true_events[seq - 1], viewer), (name, seq)
        assert not set(got.cards) & set(played.states[seq].deck), (name, seq)
        if viewer is not played.secret_holder:
            assert reply.decision.answered_by != referee.STANDING_ANSWER


def _check_replay(
    match_stub: match_pb2_grpc.MatchServiceStub, played: Played, viewer: Seat | None, token: str
) -> None:
    """ExportReplay: no seed, each event as the viewer may see it, others' commands as kinds."""
    name = viewer.value if viewer else SPECTATOR
    exported = match_stub.ExportReplay(
        match_pb2.ExportReplayRequest(match_id=played.match.match_id, seat_token=token)
    ).json
    assert played.secrecy.shows_no_number(exported)
    replay = json.loads(exported)
    assert "seed" not in replay["config"] and replay["viewer"] == name
    for entry, batch in zip(replay["batches"], played.stored, strict=True):
        first = batch.envelopes[0].seq
        for offset, event in enumerate(entry["events"]):
            true = event_for(played.final, played.true_events[first - 1 + offset], viewer)
            assert event.get("cards", []) == list(true.cards)
        if entry["seat"] != name:
            assert set(entry["command"]) == {"kind"}
            assert entry.get("answered_by") != "ANSWERED_BY_STANDING_ANSWER"
        else:
            assert entry["command"]["kind"] == command_from_proto(batch.command).kind.value


def _check_errors_and_standing(
    match_stub: match_pb2_grpc.MatchServiceStub, played: Played, viewer: Seat, token: str
) -> None:
    """A refused command's message, and GetStandingAnswers (a seat sees only its own)."""
    match_id = played.match.match_id
    with pytest.raises(grpc.RpcError) as refused:
        match_stub.SubmitCommand(
            match_pb2.SubmitCommandRequest(match_id=match_id, seat_token=token, legal_id="nothing")
        )
    details = str(refused.value.details())
    played.secrecy.clean(details, played.final, viewer, f"error to {viewer.value}")
    standing_seen = match_stub.GetStandingAnswers(
        match_pb2.GetStandingAnswersRequest(match_id=match_id, seat_token=token)
    ).answers
    if viewer is not played.secret_holder:
        assert list(standing_seen) == []
    else:
        assert {a.decision_kind for a in standing_seen} == set(played.standing)


async def _check_late_bots(address: str, played: Played) -> None:
    """A bot connecting after the end learns the result and nothing else; the answers
    rejected before play told each seat nothing it may not see."""
    for seat, token in played.match.tokens.items():
        async with RawStream(address) as bot:
            bot.hello(played.match.match_id, token)
            assert enum_from_proto(Seat, (await bot.expect("welcome")).welcome.seat) is seat
            assert (await bot.expect("match_over")).match_over.winner == played.final.winner
    for seat, reasons in played.rejections.items():
        for reason in reasons:
            played.secrecy.clean(reason, played.states[0], seat, f"answer rejected to {seat.value}")


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(min_value=10**9, max_value=2**62),
    lineup=st.sampled_from(LINEUPS),
    team_hands_visible=st.booleans(),
    standing=st.dictionaries(st.sampled_from(KINDS), st.sampled_from(list(StandingPolicy))),
)
async def test_no_payload_shows_a_viewer_what_is_hidden_from_it(
    stack: Stack,
    match_stub: match_pb2_grpc.MatchServiceStub,
    seed: int,
    lineup: str,
    team_hands_visible: bool,
    standing: dict[str, StandingPolicy],
) -> None:
    match = create(
        match_stub, seed=seed, lineup=lineup, team_hands_visible=team_hands_visible, max_rounds=2
    )
    played = await _play(stack, match_stub, match, standing)
    assert played.final.over
    assert_hidden_card_decisions_open_on_public_facts(played.states, played.true_events)
    _check_decision_requests(played)
    viewers: list[Seat | None] = [None, *match.tokens]
    for viewer in viewers:
        token = match.tokens[viewer] if viewer is not None else ""
        _check_views(match_stub, played, viewer, token)
        _check_watch(match_stub, played, viewer, token)
        _check_replay(match_stub, played, viewer, token)
        if viewer is not None:
            _check_errors_and_standing(match_stub, played, viewer, token)
    await _check_late_bots(stack.config.address("orchestrator"), played)


async def test_team_hands_visible_shows_teammates_hands_and_nothing_more(
    stack: Stack, match_stub: match_pb2_grpc.MatchServiceStub
) -> None:
    """R4 end to end: with the option, A1 sees A2's hand and draws, never team B's."""
    lineup = "A=marquise,eyrie;B=marquise,alliance"
    address = stack.config.address("orchestrator")

    async def play(match_id: str, tokens: dict[Seat, str]) -> None:
        await asyncio.gather(
            *(
                BotClient(address, match_id, t).play(RandomStrategy(i))
                for i, t in enumerate(tokens.values())
            )
        )

    for option in (True, False):
        match = create(match_stub, seed=71, lineup=lineup, team_hands_visible=option, max_rounds=1)
        await play(match.match_id, match.tokens)
        stored = await stored_batches(stack.config.nats_url, match.match_id)
        final = list(states_by_version(match.config, stored))[-1]
        for viewer, mate in ((Seat.A1, Seat.A2), (Seat.B2, Seat.B1)):
            data = json.loads(
                match_stub.GetView(
                    match_pb2.GetViewRequest(
                        match_id=match.match_id, seat_token=match.tokens[viewer]
                    )
                ).view.json
            )
            expected = {viewer.value, mate.value} if option else {viewer.value}
            assert set(data["hands"]) == expected
            if option:
                assert data["hands"][mate.value] == sorted(final.seats[mate].hand)
            rivals = [s for s in final.order if s.team is not viewer.team]
            assert not strings(data) & {c for s in rivals for c in final.seats[s].hand} & CARDS
            draws = [
                event_from_proto(r.envelope.event)
                for r in watch(match_stub, match.match_id, match.tokens[viewer])
            ]
            drawn = [e for e in draws if e.kind.value == "cards_drawn" and e.cards]
            for event in drawn:
                visible = event.seat == viewer.value or (option and event.seat == mate.value)
                assert (set(event.cards) != {"hidden"}) == visible, (option, event)
            assert any(e.seat == mate.value for e in drawn)
        spectator = json.loads(
            match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view.json
        )
        assert spectator["hands"] == {} and spectator["private"] == {}
