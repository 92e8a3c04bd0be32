"""``frontier stack up --sync D`` gives nats-server the sync interval asked for.

The running server's monitoring endpoint (``/varz``) reports its JetStream configuration,
so the test reads what the server does, not what the config file says.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from frontier.ops.stack import Stack, StackConfig, free_port

pytestmark = pytest.mark.integration

NS_PER_S = 1_000_000_000


@pytest.mark.parametrize(
    ("sync", "interval_s", "always"),
    [("2m", 120, False), ("45s", 45, False), ("always", 120, True)],
)
def test_the_server_syncs_at_the_interval_asked_for(
    tmp_path: Path, sync: str, interval_s: int, always: bool
) -> None:
    config = StackConfig.ephemeral(tmp_path, sync=sync, monitor_port=free_port())
    stack = Stack(config)
    stack.logs.mkdir(parents=True, exist_ok=True)
    stack.start_nats()
    try:
        url = f"http://{config.host}:{config.monitor_port}/varz"
        with urllib.request.urlopen(url, timeout=10) as reply:
            jetstream = json.load(reply)["jetstream"]["config"]
    finally:
        stack.stop()
    assert jetstream["sync_interval"] == interval_s * NS_PER_S
    assert jetstream.get("sync_always", False) is always
