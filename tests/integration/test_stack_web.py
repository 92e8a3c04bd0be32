"""``frontier stack up`` starts the web gateway with the rest and prints its URL, which
serves the page and a healthy ``/healthz``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from frontier.ops.stack import free_port

pytestmark = pytest.mark.integration


def test_stack_up_prints_the_browser_url_and_serves_it(tmp_path: Path) -> None:
    web_port, nats_port, base = free_port(), free_port(), free_port()
    argv = [
        *(str(Path(sys.executable).parent / "frontier"), "stack", "up"),
        *("--workdir", str(tmp_path), "--nats-port", str(nats_port)),
        *("--base-port", str(base), "--web-port", str(web_port)),
    ]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, text=True, start_new_session=True, env=dict(os.environ)
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 90
        while not any("all SERVING" in line for line in lines):
            line = proc.stdout.readline()
            assert line or proc.poll() is None, f"stack up exited: {lines}"
            lines.append(line)
            assert time.monotonic() < deadline, f"no 'all SERVING' in {lines}"
        url = f"http://127.0.0.1:{web_port}/"
        assert any(line.split()[:2] == ["web", url] for line in lines), lines
        with urllib.request.urlopen(url + "healthz", timeout=5) as reply:
            assert json.loads(reply.read()) == {"status": "ok"}
        with urllib.request.urlopen(url, timeout=5) as reply:
            assert b'<script type="module" src="/static/app.js">' in reply.read()
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(60) == 0
