"""``frontier keys``: the host keys of a public server, managed by its operator.

    frontier keys create --name NAME [--matches-hosted N] [--creates-per-minute N]
                         [--bot-seats N] [--bot-cpu-s-per-hour S] [--json]
    frontier keys list [--json]
    frontier keys revoke KEY_ID

It talks to the server's NATS directly (``--nats-url``, default FRONTIER_NATS_URL), as only
an operator can: the keys live in the ``frontier-host-keys`` bucket.  ``create`` prints the
key once (only its hash is stored: a lost key is revoked and a new one made); ``list``
shows names, quotas and state, never a secret.  A revoked key stops working within the
orchestrators' lookup cache time (FRONTIER_HOST_KEY_CACHE_S, 2 s by default).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import nats

from frontier.cli.usage import EXIT_FAILED, EXIT_OK, UsageError, error, non_negative_int
from frontier.runtime.bus import Bus, servers_of
from frontier.runtime.errors import NATS_UNREACHABLE
from frontier.runtime.settings import ServiceSettings
from frontier.store.host_keys import HostKey, HostKeyStore, InvalidHostKey, Quotas

T = TypeVar("T")
_UNREACHABLE: tuple[type[Exception], ...] = (OSError, *NATS_UNREACHABLE)


def add_keys_commands(commands: Any) -> None:
    keys = commands.add_parser("keys", help="issue, list and revoke host keys (operators)")
    keys.add_argument("--nats-url", default="", help="the server's NATS (FRONTIER_NATS_URL)")
    sub = keys.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    create = sub.add_parser("create", help="issue a key (shown once)")
    create.add_argument("--name", required=True, help="who the key is for (shown in lists)")
    create.add_argument(
        "--matches-hosted", type=non_negative_int, help="unfinished matches at most"
    )
    create.add_argument(
        "--creates-per-minute", type=non_negative_int, help="matches created a minute"
    )
    create.add_argument(
        "--bot-seats", type=non_negative_int, help="bot seats over its unfinished matches"
    )
    create.add_argument("--bot-cpu-s-per-hour", type=_seconds, help="bot CPU seconds an hour")
    create.add_argument("--json", action="store_true", help="print one JSON object")
    create.set_defaults(run=run_keys)
    listing = sub.add_parser("list", help="the keys, without secrets")
    listing.add_argument("--json", action="store_true", help="print a JSON list")
    listing.set_defaults(run=run_keys)
    revoke = sub.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id", help="the id of the key (frontier keys list)")
    revoke.set_defaults(run=run_keys)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {text}")
    return value


def run_keys(args: argparse.Namespace) -> int:
    settings = ServiceSettings()
    url = args.nats_url or settings.nats_url
    try:
        return asyncio.run(_with_store(url, settings, lambda store: _act(store, args)))
    except InvalidHostKey as exc:
        raise UsageError(str(exc)) from None
    except _UNREACHABLE as exc:
        error(f"cannot reach NATS at {url}: {type(exc).__name__}")
        return EXIT_FAILED


async def _with_store(
    url: str, settings: ServiceSettings, act: Callable[[HostKeyStore], Awaitable[T]]
) -> T:
    """Run ``act`` on the key store of the NATS at ``url``: one connection, tried once (an
    operator's command reports an unreachable server at once instead of waiting for it)."""

    async def quiet(exc: Exception) -> None:  # the failure is reported once, by run_keys
        return None

    nc = await nats.connect(
        servers_of(url),
        name="frontier-keys",
        allow_reconnect=False,
        max_reconnect_attempts=1,  # each server tried twice (0 would mean for ever)
        reconnect_time_wait=0.2,
        connect_timeout=5,
        error_cb=quiet,
    )
    try:
        js = nc.jetstream(timeout=settings.call_timeout_s)
        bus = Bus(nc, js, settings.stream, settings.nats_replicas, None, settings.call_timeout_s)
        return await act(HostKeyStore(await bus.host_keys_bucket()))
    finally:
        await nc.close()


async def _act(store: HostKeyStore, args: argparse.Namespace) -> int:
    if args.keys_command == "create":
        quotas = Quotas(
            args.matches_hosted, args.creates_per_minute, args.bot_seats, args.bot_cpu_s_per_hour
        )
        record, key = await store.create(args.name, quotas)
        if args.json:
            print(json.dumps({**record.listed(), "key": key}, sort_keys=True))
        else:
            print(f"key id {record.key_id} ({record.name}); the key, shown only now:")
            print(key)
        return EXIT_OK
    if args.keys_command == "list":
        keys = await store.all()
        if args.json:
            print(json.dumps([k.listed() for k in keys], sort_keys=True))
        else:
            for k in keys:
                print(_line(k))
        return EXIT_OK
    revoked = await store.revoke(args.key_id)
    if revoked is None:
        error(f"no host key {args.key_id!r}")
        return EXIT_FAILED
    print(f"revoked {revoked.key_id} ({revoked.name})")
    return EXIT_OK


def _line(key: HostKey) -> str:
    quotas = ", ".join(
        f"{name}={value:g}"
        for name, value in (
            ("matches_hosted", key.quotas.matches_hosted),
            ("creates_per_minute", key.quotas.creates_per_minute),
            ("bot_seats", key.quotas.bot_seats),
            ("bot_cpu_s_per_hour", key.quotas.bot_cpu_s_per_hour),
        )
        if value is not None
    )
    state = "revoked" if key.revoked else "active"
    return f"{key.key_id}  {state:7}  {key.name}  {quotas or 'default quotas'}"
