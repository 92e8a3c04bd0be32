"""What the browser API accepts, and how it refuses: request bodies, path parameters and
tokens, checked before any call that changes something is made.

Secrets arrive only in a request body or a header, never in a URL (a query string with a
secret-like key is refused), and the access log writes no query value at all, whatever its
key's spelling, so no log line can hold one.  A refusal is an :class:`HttpError`: a 4xx (or
the orchestrator's refusal mapped to HTTP) with a JSON body ``{"error": ..., "detail": ...}``.
"""

from __future__ import annotations

import re
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

from frontier.runtime.errors import bounded, error_info_in, hide

TOKEN_HEADER = "x-frontier-seat-token"
HOST_HEADER = "x-frontier-host-token"
# The host key the lobby pastes (kept in the browser), forwarded to the orchestrator as
# x-frontier-host-key on the host calls; never logged, never echoed.
HOST_KEY_HEADER = "x-frontier-host-key"
# Sent by the web client on every call: a request with neither Origin nor Referer changes
# something only with this header, which a page of another site cannot send without a CORS
# preflight that the gateway never grants.
CLIENT_HEADER = "x-frontier-client"
# The query keys the API reads; only these are named in a logged URL (their values never).
QUERY_KEYS = frozenset({"status", "page_token", "from"})
SEAT_NAMES = ("A1", "B1", "A2", "B2", "A3", "B3")
MATCH_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
TOKEN_WORDS = (
    "token",
    "seat_token",
    "secret",
    "invite",
    "invite_code",
    "code",
    "host",
    "host_token",
)
HTTP_OF_GRPC = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}


class HttpError(Exception):
    """A request the gateway refuses: its status, a machine-readable reason, a readable
    detail, and for the orchestrator's refusals its ErrorInfo metadata (``field``,
    ``current_version``..., errors.proto), sent only when there is some."""

    def __init__(
        self,
        status: int,
        error: str,
        detail: str,
        metadata: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail
        self.metadata = metadata or {}
        self.headers = headers or {}

    def body(self) -> dict[str, object]:
        body: dict[str, object] = {"error": self.error, "detail": self.detail}
        if self.metadata:
            body["metadata"] = self.metadata
        return body

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), self.status, headers=self.headers)


# What the page is told when the orchestrator's answer is gRPC's own, not the server's.
GRPC_OWN = {
    grpc.StatusCode.UNAVAILABLE: "the game server is unavailable; try again",
    grpc.StatusCode.DEADLINE_EXCEEDED: "the game server did not answer in time; try again",
    grpc.StatusCode.CANCELLED: "the call to the game server was cancelled; try again",
    grpc.StatusCode.UNKNOWN: "the game server's answer was not understood",
    grpc.StatusCode.INTERNAL: "the game server's answer was not understood",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "the game server refused the call as too large",
    grpc.StatusCode.UNIMPLEMENTED: "the game server does not offer this call",
}


def grpc_error(exc: grpc.aio.AioRpcError) -> HttpError:
    """The orchestrator's refusal as HTTP: the status from the code, ``error`` the
    machine-readable reason (its ErrorInfo, else the code's name), ``detail`` its message.

    A status with a reason is the orchestrator's own answer, whose message is meant for the
    client.  One without, of a code gRPC itself gives a failed call (the orchestrator
    unreachable, say), carries gRPC's text, which names internal addresses: that is logged
    (rate-limited), and the page gets a fixed sentence."""
    code = exc.code()
    reason, metadata = error_info_in(exc.trailing_metadata())
    detail = exc.details() or code.name
    if not reason and code in GRPC_OWN:
        hide(exc, "a call to the orchestrator")
        detail = GRPC_OWN[code]
    error = (reason or code.name).lower()
    return HttpError(HTTP_OF_GRPC.get(code, 502), error, detail, bounded(metadata))


class CreateMatchBody(BaseModel):
    """What the lobby's form sends; every field optional (the server's defaults)."""

    model_config = ConfigDict(extra="forbid")

    lineup: str = Field(default="", max_length=200)
    max_rounds: int = Field(default=0, ge=0, le=6)
    decision_budget_ms: int = Field(default=0, ge=0, le=86_400_000)
    reserve_ms: int = Field(default=0, ge=0, le=86_400_000)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    bots: list[str] = Field(default_factory=list, max_length=6)


class ClaimBody(BaseModel):
    """An invite link's code, posted by the page that opened the link."""

    model_config = ConfigDict(extra="forbid")

    invite_code: str = Field(min_length=1, max_length=128)
    allow_host_claim: bool = False  # the match's creator claims one of its own invites


class AssignBotBody(BaseModel):
    """The host gives an open seat to a built-in bot ("" = the gateway's default bot), or
    with ``replace_player`` a seat a person holds, until it gives the seat back."""

    model_config = ConfigDict(extra="forbid")

    bot: str = Field(default="", max_length=40)
    replace_player: bool = False


class CommandBody(BaseModel):
    """A legal command chosen on the page, by its id."""

    model_config = ConfigDict(extra="forbid")

    legal_id: str = Field(min_length=1, max_length=200)
    expected_version: int = Field(default=-1, ge=-1)


class StandingBody(BaseModel):
    """The seat's standing answers: decision kind -> policy name (``DECLINE``...)."""

    model_config = ConfigDict(extra="forbid")

    answers: dict[str, str] = Field(default_factory=dict, max_length=64)


def filled_seats(lineup: str) -> list[str]:
    """The seats a lineup fills, read from its written form (``A=x,y,z;B=...``, empty = all
    six); the server still validates the factions.  Used to refuse a bot seat the lineup
    leaves empty before anything is created."""
    if not lineup.strip():
        return list(SEAT_NAMES)
    seats: list[str] = []
    for part in lineup.split(";"):
        team, _, roles = part.partition("=")
        team = team.strip().upper()
        if team not in ("A", "B") or not roles:
            raise HttpError(400, "bad_lineup", f"lineup part {part!r} is not A=... or B=...")
        for i, faction in enumerate(roles.split(",")[:3]):
            if faction.strip():
                seats.append(f"{team}{i + 1}")
    return seats


async def body_of(request: Request, model: type[BaseModel]) -> Any:
    try:
        raw = await request.body()
        return model.model_validate_json(raw or b"{}")
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
        )
        raise HttpError(400, "bad_request", problems) from None


def match_id_of(request: Request) -> str:
    match_id = str(request.path_params["match_id"])
    if not MATCH_ID.fullmatch(match_id):
        raise HttpError(400, "bad_match_id", "a match id is 1-128 letters, digits or ._:-")
    return match_id


def seat_of(request: Request) -> str:
    seat = str(request.path_params["seat"])
    if seat not in SEAT_NAMES:
        raise HttpError(400, "bad_seat", f"unknown seat {seat[:8]!r}; seats are {SEAT_NAMES}")
    return seat


def token_of(request: Request, *, required: bool, header: str = TOKEN_HEADER) -> str:
    """The caller's seat (or host) token, from the header only."""
    token = request.headers.get(header, "")
    if required and not token:
        raise HttpError(401, "token_required", f"send the token in {header}")
    if len(token) > 512:
        raise HttpError(400, "bad_token", "a token is at most 512 characters")
    return token


def host_key_of(request: Request, fallback: str) -> str:
    """The host key of a host call: the browser's, else the gateway's own (FRONTIER_WEB_HOST_KEY,
    for a single-user gateway), else "" (the orchestrator decides whether it needs one)."""
    key = request.headers.get(HOST_KEY_HEADER, "").strip()
    if len(key) > 256:
        raise HttpError(400, "bad_host_key", "a host key is at most 256 characters")
    return key or fallback


def redacted_query(query: str) -> str:
    """A query string fit for a log: every value replaced by ``***``, and every key too
    unless it is one the API reads, spelled plainly.  A secret under any key (an unlisted
    one, or a listed one percent-encoded) so never reaches a log line."""
    parts = []
    for part in query.split("&") if query else []:
        key, sep, _ = part.partition("=")
        parts.append(f"{key}{sep}***" if key in QUERY_KEYS else "***")
    return "&".join(parts)


def refuse_tokens_in_url(request: Request) -> None:
    """A secret in a URL would be logged by every proxy on the way: never accept one."""
    if any(key.lower() in TOKEN_WORDS for key in request.query_params):
        raise HttpError(
            400,
            "token_in_url",
            f"seat tokens go in the {TOKEN_HEADER} header, never in a URL",
        )


def to_json(message: Message) -> dict[str, Any]:
    """A protobuf message as the browser reads it (proto field names, defaults included)."""
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def compact_json(message: Message) -> dict[str, Any]:
    """A protobuf message without its unset fields: for the long lists (legal commands, a
    command's events), whose readers treat a missing field as its default."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)
