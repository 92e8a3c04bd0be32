"""The browser API: JSON and server-sent events, each route one MatchService call.

Who plays a seat is the orchestrator's business, not the gateway's: a match the lobby creates
declares every filled seat in ``CreateMatchRequest.seat_setup``, as a built-in bot of the
orchestrator (so bot seats survive a gateway restart) or as an open seat with a one-time
invite code.  The gateway keeps nothing about a match in memory; the lobby's seat statuses
(open / bot / taken) come from ``ListMatches``.

Secrecy rules this module keeps:

* Secrets (seat tokens, invite codes, the host token) only ever arrive in a request body or
  in a header (``X-Frontier-Seat-Token``, ``X-Frontier-Host-Token``), never in a URL: a
  query string with a secret-like key is refused with 400, so no access log can hold one.
  An invite link carries its code in the URL fragment, which browsers never send; the page
  posts it to ``/claim`` and keeps the seat token it gets back in ``sessionStorage``.
* A call with a token forwards exactly that token to the orchestrator, which computes the
  reader's view; the gateway never holds or forwards another seat's view.  The event stream
  is the spectator's (public) one.
* A host key (``X-Frontier-Host-Key``, pasted in the lobby) is forwarded as
  ``x-frontier-host-key`` on CreateMatch, AssignSeatBot and AbandonMatch only, and is never
  logged; without one the gateway's own (FRONTIER_WEB_HOST_KEY) goes, if it has one.
* Every bad input gets a 4xx with a JSON body ``{"error": ..., "detail": ...}`` before any
  call that changes something is made (the checks are :mod:`frontier.web.inputs`); an
  orchestrator's refusal adds its ErrorInfo ``metadata`` (the field at fault...) when it
  has some.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from google.protobuf.message import Message
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from frontier.runtime.settings import host_key_metadata
from frontier.v1 import match_pb2, match_pb2_grpc, types_pb2
from frontier.web.feeds import Feeds, closer
from frontier.web.inputs import (
    HOST_HEADER,
    SEAT_NAMES,
    AssignBotBody,
    ClaimBody,
    CommandBody,
    CreateMatchBody,
    HttpError,
    StandingBody,
    body_of,
    compact_json,
    filled_seats,
    grpc_error,
    host_key_of,
    match_id_of,
    seat_of,
    to_json,
    token_of,
)
from frontier.web.seat_routes import NO_STORE, SeatRoutes, host_link, seat_name, seats_of
from frontier.web.watchers import Watchers, WatcherStream


def seat_setup(filled: list[str], bots: list[str], bot: str) -> list[match_pb2.SeatSetup]:
    """Every filled seat: a built-in ``bot`` where the lobby said so, else open."""
    return [
        match_pb2.SeatSetup(
            seat=types_pb2.Seat.Value(f"SEAT_{seat}"),
            mode=match_pb2.SEAT_MODE_BOT if seat in bots else match_pb2.SEAT_MODE_OPEN,
            bot=bot if seat in bots else "",
        )
        for seat in filled
    ]


Handler = Callable[[Request], Awaitable[Response]]


class Api(SeatRoutes):
    """The routes' handlers over one MatchService stub (seat links: :mod:`.seat_routes`)."""

    def __init__(
        self,
        stub: match_pb2_grpc.MatchServiceStub,
        bot: str,
        timeout_s: float,
        watchers: Watchers,
        host_key: str = "",
    ):
        self.stub = stub
        self.host_key = host_key  # FRONTIER_WEB_HOST_KEY: a single-user gateway's own
        self.bot = bot  # the orchestrator's built-in bot for the lobby's bot seats
        self.timeout_s = timeout_s
        self.watchers = watchers  # the live event streams, shared by the app's requests
        self.feeds = Feeds(stub)  # one orchestrator stream per watched match, shared
        self.game_data: dict[str, Any] | None = None

    async def call(self, method: Any, request: Message, host_key: str = "") -> Any:
        """One orchestrator call; ``host_key`` goes along (a host call's) when set."""
        extra = {"metadata": host_key_metadata(host_key)} if host_key else {}
        try:
            return await method(request, timeout=self.timeout_s, **extra)
        except grpc.aio.AioRpcError as exc:
            raise grpc_error(exc) from None

    async def get_game_data(self, request: Request) -> Response:
        if self.game_data is None:
            reply = await self.call(self.stub.GetGameData, match_pb2.GetGameDataRequest())
            self.game_data = to_json(reply.data)
        return JSONResponse(self.game_data)

    async def list_matches(self, request: Request) -> Response:
        """One page of matches: ``?status=in_progress|finished|abandoned&page_token=...``."""
        status = request.query_params.get("status", "")
        name = f"MATCH_STATUS_{status.upper()}"
        known = set(match_pb2.MatchStatus.keys())
        if status and (name not in known or not status.isidentifier()):
            raise HttpError(400, "bad_status", "status is in_progress, finished or abandoned")
        page_token = request.query_params.get("page_token", "")
        if len(page_token) > 512:
            raise HttpError(400, "bad_page_token", "a page token is at most 512 characters")
        listing = match_pb2.ListMatchesRequest(
            page_size=100,
            page_token=page_token,
            status=match_pb2.MatchStatus.Value(name if status else "MATCH_STATUS_UNSPECIFIED"),
        )
        reply = await self.call(self.stub.ListMatches, listing)
        matches = []
        for summary in reply.matches:
            entry = to_json(summary)
            entry["seats"] = seats_of(summary.seats)
            entry["bot_seats"] = sorted(s["seat"] for s in entry["seats"] if s["status"] == "bot")
            matches.append(entry)
        return JSONResponse({"matches": matches, "next_page_token": reply.next_page_token})

    async def create_match(self, request: Request) -> Response:
        body: CreateMatchBody = await body_of(request, CreateMatchBody)
        unknown = [s for s in body.bots if s not in SEAT_NAMES]
        if unknown:
            raise HttpError(400, "bad_seat", f"unknown seats {unknown}; seats are {SEAT_NAMES}")
        if len(set(body.bots)) != len(body.bots):
            raise HttpError(400, "bad_seat", "a bot seat is listed twice")
        filled = filled_seats(body.lineup)
        empty = [s for s in body.bots if s not in filled]
        if empty:
            raise HttpError(400, "bad_seat", f"the lineup leaves {empty} empty: no bot there")
        config = match_pb2.MatchConfig(
            seed=body.seed,
            lineup=body.lineup,
            max_rounds=body.max_rounds,
            decision_budget_ms=body.decision_budget_ms,
            reserve_ms=body.reserve_ms,
        )
        create = match_pb2.CreateMatchRequest(
            config=config, seat_setup=seat_setup(filled, body.bots, self.bot)
        )
        reply = await self.call(self.stub.CreateMatch, create, host_key_of(request, self.host_key))
        invites = [{"seat": seat_name(i.seat), "invite_code": i.invite_code} for i in reply.invites]
        out = {
            "match_id": reply.match_id,
            "invites": invites,
            "bot_seats": sorted(body.bots),
            "host_token": reply.host_token,
            "host_link": host_link(reply.match_id, reply.host_token),
        }
        return JSONResponse(out, 201, headers=NO_STORE)

    async def claim_seat(self, request: Request) -> Response:
        """An invite link opened: its code (in the body) becomes the seat's token.  The tab
        that created the match sends its host token too, and claims its own invite only
        with ``allow_host_claim``."""
        match_id = match_id_of(request)
        host = token_of(request, required=False, header=HOST_HEADER)
        body: ClaimBody = await body_of(request, ClaimBody)
        claim = match_pb2.ClaimSeatRequest(
            match_id=match_id,
            invite_code=body.invite_code,
            host_token=host,
            allow_host_claim=body.allow_host_claim,
        )
        reply = await self.call(self.stub.ClaimSeat, claim)
        out = {"seat": seat_name(reply.seat.seat), "token": reply.seat.token}
        return JSONResponse(out, headers=NO_STORE)

    async def assign_bot(self, request: Request) -> Response:
        """The host gives a still open seat to a built-in bot, or (``replace_player``) lets
        the bot play a person's seat until the host gives it back."""
        match_id, seat = match_id_of(request), seat_of(request)
        host = token_of(request, required=True, header=HOST_HEADER)
        body: AssignBotBody = await body_of(request, AssignBotBody)
        assign = match_pb2.AssignSeatBotRequest(
            match_id=match_id,
            host_token=host,
            seat=types_pb2.Seat.Value(f"SEAT_{seat}"),
            bot=body.bot or self.bot,
            replace_player=body.replace_player,
        )
        reply = await self.call(
            self.stub.AssignSeatBot, assign, host_key_of(request, self.host_key)
        )
        return JSONResponse({"seats": seats_of(reply.seats)})

    async def abandon(self, request: Request) -> Response:
        """The host ends an unfinished match."""
        match_id = match_id_of(request)
        host = token_of(request, required=True, header=HOST_HEADER)
        abandon = match_pb2.AbandonMatchRequest(match_id=match_id, host_token=host)
        reply = await self.call(
            self.stub.AbandonMatch, abandon, host_key_of(request, self.host_key)
        )
        return JSONResponse({"version": reply.version})

    async def match_info(self, request: Request) -> Response:
        match_id = match_id_of(request)
        token = token_of(request, required=False)
        reply = await self.call(
            self.stub.GetMatchInfo,
            match_pb2.GetMatchInfoRequest(match_id=match_id, seat_token=token),
        )
        reply.initial_view.ClearField("json")
        out = {
            "info": to_json(reply.info),
            "initial_view": to_json(reply.initial_view),
            "seats": seats_of(reply.seats),  # who plays each seat now
        }
        return JSONResponse(out)

    async def view(self, request: Request) -> Response:
        match_id = match_id_of(request)
        token = token_of(request, required=False)
        reply = await self.call(
            self.stub.GetView, match_pb2.GetViewRequest(match_id=match_id, seat_token=token)
        )
        reply.view.ClearField("json")  # the engine's debugging form: the typed view says it all
        return JSONResponse({"view": to_json(reply.view)})

    async def _seat_read(self, request: Request, method: Any, message: Any) -> Response:
        """A read that only the token's own seat may make, its reply as JSON."""
        match_id = match_id_of(request)
        token = token_of(request, required=True)
        reply = await self.call(method, message(match_id=match_id, seat_token=token))
        return JSONResponse(to_json(reply))

    async def legal(self, request: Request) -> Response:
        """The seat's legal commands, each without its unset fields (a march step's command
        is a handful of fields among twenty: the compact form is a fifth of the bytes)."""
        match_id = match_id_of(request)
        token = token_of(request, required=True)
        reply = await self.call(
            self.stub.ListLegalCommands,
            match_pb2.ListLegalCommandsRequest(match_id=match_id, seat_token=token),
        )
        return JSONResponse(
            {"commands": [compact_json(c) for c in reply.commands], "version": str(reply.version)}
        )

    async def submit(self, request: Request) -> Response:
        match_id = match_id_of(request)
        token = token_of(request, required=True)
        body: CommandBody = await body_of(request, CommandBody)
        reply = await self.call(
            self.stub.SubmitCommand,
            match_pb2.SubmitCommandRequest(
                match_id=match_id,
                seat_token=token,
                # a retry at the same version is the same command; unchecked ones never are
                command_id=f"web:{body.expected_version}:{body.legal_id}"
                if body.expected_version >= 0
                else f"web:{uuid.uuid4().hex}",
                expected_version=body.expected_version,
                legal_id=body.legal_id,
            ),
        )
        # The caller's view after its command comes along, so a command costs the page one
        # request: with `next_legal` it has all it needs to draw its next choice.  The events
        # are the caller's own (its drawn cards shown), without their unset fields.
        seen = await self.call(
            self.stub.GetView, match_pb2.GetViewRequest(match_id=match_id, seat_token=token)
        )
        seen.view.ClearField("json")
        out = {
            "version": str(reply.version),
            "to_act": types_pb2.Seat.Name(reply.to_act),
            "winner": reply.winner,
            "events": [compact_json(e) for e in reply.events],
            "next_legal": [compact_json(c) for c in reply.next_legal],
            "view": to_json(seen.view),
        }
        return JSONResponse(out)

    async def get_standing(self, request: Request) -> Response:
        return await self._seat_read(
            request, self.stub.GetStandingAnswers, match_pb2.GetStandingAnswersRequest
        )

    async def set_standing(self, request: Request) -> Response:
        match_id = match_id_of(request)
        token = token_of(request, required=True)
        body: StandingBody = await body_of(request, StandingBody)
        answers = []
        for kind, policy in sorted(body.answers.items()):
            name = f"STANDING_POLICY_{policy.upper()}"
            known = set(match_pb2.StandingPolicy.keys()) - {"STANDING_POLICY_UNSPECIFIED"}
            if name not in known:
                raise HttpError(400, "bad_policy", f"unknown standing policy {policy!r}")
            answers.append(
                match_pb2.StandingAnswer(
                    decision_kind=kind, policy=match_pb2.StandingPolicy.Value(name)
                )
            )
        reply = await self.call(
            self.stub.SetStandingAnswers,
            match_pb2.SetStandingAnswersRequest(
                match_id=match_id, seat_token=token, answers=answers
            ),
        )
        return JSONResponse(to_json(reply))

    async def turn(self, request: Request) -> Response:
        """The seat's open decision with its deadline (the page's clock): the first notice of
        ``WatchTurns``, which comes at once while the match waits for the seat; a seat not
        waiting gets 504 after the call timeout rather than a request held open."""
        match_id = match_id_of(request)
        token = token_of(request, required=True)
        call: Any = self.stub.WatchTurns(  # an aio stream call (the stubs type the sync one)
            match_pb2.WatchTurnsRequest(match_id=match_id, seat_token=token),
            timeout=self.timeout_s,
        )
        try:
            notice = await call.read()
        except grpc.aio.AioRpcError as exc:
            raise grpc_error(exc) from None
        finally:
            call.cancel()
        if notice is grpc.aio.EOF:
            raise HttpError(502, "no_notice", "the orchestrator ended the turn stream")
        return JSONResponse(to_json(notice), headers=NO_STORE)

    async def events(self, request: Request) -> Response:
        """The spectator's event stream as server-sent events, from ``?from=N`` on, read from
        the match's shared feed (:mod:`.feeds`); a watcher takes one of the match's and of its
        address's slots until it leaves."""
        match_id = match_id_of(request)
        raw = request.query_params.get("from", "0")
        if not raw.isdigit():
            raise HttpError(400, "bad_version", "from is a version: 0 or a positive integer")
        start = int(raw)
        resumed = request.headers.get("last-event-id", "")
        if resumed.isdigit():  # the browser reconnected: go on after the last event it has
            start = max(start, int(resumed))
        address = request.client.host if request.client else "unknown"
        release = self.watchers.admit(match_id, address)
        try:
            feed = await self.feeds.join(match_id, start)  # a bad match id: a clean 404 here
        except BaseException:
            release()
            raise
        return WatcherStream(
            self.feeds.stream(feed, start),
            [closer(self.feeds, feed), release],
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )
