"""What the gateway refuses before any route runs, for a server on the public internet.

Each rule is ASGI middleware, so it holds for every route, page and static file alike:

* ``SecurityHeaders``: every response carries a Content-Security-Policy the page works under
  (its script and style come from the gateway itself, nothing inline), forbids framing, MIME
  sniffing and, since invite links and match ids are in URLs, the Referer header.
* ``Gatekeeper``: the Host header must name this gateway (a DNS-rebinding page reaches a
  loopback server under its own name, which is refused); a state-changing request must come
  from the gateway's own page or a configured origin (a cross-site form or script cannot
  create matches or spend an invite); a request body is counted while it is read and
  refused with 413 past the limit, so a huge body never sits in memory.

A refusal is the API's JSON ``{"error", "detail"}`` and nothing behind it has run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from frontier.web.inputs import CLIENT_HEADER, HttpError
from frontier.web.settings import WebSettings, split_list

LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "*"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_PORTS = {"http": 80, "https": 443}
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


def _default(name: str) -> Any:
    return WebSettings.model_fields[name].default


@dataclass(frozen=True)
class Protection:
    """The limits the gateway enforces; the defaults are the settings' defaults, a gateway
    on loopback."""

    max_body_bytes: int = _default("web_max_body_bytes")
    bind_host: str = _default("host")
    allowed_hosts: tuple[str, ...] = ()  # besides localhost names and the bind address
    allowed_origins: tuple[str, ...] = ()  # besides the gateway's own
    sse_per_match: int = _default("web_sse_per_match")
    sse_per_address: int = _default("web_sse_per_address")

    @classmethod
    def from_settings(cls, settings: WebSettings) -> Protection:
        return cls(
            max_body_bytes=settings.web_max_body_bytes,
            bind_host=settings.host.lower(),
            allowed_hosts=split_list(settings.web_allowed_hosts),
            allowed_origins=split_list(settings.web_allowed_origins),
            sse_per_match=settings.web_sse_per_match,
            sse_per_address=settings.web_sse_per_address,
        )

    def host_allowed(self, name: str, own_address: str | None) -> bool:
        """Whether a Host name (port left off) is this gateway's: a localhost name, the bind
        address, a configured name (``.example.org`` also covers its subdomains), or the
        very address the connection arrived at (a client that dials the gateway by IP, such
        as an orchestrator's probe: a page of another site cannot send that)."""
        if "*" in self.allowed_hosts or name in LOCAL_NAMES or name == own_address:
            return True
        if name == self.bind_host and name not in WILDCARD_BINDS:
            return True
        return any(
            name == entry.lstrip(".") or (entry.startswith(".") and name.endswith(entry))
            for entry in self.allowed_hosts
        )


def split_host(value: str) -> tuple[str, int | None]:
    """A Host header (or an origin's netloc) as a lower-cased name and its port, if any."""
    value = value.strip().lower()
    if value.startswith("["):  # an IPv6 literal
        name, _, rest = value[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        name, _, port = value.partition(":") if value.count(":") == 1 else (value, "", "")
    return name.rstrip("."), int(port) if port.isdigit() else None


def same_origin(origin: str, host: str) -> bool:
    """Whether an origin (``scheme://host[:port]``) names the host the request was sent to.
    The scheme is not compared: behind a TLS-terminating proxy the gateway sees plain HTTP
    while the page's origin is https."""
    parts = urlsplit(origin)
    if parts.scheme not in DEFAULT_PORTS or not parts.netloc:
        return False
    origin_name, origin_port = split_host(parts.netloc)
    host_name, host_port = split_host(host)
    default = DEFAULT_PORTS[parts.scheme]
    return origin_name == host_name and (origin_port or default) == (host_port or default)


class SecurityHeaders:
    """The security headers on every HTTP response, refusals included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, sending)


class _BodyTooLarge(Exception):
    """Raised from ``receive`` once the body read so far passes the limit."""


class Gatekeeper:
    """The Host check, the same-origin check of state-changing requests and the body limit."""

    def __init__(self, app: ASGIApp, protection: Protection) -> None:
        self.app = app
        self.protection = protection

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self.host_refusal(scope, headers) or self.origin_refusal(scope, headers)
        if refusal is None and self.declared_too_large(headers):
            refusal = self.too_large()
        if refusal is not None:
            await self.refuse(refusal, scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, self.counting(receive), sending)
        except _BodyTooLarge:
            if started:  # a route that answers before reading its body: nothing left to say
                return
            await self.refuse(self.too_large(), scope, receive, send)

    def host_refusal(self, scope: Scope, headers: Headers) -> HttpError | None:
        name, _ = split_host(headers.get("host", ""))
        server = scope.get("server")
        own = str(server[0]).lower() if server else None
        if name and self.protection.host_allowed(name, own):
            return None
        shown = name[:64] or "none"
        return HttpError(400, "bad_host", f"this server does not answer for host {shown!r}")

    def origin_refusal(self, scope: Scope, headers: Headers) -> HttpError | None:
        """A state-changing request is the gateway's own page's (its Origin, else its Referer,
        names this host or an allowed origin) or, with neither header (a program, not a
        browser), a JSON request with the client header, which no page of another site can
        send without a CORS preflight the gateway never grants."""
        if scope["method"] in SAFE_METHODS:
            return None
        source = headers.get("origin") or _origin_of(headers.get("referer", ""))
        if source:
            source = source.lower()
            if same_origin(source, headers.get("host", "")):
                return None
            if source in self.protection.allowed_origins:
                return None
            return HttpError(
                403, "cross_origin", f"requests from {source[:100]!r} may not change anything"
            )
        json_body = headers.get("content-type", "").split(";")[0].strip() == "application/json"
        if json_body and headers.get(CLIENT_HEADER):
            return None
        return HttpError(
            403,
            "csrf_header_required",
            f"send Content-Type: application/json and an {CLIENT_HEADER} header",
        )

    def declared_too_large(self, headers: Headers) -> bool:
        length = headers.get("content-length", "")
        return length.isdigit() and int(length) > self.protection.max_body_bytes

    def too_large(self) -> HttpError:
        limit = self.protection.max_body_bytes
        return HttpError(413, "body_too_large", f"a request body is at most {limit} bytes")

    def counting(self, receive: Receive) -> Receive:
        """``receive`` that counts body bytes and stops at the limit, before the next chunk is
        kept anywhere."""
        seen = 0
        limit = self.protection.max_body_bytes

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _BodyTooLarge
            return message

        return counted

    @staticmethod
    async def refuse(refusal: HttpError, scope: Scope, receive: Receive, send: Send) -> None:
        """The refusal as JSON; after a 413 the connection closes rather than read the rest."""
        response = refusal.response()
        if refusal.status == 413:
            response.headers["connection"] = "close"
        await response(scope, receive, send)


def _origin_of(referer: str) -> str:
    """The origin of a Referer URL ("" when it has none)."""
    parts = urlsplit(referer.strip())
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
