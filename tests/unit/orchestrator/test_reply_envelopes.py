"""SubmitCommand's events: the committed envelopes reused where the viewer sees the event as
it is, a redacted copy where not (secret cards never reach another seat)."""

from __future__ import annotations

from frontier.engine import initial_state, make_config
from frontier.engine.model import Event, EventKind, Seat
from frontier.orchestrator.hosted_match import HostedMatch, SubmitResult
from frontier.orchestrator.replies import reply_envelopes
from frontier.v1 import events_pb2
from frontier.wire.convert import event_from_proto, event_to_proto


def _hosted() -> HostedMatch:
    config = make_config(seed=1, lineup="A=marquise;B=marquise")
    return HostedMatch("m", config, initial_state(config), 0, {}, {})


def _result(events: list[Event], with_envelopes: bool) -> SubmitResult:
    numbered = list(enumerate(events, start=1))
    envelopes = [
        events_pb2.EventEnvelope(match_id="m", seq=s, state_version=s, event=event_to_proto(e))
        for s, e in numbered
    ]
    return SubmitResult(numbered, None, "", None, envelopes if with_envelopes else ())


def test_visible_events_reuse_the_committed_envelopes_and_secrets_are_redacted() -> None:
    hosted = _hosted()
    drawer = hosted.state.order[0]
    other = next(s for s in hosted.state.order if s.team is not drawer.team)
    drawn = Event(EventKind.CARDS_DRAWN, seat=drawer.value, cards=("fox_ambush",))
    public = Event(EventKind.DECK_SHUFFLED, count=3)
    result = _result([drawn, public], with_envelopes=True)
    own = reply_envelopes("m", hosted, result, drawer)
    assert own[0] is result.envelopes[0] and own[1] is result.envelopes[1]
    theirs = reply_envelopes("m", hosted, result, other)
    assert theirs[1] is result.envelopes[1]
    assert theirs[0] is not result.envelopes[0]
    assert event_from_proto(theirs[0].event) == drawn.redacted()
    assert (theirs[0].seq, theirs[0].state_version, theirs[0].match_id) == (1, 1, "m")


def test_without_committed_envelopes_every_event_is_converted() -> None:
    """A retry answered from history (after a restart) has no committed protobuf at hand."""
    hosted = _hosted()
    seat: Seat = hosted.state.order[0]
    public = Event(EventKind.DECK_SHUFFLED, count=3)
    out = reply_envelopes("m", hosted, _result([public], with_envelopes=False), seat)
    assert [event_from_proto(e.event) for e in out] == [public]
    assert [(e.seq, e.match_id) for e in out] == [(1, "m")]
