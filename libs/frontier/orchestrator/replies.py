"""What a reader is sent of a match: its view, and a submitted command's events, each as
that reader may see it (a reader without a seat sees the match as it stood the match's
spectator delay ago: spectator_delay.py)."""

from __future__ import annotations

from frontier.engine import Seat
from frontier.engine.view import event_for, view
from frontier.v1 import events_pb2, types_pb2
from frontier.wire.convert import event_to_proto
from frontier.wire.view import view_to_proto

from .hosted_match import HostedMatch, SubmitResult


def view_message(hosted: HostedMatch, viewer: Seat | None) -> types_pb2.View:
    """``viewer``'s view of the match (None: a reader without a seat)."""
    state = hosted.state if viewer is not None else hosted.spectator_state()
    message = view_to_proto(view(state, viewer))
    message.seed_fixed = hosted.seed_fixed
    return message


def reply_envelopes(
    match_id: str, hosted: HostedMatch, result: SubmitResult, viewer: Seat | None
) -> list[events_pb2.EventEnvelope]:
    """The submitted command's events as ``viewer`` may see them.  Each one the viewer sees
    as it is reuses the envelope the batch published (when this orchestrator committed it):
    converting events to protobuf was a noticeable part of every submit."""
    committed = result.envelopes
    out: list[events_pb2.EventEnvelope] = []
    for i, (seq, event) in enumerate(result.events):
        shown = event_for(hosted.state, event, viewer)
        if shown is event and committed:
            out.append(committed[i])
        else:
            out.append(
                events_pb2.EventEnvelope(
                    match_id=match_id, seq=seq, state_version=seq, event=event_to_proto(shown)
                )
            )
    return out
