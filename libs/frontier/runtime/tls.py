"""TLS for every gRPC server and client, from the environment, in one place.

Seat tokens travel in gRPC requests, so a deployment that crosses a network it does not
own turns TLS on: every server then listens with TLS only, and every client -- the
orchestrator's domain and peer clients, the CLI, the bot SDK, the load client, the health
check -- dials with it.  The settings (:class:`frontier.runtime.settings.TlsSettings`):

* ``FRONTIER_TLS_CERT`` + ``FRONTIER_TLS_KEY``: this process's certificate chain and key
  (PEM).  A server with them serves TLS only; a client presents them when the server asks
  (mutual TLS).
* ``FRONTIER_TLS_CA``: the CA bundle that peers' certificates are checked against.  A client
  with a CA or a certificate dials TLS (without a CA it trusts the system's roots).
* ``FRONTIER_TLS_CLIENT_AUTH=true``: servers require a client certificate signed by the CA
  (mutual TLS between the services).
* ``FRONTIER_TLS_SERVER_NAME``: the name a client expects in the server's certificate, when
  it is not the host it dials (an IP address, a load balancer).

Why every channel is made here: one forgotten ``insecure_channel`` would be a plaintext hop
carrying seat tokens, and a second copy of this logic would drift.

Certificate rotation: a server reads its certificate, key and CA again on a new connection
after the files changed (gRPC's dynamic server credentials), so replacing the files rotates
a server without a restart; connections already open keep their session.  Clients read the
files when they create a channel, that is at start-up: restart them (one at a time) to
present a new client certificate.
"""

from __future__ import annotations

import logging
import os
import ssl
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc

if TYPE_CHECKING:  # imported when needed: see _from_env
    from .settings import TlsSettings

log = logging.getLogger("frontier.tls")

ChannelOptions = Sequence[tuple[str, Any]]

# How soon a channel connects again once its server is back.  gRPC's defaults wait 1 s, then
# 1.6 times longer after each failed attempt (up to 2 minutes): a domain service restarted
# in two seconds stayed unreachable for up to 4.4 s more, every call UNAVAILABLE meanwhile.
# Attempts 0.1 s apart at first and at most 0.5 s apart find it back within about half a
# second (plus gRPC's 20% jitter); an attempt on a closed port is one refused connection.
# A name that resolves to the servers' addresses (a Kubernetes headless service) is resolved
# again after a failure at most once a second rather than every 30 s, so a replica that came
# back under a new address is found as soon.  A channel's own options override these.
RECONNECT_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
    ("grpc.dns_min_time_between_resolutions_ms", 1000),
)


def _read(path: Path | None) -> bytes | None:
    return None if path is None else path.read_bytes()


def _from_env() -> TlsSettings | None:
    """The environment's TLS settings, or None (plaintext) when no ``FRONTIER_TLS_*``
    variable is set: short-lived clients such as the containers' health checks then skip
    loading the settings machinery (pydantic), which doubled their start-up time."""
    if not any(key.startswith("FRONTIER_TLS_") and value for key, value in os.environ.items()):
        return None
    from .settings import TlsSettings

    return TlsSettings()


def channel_credentials(tls: TlsSettings | None) -> grpc.ChannelCredentials | None:
    """The client side: None for plaintext."""
    if tls is None or not tls.client_tls:
        return None
    return grpc.ssl_channel_credentials(
        root_certificates=_read(tls.tls_ca),
        private_key=_read(tls.tls_key),
        certificate_chain=_read(tls.tls_cert),
    )


def _options(tls: TlsSettings | None, options: ChannelOptions) -> list[tuple[str, Any]]:
    """:data:`RECONNECT_OPTIONS`, then ``options`` (which win on a shared key)."""
    given = {key for key, _ in options}
    out = [option for option in RECONNECT_OPTIONS if option[0] not in given]
    out.extend(options)
    if tls is not None and tls.client_tls and tls.tls_server_name:
        out.append(("grpc.ssl_target_name_override", tls.tls_server_name))
    return out


def aio_channel(
    target: str,
    tls: TlsSettings | None = None,
    options: ChannelOptions = (),
    interceptors: Sequence[Any] | None = None,
) -> grpc.aio.Channel:
    """An asyncio channel to ``target``, with TLS when the settings (by default those of
    the environment) say so, that connects again soon after its server is back
    (:data:`RECONNECT_OPTIONS`)."""
    tls = _from_env() if tls is None else tls
    creds = channel_credentials(tls)
    opts = _options(tls, options)
    if creds is None:
        return grpc.aio.insecure_channel(target, options=opts, interceptors=interceptors)
    return grpc.aio.secure_channel(target, creds, options=opts, interceptors=interceptors)


def sync_channel(
    target: str, tls: TlsSettings | None = None, options: ChannelOptions = ()
) -> grpc.Channel:
    """A blocking channel, for the CLI, the health check and the tests' helpers."""
    tls = _from_env() if tls is None else tls
    creds = channel_credentials(tls)
    opts = _options(tls, options)
    if creds is None:
        return grpc.insecure_channel(target, options=opts)
    return grpc.secure_channel(target, creds, options=opts)


class _ServerFiles:
    """The server's certificate, key and CA, read again when a file changes."""

    def __init__(self, tls: TlsSettings) -> None:
        self.tls = tls
        self._lock = threading.Lock()  # gRPC calls the fetcher from its own threads
        self._stamp = self._stat()

    def _paths(self) -> list[Path]:
        paths = [self.tls.tls_cert, self.tls.tls_key]
        if self.tls.tls_client_auth:
            paths.append(self.tls.tls_ca)
        return [p for p in paths if p is not None]

    def _stat(self) -> tuple[tuple[int, int], ...]:
        stamps = []
        for path in self._paths():
            st = path.stat()
            stamps.append((st.st_mtime_ns, st.st_size))
        return tuple(stamps)

    def config(self) -> Any:
        cert, key = _read(self.tls.tls_cert), _read(self.tls.tls_key)
        assert cert is not None and key is not None
        ca = _read(self.tls.tls_ca) if self.tls.tls_client_auth else None
        return grpc.ssl_server_certificate_configuration([(key, cert)], root_certificates=ca)

    def fetch(self) -> Any:
        """Called by gRPC before each new connection's handshake: a new configuration
        when the files changed, else None (keep the current one)."""
        with self._lock:
            try:
                stamp = self._stat()
                if stamp == self._stamp:
                    return None
                # the key must belong to the certificate: a rotation that has replaced one
                # file and not yet the other keeps the old pair until the next connection
                ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(
                    str(self.tls.tls_cert), str(self.tls.tls_key)
                )
                config = self.config()
            except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
                log.warning("new TLS files not usable yet (%s); keeping the old ones", exc)
                return None
            self._stamp = stamp
            log.info("TLS certificate files changed: new connections use them")
            return config


def server_credentials(tls: TlsSettings) -> grpc.ServerCredentials | None:
    """The server side: None for plaintext."""
    if not tls.server_tls:
        return None
    files = _ServerFiles(tls)
    return grpc.dynamic_ssl_server_credentials(
        files.config(), files.fetch, require_client_authentication=tls.tls_client_auth
    )


def add_port(server: grpc.aio.Server, address: str, tls: TlsSettings) -> int:
    """Listen on ``address`` with TLS or without, as the settings say; the bound port."""
    creds = server_credentials(tls)
    if creds is None:
        return server.add_insecure_port(address)
    return server.add_secure_port(address, creds)
