"""No input crashes a service or changes a match: random requests against MatchService."""

from __future__ import annotations

import grpc
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from frontier.engine import Seat
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2

from .client import Match

pytestmark = pytest.mark.integration

ALLOWED = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
}

text = st.text(max_size=40)
commands = st.builds(
    types_pb2.Command,
    kind=st.integers(0, 200),
    seat=st.integers(0, 9),
    clearing=st.one_of(text, st.sampled_from(["autumn.hill", "winter.mound", ""])),
    to=text,
    count=st.integers(-(2**31), 2**31 - 1),
    target=text,
    piece=text,
    cards=st.lists(text, max_size=3),
    clearings=st.lists(text, max_size=3),
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    command=commands,
    legal_id=st.one_of(st.none(), text),
    use_real_match=st.booleans(),
    token_choice=st.sampled_from(["real", "forged", "empty"]),
    expected_version=st.integers(-5, 10**12),
)
def test_random_submissions_never_crash_or_change_a_match(
    match_stub: match_pb2_grpc.MatchServiceStub,
    command: types_pb2.Command,
    legal_id: str | None,
    use_real_match: bool,
    token_choice: str,
    expected_version: int,
) -> None:
    match = _match(match_stub)
    before = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    token = {"real": match.tokens[Seat.A1], "forged": "x" * 32, "empty": ""}[token_choice]
    request = match_pb2.SubmitCommandRequest(
        match_id=match.match_id if use_real_match else "f" * 32,
        seat_token=token,
        expected_version=expected_version,
    )
    legal = {c.id: c.command for c in match.legal(Seat.A1)}
    if legal_id is None:
        # a random command that happens to be legal would rightly be accepted: skip it
        assume(command not in legal.values())
        request.command.CopyFrom(command)
    else:
        assume(legal_id not in legal)
        request.legal_id = legal_id
    try:
        match_stub.SubmitCommand(request, timeout=10)
    except grpc.RpcError as exc:
        assert exc.code() in ALLOWED, (exc.code(), exc.details())
    else:  # only a genuinely legal command may be accepted
        pytest.fail(f"a random request was accepted: {request}")
    after = match_stub.GetView(match_pb2.GetViewRequest(match_id=match.match_id)).view
    assert after == before


_MATCH: dict[str, Match] = {}


def _match(stub: match_pb2_grpc.MatchServiceStub) -> Match:
    """One match shared by all examples (it must stay unchanged by every one of them)."""
    if "m" not in _MATCH:
        _MATCH["m"] = Match.create(stub, seed=99)
    return _MATCH["m"]
